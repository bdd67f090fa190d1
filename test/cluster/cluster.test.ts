// Several instances of the server (real processes) on one PostgreSQL database: the scheduler's leader killed while
// tasks are due, an instance killed mid-request, the database gone for 5 s, and changes made on one instance used by
// another's next call. PostgreSQL only (AGENTBOX_TEST_DATABASE_URL): SQLite is one process by design. Nothing here
// waits on time to let things happen: every wait polls for the event it needs, under a generous deadline.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { DATABASE_UNAVAILABLE } from '../../src/platform/db/unavailable.ts'
import { type ClusterInstance, startCluster, type TestCluster, uploadSpecTo, waitFor } from '../helpers/cluster.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { callJson, stopAllServers } from '../helpers/process.ts'

const call = (instance: ClusterInstance, method: string, path: string, token?: string, body?: unknown) => callJson(instance, method, path, token, body)

describe.skipIf(!ON_POSTGRES)('several instances on one PostgreSQL', () => {
  let cluster: TestCluster
  let upstream: ReturnType<typeof Bun.serve>
  const seen: { path: string; key: string | null }[] = []

  beforeAll(async () => {
    upstream = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch(request) {
        seen.push({ path: new URL(request.url).pathname, key: request.headers.get('x-api-key') })
        return Response.json({ ok: true })
      },
    })
    cluster = await startCluster({ instances: 3, env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1', AGENTBOX_TASK_MIN_INTERVAL_S: '1' } })
  }, 120_000)

  afterAll(async () => {
    await cluster?.stop()
    await stopAllServers()
    upstream?.stop(true)
  })

  test('exactly one instance leads the scheduler', async () => {
    const leader = await cluster.leader()
    const reports = await Promise.all(cluster.instances.map((instance) => cluster.health(instance)))
    expect(reports.map((report) => report.body.checks.scheduler.leader).filter(Boolean)).toHaveLength(1)
    expect(new Set(reports.map((report) => report.body.instance_id)).size).toBe(3)
    expect(reports.every((report) => report.body.checks.database.kind === 'postgres')).toBe(true)
    expect(cluster.instances).toContain(leader)
  })

  test("a credential, an application or a token changed on one instance is what the other's next call uses", async () => {
    const [a, b] = cluster.instances as [ClusterInstance, ClusterInstance]
    const token = cluster.adminToken
    const spec = {
      openapi: '3.1.0',
      info: { title: 'Echo', version: '1' },
      servers: [{ url: `http://127.0.0.1:${upstream.port}` }],
      components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
      security: [{ key: [] }],
      paths: { '/echo': { get: { operationId: 'echo', responses: { '200': { description: 'ok' } } } } },
    }
    expect((await uploadSpecTo(a, token, spec, { api_name: 'echo', global_spec: 'true' })).status).toBe(201)
    const execute = (instance: ClusterInstance) => call(instance, 'POST', '/api/applications/echo/operations/echo/execute', token, { arguments: {} })

    expect((await call(a, 'PUT', '/api/applications/echo/credentials', token, { scheme: 'key', api_key: 'first-key' })).status).toBe(200)
    expect((await execute(b)).status).toBe(200)
    expect(seen.at(-1)).toEqual({ path: '/echo', key: 'first-key' })
    // B has now kept the application and the credential; A changes the credential and B's very next call sends it.
    expect((await call(a, 'PUT', '/api/applications/echo/credentials', token, { scheme: 'key', api_key: 'second-key' })).status).toBe(200)
    expect((await execute(b)).status).toBe(200)
    expect(seen.at(-1)).toEqual({ path: '/echo', key: 'second-key' })
    // The application goes on A: B's next call finds no application.
    expect((await call(a, 'DELETE', '/api/applications/echo', token)).status).toBe(204)
    expect((await execute(b)).status).toBe(404)

    // A personal token used on B, revoked on A: B refuses it on the next request.
    const created = await call(a, 'POST', '/api/auth/tokens', token, { name: 'cluster' })
    expect(created.status).toBe(201)
    expect((await call(b, 'GET', '/api/auth/me', created.body.token)).status).toBe(200)
    expect((await call(a, 'DELETE', `/api/auth/tokens/${created.body.id}`, token)).status).toBe(200)
    expect((await call(b, 'GET', '/api/auth/me', created.body.token)).status).toBe(401)
  })

  test('the database gone for 5 s: requests answer 503 with a sentence, nothing crashes, service resumes without a restart', async () => {
    const token = cluster.adminToken
    const live = cluster.instances.filter((instance) => instance.proc.exitCode === null)
    for (const instance of live) expect((await call(instance, 'GET', '/api/auth/me', token)).status).toBe(200)
    cluster.relay.down()
    const downAt = Date.now()
    // Up again however this ends, so that a failure here is this test's alone, not the next tests' too.
    try {
      for (const instance of live) {
        const refused = await waitFor(`503 from instance ${instance.name}`, async () => {
          const res = await call(instance, 'GET', '/api/auth/me', token)
          return res.status === 503 ? res : undefined
        })
        expect(refused.body).toEqual({ detail: DATABASE_UNAVAILABLE })
        expect(refused.headers.get('retry-after')).toBe('5')
        const write = await call(instance, 'POST', '/api/auth/tokens', token, { name: 'during the outage' })
        expect(write.status).toBe(503)
        // The health report's database probe is kept for a second: poll it.
        await waitFor(`instance ${instance.name} reporting the database down`, async () => ((await cluster.health(instance)).status === 503 ? true : undefined))
      }
      // The outage lasts 5 s (the scenario, not a wait for something to happen).
      await Bun.sleep(Math.max(0, 5000 - (Date.now() - downAt)))
    } finally {
      cluster.relay.up()
    }
    for (const instance of live) {
      await waitFor(`instance ${instance.name} serving again`, async () =>
        (await call(instance, 'GET', '/api/auth/me', token)).status === 200 ? true : undefined,
      )
      expect((await call(instance, 'POST', '/api/auth/tokens', token, { name: `after ${instance.name}` })).status).toBe(201)
      expect(instance.proc.exitCode).toBeNull()
    }
    expect(live.some((instance) => /"level":"(error|fatal)".*uncaught/i.test(instance.out.text + instance.err.text))).toBe(false)
    await cluster.leader()
  }, 90_000)

  test('kill -9 of an instance mid-request loses no acknowledged write', async () => {
    const token = cluster.adminToken
    const [a, , c] = cluster.instances as [ClusterInstance, ClusterInstance, ClusterInstance]
    const victim = (await cluster.leader()) === c ? cluster.instances[1]! : c
    const acked: string[] = []
    let stop = false
    const writers = Array.from({ length: 6 }, async (_, writer) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await call(victim, 'POST', '/api/auth/tokens', token, { name: `w${writer}-${i}` })
          if (res.status === 201) acked.push(res.body.id)
        } catch {
          return // the connection died with the process
        }
      }
    })
    await waitFor('40 acknowledged writes', async () => (acked.length >= 40 ? true : undefined))
    await cluster.kill9(victim)
    stop = true
    await Promise.all(writers)
    const listed = await call(a, 'GET', '/api/auth/tokens', token)
    expect(listed.status).toBe(200)
    const stored = new Set((listed.body as { id: string }[]).map((row) => row.id))
    expect(acked.filter((id) => !stored.has(id))).toEqual([])
  }, 90_000)

  test('kill -9 of the leader while tasks are due: every slot runs once, and a follower takes over within 10 s', async () => {
    const token = cluster.adminToken
    const leader = await cluster.leader()
    const other = cluster.instances.find((instance) => instance !== leader && instance.proc.exitCode === null)!
    const tasks: string[] = []
    for (let i = 0; i < 3; i++) {
      const created = await call(other, 'POST', '/api/task', token, {
        name: `every two seconds ${i}`,
        prompt: 'Say hello',
        schedule: { frequency: 'cron', cron: '*/2 * * * * *' },
      })
      expect(created.status).toBe(201)
      tasks.push(created.body.id)
    }
    const runsOf = async (id: string) =>
      (await call(other, 'GET', `/api/task/${id}/runs?limit=500`, token)).body as { scheduled_for: string | null; started_at: string; status: string }[]
    // The leader follows tasks created on another instance and runs them.
    await waitFor('a run of every task', async () => ((await Promise.all(tasks.map(runsOf))).every((runs) => runs.length >= 1) ? true : undefined))
    const killedAt = Date.now()
    await cluster.kill9(leader)
    const next = await cluster.leader(30_000)
    expect(next).not.toBe(leader)
    const firstAfter = await waitFor(
      'a run of every task after the kill',
      async () => {
        const all = await Promise.all(tasks.map(runsOf))
        const after = all.map((runs) => runs.filter((run) => Date.parse(run.started_at) > killedAt).map((run) => Date.parse(run.started_at)))
        return after.every((times) => times.length >= 2) ? after.map((times) => Math.min(...times)) : undefined
      },
      60_000,
    )
    for (const startedAt of firstAfter) expect(startedAt - killedAt).toBeLessThan(10_000)
    for (const id of tasks) {
      const runs = await runsOf(id)
      const slots = runs.map((run) => run.scheduled_for)
      expect(slots.every((slot) => slot !== null)).toBe(true)
      expect(new Set(slots).size).toBe(slots.length)
    }
    // A run the dead leader left "running" is recovered by the new leader, not left running for ever.
    await waitFor(
      'no run left running by the killed leader',
      async () =>
        (await Promise.all(tasks.map(runsOf))).flat().every((run) => run.status !== 'running' || Date.parse(run.started_at) > killedAt) ? true : undefined,
      30_000,
    )
  }, 120_000)
})
