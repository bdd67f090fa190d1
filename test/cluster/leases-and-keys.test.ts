// The last state one process used to keep, now shared, each proven with two real instances on one PostgreSQL database:
// a chat thread's turn running on one instance refuses a second turn on the other; a template sync running on one makes
// the other's sync of the same application wait for it (the git server holds the first push until the test lets it go);
// a GPT key rotated or uninstalled on one is refused by the other's next request, though the other had just verified
// it; and failed GPT keys add up across instances. PostgreSQL only (AGENTBOX_TEST_DATABASE_URL). Waits poll for the
// event they need (a request arriving, a log line); none waits for time to pass.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GPT_KEY_MAX_FAILURES } from '../../src/modules/gpts/key-throttle.ts'
import { type ClusterInstance, startCluster, type TestCluster, waitFor } from '../helpers/cluster.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { type GitServer, HAS_GIT, startGitServer, WorkingCopy } from '../helpers/git-server.ts'
import { callJson, logLines, stopAllServers } from '../helpers/process.ts'
import { type FakeServer, startFakeServer } from '../llm/fake-servers.ts'

const call = (instance: ClusterInstance, method: string, path: string, body?: unknown) => callJson(instance, method, path, cluster.adminToken, body)

let cluster: TestCluster
let fake: FakeServer
let git: GitServer | null = null
let upstream: ReturnType<typeof Bun.serve>
let a: ClusterInstance
let b: ClusterInstance

