// What several instances must share beyond caches, each proven with two real instances on one PostgreSQL database:
// the sign-in throttle (and the password change's), the licence, setup done on another instance, the one run a task
// may have in flight, a workflow run cancelled on another instance than the one executing it, and the secrets
// directory every instance must read. PostgreSQL only (AGENTBOX_TEST_DATABASE_URL). Waits poll for the event they
// need; a model call is held in flight by the fake model server until the test releases it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeServer, type FakeServer } from '../llm/fake-servers.ts'
import { CLUSTER_ADMIN, type ClusterInstance, startCluster, type TestCluster, waitFor } from '../helpers/cluster.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { issueTestLicense } from '../helpers/license.ts'
import { callJson, stopAllServers } from '../helpers/process.ts'

const call = (instance: ClusterInstance, method: string, path: string, token?: string, body?: unknown) => callJson(instance, method, path, token, body)

describe.skipIf(!ON_POSTGRES)('state two instances share', () => {
  let cluster: TestCluster
  let fake: FakeServer
  let a: ClusterInstance
  let b: ClusterInstance

  beforeAll(async () => {
    fake = startFakeServer('openai')
    cluster = await startCluster({
      instances: 2,
      env: {
        AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1',
        AGENTBOX_LLM_PROVIDER: 'openai',
        AGENTBOX_LLM_MODEL: 'fake-model',
        AGENTBOX_OPENAI_BASE_URL: fake.url,
        AGENTBOX_OPENAI_API_KEY: 'sk-test',
      },
    })
    ;[a, b] = cluster.instances as [ClusterInstance, ClusterInstance]
  }, 120_000)

  afterAll(async () => {
    await cluster?.stop()
    await stopAllServers()
    await fake?.close()
  }, 60_000)

  test('sign-in failures are counted across instances: ten in all, not ten on each', async () => {
    const attempt = (instance: ClusterInstance) =>
      call(instance, 'POST', '/api/auth/login', undefined, { email: 'nobody@example.com', password: 'wrong password' })
    for (let i = 0; i < 10; i++) expect((await attempt(i % 2 === 0 ? a : b)).status).toBe(401)
    for (const instance of [a, b]) {
      const refused = await attempt(instance)
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    }
  }, 60_000)

  test("the password change's throttle is the same one: wrong current passwords on either instance add up", async () => {
    const created = await call(a, 'POST', '/api/users', cluster.adminToken, {
      email: 'pat@example.com',
      name: 'Pat',
      password: 'a long enough password',
      role: 'member',
    })
    expect(created.status).toBe(201)
    const login = await call(b, 'POST', '/api/auth/login', undefined, { email: 'pat@example.com', password: 'a long enough password' })
    expect(login.status).toBe(200)
    const token = login.body.access_token as string
    const change = (instance: ClusterInstance) =>
      call(instance, 'POST', '/api/auth/password', token, { current_password: 'not it', new_password: 'another long password' })
    for (let i = 0; i < 10; i++) expect((await change(i % 2 === 0 ? b : a)).status).toBe(403)
    expect((await change(a)).status).toBe(429)
    expect((await change(b)).status).toBe(429)
  }, 60_000)

  test('a licence applied on one instance is the licence of the other at its next request', async () => {
    expect((await call(b, 'GET', '/api/org/license', cluster.adminToken)).body.seats).toBe(1000)
    const applied = await call(a, 'POST', '/api/org/apply_license', cluster.adminToken, { license_token: issueTestLicense({ seats: 1234 }) })
    expect(applied.status).toBe(200)
    const onB = await call(b, 'GET', '/api/org/license', cluster.adminToken)
    expect(onB.status).toBe(200)
    expect(onB.body).toMatchObject({ seats: 1234, lic: applied.body.license.lic })
  }, 60_000)

  test('"run now" is refused on one instance while the task runs on the other', async () => {
    const created = await call(a, 'POST', '/api/task', cluster.adminToken, { name: 'held', prompt: 'Hold on' })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    fake.behave({ hang: true })
    const arrived = fake.nextRequest()
    expect((await call(a, 'POST', `/api/task/${id}/run`, cluster.adminToken)).status).toBe(202)
    await arrived
    const second = await call(b, 'POST', `/api/task/${id}/run`, cluster.adminToken)
    expect(second.status).toBe(409)
    expect(second.body).toEqual({ detail: 'Task is already running' })
    fake.behave({ reply: 'done' })
    fake.release('done')
    const runsOf = async () => (await call(b, 'GET', `/api/task/${id}/runs`, cluster.adminToken)).body as { status: string }[]
    await waitFor('the held run to finish', async () => ((await runsOf()).every((run) => run.status !== 'running') ? true : undefined))
    // Finished: the next run may start on either instance.
    expect((await call(b, 'POST', `/api/task/${id}/run`, cluster.adminToken)).status).toBe(202)
    await waitFor('the second run to finish', async () => ((await runsOf()).every((run) => run.status !== 'running') ? true : undefined))
    const runs = await runsOf()
    expect(runs).toHaveLength(2)
    expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded'])
  }, 60_000)

  test('a workflow run cancelled on another instance stops at its next step on the instance executing it', async () => {
    const token = cluster.adminToken
    expect((await call(a, 'POST', '/api/agents', token, { name: 'flow-bot', description: 'd', instructions: 'i' })).status).toBe(201)
    const definition = {
      nodes: [
        { id: 'first', type: 'agentbox.llm', params: { prompt: 'first' } },
        { id: 'second', type: 'agentbox.llm', params: { prompt: 'second' } },
        { id: 'out', type: 'agentbox.output', params: { value: '{{ $json.text }}' } },
      ],
      connections: [
        { from: 'first', to: 'second' },
        { from: 'second', to: 'out' },
      ],
    }
    const saved = await call(a, 'POST', '/api/workflows/flow-bot', token, { name: 'two calls', definition })
    expect(saved.status).toBe(201)
    expect((await call(a, 'POST', '/api/agents/flow-bot/publish', token, {})).status).toBeLessThan(300)
    const before = fake.requests.length
    fake.behave({ hang: true }, { reply: 'second answer' })
    const arrived = fake.nextRequest()
    const running = call(a, 'POST', `/api/workflows/flow-bot/${saved.body.id}/run`, token, { input: {} })
    await arrived
    const listed = await call(b, 'GET', '/api/workflows/flow-bot/runs', token)
    expect(listed.status).toBe(200)
    const run = (listed.body as { run_id: string; status: string }[]).find((entry) => entry.status === 'running')!
    expect(run).toBeDefined()
    const cancelled = await call(b, 'POST', `/api/workflows/flow-bot/runs/${run.run_id}/cancel`, token)
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.status).toBe('cancelled')
    expect(cancelled.body.status).toBe('cancelled')
    fake.release('first answer')
    const answer = await running
    expect(answer.status).toBe(200)
    expect(answer.body.status).toBe('cancelled')
    // The executing instance read the stored cancel after the first call: the second model call never happened.
    expect(fake.requests.length - before).toBe(1)
    const stored = await call(a, 'GET', `/api/workflows/flow-bot/runs/${run.run_id}`, token)
    expect(stored.body.status).toBe('cancelled')
  }, 60_000)

  test('an instance whose secrets directory is not the shared one does not start, and says why', async () => {
    const own = join(cluster.secretsDir, '..', 'own-secrets')
    mkdirSync(own, { mode: 0o700 })
    const failed = await cluster.add('stray', { AGENTBOX_SECRETS_DIR: own }).then(
      () => null,
      (error: Error) => error.message,
    )
    expect(failed).not.toBeNull()
    expect(failed!).toContain(`The secrets directory ${own} does not hold the key`)
    expect(failed!).toContain('AGENTBOX_SECRETS_DIR')
    expect(failed!).not.toContain('    at ')
  }, 60_000)
})