describe.skipIf(!ON_POSTGRES)('leases and GPT keys across two instances', () => {
  beforeAll(async () => {
    fake = startFakeServer('openai')
    if (HAS_GIT) git = await startGitServer()
    upstream = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => Response.json({ ok: true }) })
    cluster = await startCluster({
      instances: 2,
      env: {
        AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1',
        // The test is the load balancer: X-Forwarded-For names the client whose failed keys are counted.
        AGENTBOX_TRUSTED_PROXIES: '127.0.0.1',
        AGENTBOX_LLM_PROVIDER: 'openai',
        AGENTBOX_LLM_MODEL: 'fake-model',
        AGENTBOX_OPENAI_BASE_URL: fake.url,
        AGENTBOX_OPENAI_API_KEY: 'sk-test',
      },
    })
    ;[a, b] = cluster.instances as [ClusterInstance, ClusterInstance]
    const spec = {
      openapi: '3.1.0',
      info: { title: 'Echo', version: '1' },
      servers: [{ url: `http://127.0.0.1:${upstream.port}` }],
      paths: { '/echo': { get: { operationId: 'echo', summary: 'Echo', responses: { '200': { description: 'ok' } } } } },
    }
    const form = new FormData()
    form.append('file', new File([JSON.stringify(spec)], 'spec.json', { type: 'application/json' }))
    form.append('api_name', 'echo')
    form.append('global_spec', 'true')
    const encoded = new Response(form)
    const contentType = encoded.headers.get('content-type')!
    const bytes = new Uint8Array(await encoded.arrayBuffer())
    const upload = await fetch(`${a.base}/api/spec_from_file/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cluster.adminToken}`, 'content-type': contentType, 'content-length': String(bytes.byteLength) },
      body: bytes,
    })
    expect({ status: upload.status, body: await upload.json() }).toMatchObject({ status: 201 })
  }, 120_000)

  afterAll(async () => {
    await cluster?.stop()
    await stopAllServers()
    await fake?.close()
    await git?.stop()
    upstream?.stop(true)
  }, 60_000)

  test('a turn running in a thread on one instance: a second turn of that thread on the other is a 409; once it ends, the other may take the next', async () => {
    fake.behave({ reply: 'first answer' })
    const first = await call(a, 'POST', '/api/chat', { message: 'start' })
    expect(first.status).toBe(200)
    const threadId = first.body.thread_id as string
    fake.behave({ hang: true })
    const arrived = fake.nextRequest()
    const held = call(a, 'POST', '/api/chat', { thread_id: threadId, message: 'hold on' })
    await arrived
    const refused = await call(b, 'POST', '/api/chat', { thread_id: threadId, message: 'me too' })
    expect(refused.status).toBe(409)
    expect(refused.body).toEqual({ detail: 'A turn is already in progress in this thread: wait for it to finish' })
    fake.behave({ reply: 'next answer' })
    fake.release('held answer')
    expect((await held).status).toBe(200)
    const next = await call(b, 'POST', '/api/chat', { thread_id: threadId, message: 'now me' })
    expect(next.status).toBe(200)
    const thread = await call(b, 'GET', `/api/threads/${threadId}`)
    expect(thread.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'start',
      'first answer',
      'hold on',
      'held answer',
      'now me',
      'next answer',
    ])
  }, 60_000)

  test.skipIf(!HAS_GIT)(
    "a template sync on one instance makes the other's sync of the same application wait until it has pushed",
    async () => {
      const repoServer = git!
      await repoServer.createRepository('shared-templates')
      const put = await call(a, 'PUT', '/api/ui-templates/vcs/echo', {
        repo_url: repoServer.url('shared-templates'),
        username: repoServer.username,
        token: repoServer.token,
      })
      expect(put.status).toBe(200)
      const template = async (type: string) => {
        const made = await call(a, 'POST', '/api/ui-templates/echo/operations/echo', { html: `<p>${type}</p>`, type })
        expect(made.status).toBe(201)
        return made.body.id as string
      }
      const [first, second] = [await template('result'), await template('compact')]
      let reached!: () => void
      const pushReached = new Promise<void>((resolve) => {
        reached = resolve
      })
      let letGo!: () => void
      const gate = new Promise<void>((resolve) => {
        letGo = resolve
      })
      repoServer.beforeNextPush = async () => {
        reached()
        await gate
      }
      const pushingOnA = call(a, 'POST', `/api/ui-templates/vcs/sync/echo/${first}`, { direction: 'push' })
      await pushReached
      const requestsWhileHeld = repoServer.requests.length
      const pushingOnB = call(b, 'POST', `/api/ui-templates/vcs/sync/echo/${second}`, { direction: 'push' })
      const waiting = await waitFor('B to wait for the lease A holds', async () =>
        logLines(b).find((line) => line.msg === 'waiting for a lease another instance holds' && String(line.lease).startsWith('ui_template_sync:')),
      )
      expect(waiting.holder_instance).toBe((await cluster.health(a)).body.instance_id)
      // B has not touched the repository while A's push is held: it never fetched what A was about to replace.
      expect(repoServer.requests.length).toBe(requestsWhileHeld)
      letGo()
      const [onA, onB] = [await pushingOnA, await pushingOnB]
      expect(onA.body).toMatchObject({ success: true })
      expect(onB.body).toMatchObject({ success: true })
      const copy = await WorkingCopy.clone(repoServer, 'shared-templates')
      expect((await copy.files()).length).toBe(4)
      expect((await copy.log()).length).toBe(2)
      copy.dispose()
    },
    90_000,
  )

  test('a GPT key rotated or uninstalled on one instance is refused by the other at its next request, though it had just verified it', async () => {
    const appsList = (instance: ClusterInstance, key: string, client = '203.0.113.10') =>
      fetch(`${instance.base}/api/gpt_public/apps_list`, { headers: { 'x-api-key': key, 'x-forwarded-for': client } })
    const created = await call(a, 'POST', '/api/gpts', {
      name: 'echo-gpt',
      description: 'Echoes',
      instructions: 'Echo.',
      applications: ['echo'],
      visibility: 'public',
    })
    expect(created.status).toBe(201)
    const firstKey = created.body.api_key as string
    expect((await appsList(b, firstKey)).status).toBe(200)
    const rotated = await call(a, 'POST', '/api/gpts/echo-gpt/rotate_key')
    expect(rotated.status).toBe(200)
    const secondKey = rotated.body.api_key as string
    expect((await appsList(b, firstKey)).status).toBe(401)
    expect((await appsList(b, secondKey)).status).toBe(200)
    expect((await call(a, 'POST', '/api/gpt/echo-gpt/uninstall')).status).toBe(200)
    expect((await appsList(b, secondKey)).status).toBe(401)
  }, 60_000)

  test('principals one instance remembers are dropped when a user, token or session changes on the other, at the next request', async () => {
    const created = await call(a, 'POST', '/api/users', { email: 'remy@example.com', name: 'Remy', password: 'a long enough password', role: 'member' })
    expect(created.status).toBe(201)
    const login = await callJson(b, 'POST', '/api/auth/login', undefined, { email: 'remy@example.com', password: 'a long enough password' })
    const access = login.body.access_token as string
    const pat = (await callJson(b, 'POST', '/api/auth/tokens', access, { name: 'cli' })).body as { id: string; token: string }
    const me = (instance: ClusterInstance, token: string) => callJson(instance, 'GET', '/api/auth/me', token)
    // Remembered on B (repeated reads, nothing written between them).
    for (let i = 0; i < 3; i++) for (const token of [access, pat.token]) expect((await me(b, token)).status).toBe(200)
    expect((await call(a, 'PATCH', `/api/users/${created.body.id}`, { name: 'Remy Renamed' })).status).toBe(200)
    expect((await me(b, access)).body.name).toBe('Remy Renamed')
    expect((await callJson(a, 'DELETE', `/api/auth/tokens/${pat.id}`, access)).status).toBe(200)
    expect((await me(b, pat.token)).status).toBe(401)
    expect((await me(b, access)).status).toBe(200)
    const changed = await callJson(a, 'POST', '/api/auth/password', access, {
      current_password: 'a long enough password',
      new_password: 'another long password',
    })
    expect(changed.status).toBe(200)
    expect((await me(b, access)).status).toBe(401)
    // The new token, remembered on B, then the user deactivated on A.
    const again = changed.body.access_token as string
    for (let i = 0; i < 3; i++) expect((await me(b, again)).status).toBe(200)
    expect((await call(a, 'DELETE', `/api/users/${created.body.id}`)).status).toBe(200)
    expect((await me(b, again)).status).toBe(401)
  }, 60_000)

  test(`failed GPT keys from one address add up across instances: ${GPT_KEY_MAX_FAILURES} in all, not ${GPT_KEY_MAX_FAILURES} on each`, async () => {
    const created = await call(b, 'POST', '/api/gpts', {
      name: 'valid-gpt',
      description: 'Valid',
      instructions: 'Valid.',
      applications: ['echo'],
      visibility: 'public',
    })
    expect(created.status).toBe(201)
    const appsList = (instance: ClusterInstance, key: string, client: string) =>
      fetch(`${instance.base}/api/gpt_public/apps_list`, { headers: { 'x-api-key': key, 'x-forwarded-for': client } })
    const guesser = '198.51.100.7'
    for (let i = 0; i < GPT_KEY_MAX_FAILURES; i++) expect((await appsList(i % 2 === 0 ? a : b, 'abx_gpt_guess', guesser)).status).toBe(401)
    for (const instance of [a, b]) {
      const refused = await appsList(instance, created.body.api_key, guesser)
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    // Another address is not held back.
    expect((await appsList(a, created.body.api_key, '198.51.100.8')).status).toBe(200)
  }, 60_000)
})