describe.skipIf(!ON_POSTGRES)('instances started before setup', () => {
  let cluster: TestCluster

  beforeAll(async () => {
    cluster = await startCluster({ instances: 2, setup: false })
  }, 120_000)

  afterAll(async () => {
    await cluster?.stop()
    await stopAllServers()
  }, 60_000)

  test('setup on one instance: the other serves the organisation at its next request, without a restart', async () => {
    const [a, b] = cluster.instances as [ClusterInstance, ClusterInstance]
    expect((await call(b, 'POST', '/api/auth/login', undefined, { email: CLUSTER_ADMIN.email, password: CLUSTER_ADMIN.password })).status).toBe(401)
    const token = await cluster.setup(a)
    // B signs in (with the key setup wrote to the shared secrets directory) and accepts A's tokens, and A accepts B's.
    const login = await call(b, 'POST', '/api/auth/login', undefined, { email: CLUSTER_ADMIN.email, password: CLUSTER_ADMIN.password })
    expect(login.status).toBe(200)
    expect((await call(b, 'GET', '/api/auth/me', token)).status).toBe(200)
    expect((await call(a, 'GET', '/api/auth/me', login.body.access_token)).status).toBe(200)
    expect((await call(b, 'GET', '/api/org/license', token)).body.seats).toBe(1000)
    // A second setup on B is the conflict it is on A.
    const again = await call(b, 'POST', '/api/tenant/setup', 'cluster-fixed-setup-token-0123456789', {
      license_token: issueTestLicense(),
      admin_email: 'other@example.com',
      admin_name: 'Other',
      admin_password: 'correct horse battery',
    })
    expect(again.status).toBe(409)
    // An instance started now checks its signing key against the one setup recorded, and serves too.
    const c = await cluster.add('c')
    expect((await call(c, 'GET', '/api/auth/me', token)).status).toBe(200)
  }, 60_000)
})
