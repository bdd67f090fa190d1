// The last state one process used to keep, now shared, each proven with two real instances on one PostgreSQL database:
// a chat thread's turn running on one instance refuses a second turn on the other; a template sync running on one makes
// the other's sync of the same application wait for it (the git server holds the first push until the test lets it go);
// a GPT key rotated or uninstalled on one is refused by the other's next request, though the other had just verified
// it; failed GPT keys add up across instances; and a secrets key rotation on one waits for one running on the other
// (held inside its re-encryption by a row lock the test takes), after which every secret opens on both. PostgreSQL only (AGENTBOX_TEST_DATABASE_URL). Waits poll for the
// event they need (a request arriving, a log line); none waits for time to pass.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { GPT_KEY_MAX_FAILURES } from '../../src/modules/gpts/key-throttle.ts'
import { type ClusterInstance, startCluster, type TestCluster, uploadSpecTo, waitFor } from '../helpers/cluster.ts'
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
    upstream = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => Response.json(new URL(request.url).pathname === '/whoami' ? { authorization: request.headers.get('authorization') } : { ok: true }),
    })
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
    expect(await uploadSpecTo(a, cluster.adminToken, spec, { api_name: 'echo', global_spec: 'true' })).toMatchObject({ status: 201 })
  }, 120_000)

  /** Uploads an application through `instance` whose one operation echoes the Authorization header it receives. */
  const uploadEcho = async (instance: ClusterInstance, apiName: string, fields: Record<string, string>) => {
    const spec = {
      openapi: '3.1.0',
      info: { title: apiName, version: '1' },
      servers: [{ url: `http://127.0.0.1:${upstream.port}` }],
      paths: { '/whoami': { get: { operationId: 'whoami', security: [{ token: [] }], responses: { '200': { description: 'ok' } } } } },
      components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
    }
    expect(await uploadSpecTo(instance, cluster.adminToken, spec, { api_name: apiName, ...fields })).toMatchObject({ status: 201 })
  }

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

  test('a secrets key rotation on A while one runs on B waits for it, then rotates from its keyring: every secret opens on both', async () => {
    await uploadEcho(a, 'vault-user', { global_spec: 'true' })
    await uploadEcho(a, 'vault-org', { global_spec: 'true', shared_security_info: 'true' })
    const put = (instance: ClusterInstance, apiName: string, token: string) =>
      call(instance, 'PUT', `/api/applications/${apiName}/credentials`, { scheme: 'token', token })
    expect((await put(a, 'vault-user', 'user-token-on-a')).status).toBe(200)
    expect((await put(b, 'vault-org', 'org-token-on-b')).status).toBe(200)
    const whoami = async (instance: ClusterInstance, apiName: string) => {
      const answer = await call(instance, 'POST', `/api/applications/${apiName}/operations/whoami/execute`, { arguments: {} })
      expect(answer.status).toBe(200)
      return answer.body.body.authorization as string
    }
    const keyring = () => JSON.parse(readFileSync(join(cluster.secretsDir, 'credentials.key'), 'utf8')) as { current: string; keys: { kid: string }[] }
    const original = keyring().current
    const idOfB = (await cluster.health(b)).body.instance_id as string

    // B's rotation is held inside its re-encryption: the test locks the rows it must rewrite.
    const locker = new pg.Client({ connectionString: cluster.databaseUrl })
    await locker.connect()
    const keyIds: string[] = []
    try {
      await locker.query('BEGIN')
      await locker.query("SELECT namespace FROM sealed_secrets WHERE namespace = 'app_credential' FOR UPDATE")
      const onB = call(b, 'POST', '/api/org/secrets/rotate')
      await waitFor('B to hold the rotation lease', async () => {
        const held = await locker.query<{ instance_id: string }>("SELECT instance_id FROM leases WHERE key = 'secrets_rotation'")
        return held.rows[0]?.instance_id === idOfB ? true : undefined
      })
      const onA = call(a, 'POST', '/api/org/secrets/rotate')
      const waiting = await waitFor('A to wait for the lease B holds', async () =>
        logLines(a).find((line) => line.msg === 'waiting for a lease another instance holds' && line.lease === 'secrets_rotation'),
      )
      expect(waiting.holder_instance).toBe(idOfB)
      // Only B has written the keyring so far: its new key beside the original one.
      expect(keyring().keys).toHaveLength(2)
      expect(keyring().keys[0]!.kid).toBe(original)
      await locker.query('COMMIT')
      const [fromB, fromA] = [await onB, await onA]
      expect(fromB.status).toBe(200)
      expect(fromA.status).toBe(200)
      expect(fromB.body).toMatchObject({ unreadable: 0, retired_key_ids: [original] })
      // A rotated from the keyring B left: it moved B's values on and retired B's key; none of B's keys was lost.
      expect(fromA.body).toMatchObject({ reencrypted: fromB.body.reencrypted, unreadable: 0, retired_key_ids: [fromB.body.key_id] })
      expect(keyring()).toMatchObject({ current: fromA.body.key_id, keys: [{ kid: fromA.body.key_id }] })
      const kids = await locker.query<{ kid: string }>("SELECT DISTINCT split_part(sealed, ':', 2) AS kid FROM sealed_secrets")
      expect(kids.rows).toEqual([{ kid: fromA.body.key_id }])
      expect((await locker.query("SELECT key FROM leases WHERE key = 'secrets_rotation'")).rows).toEqual([])
      keyIds.push(fromB.body.key_id, fromA.body.key_id)
    } finally {
      await locker.end()
    }
    for (const instance of [a, b]) {
      expect(await whoami(instance, 'vault-user')).toBe('Bearer user-token-on-a')
      expect(await whoami(instance, 'vault-org')).toBe('Bearer org-token-on-b')
      for (const apiName of ['vault-user', 'vault-org']) {
        const listed = await call(instance, 'GET', `/api/applications/${apiName}/credentials`)
        expect(listed.body).toEqual([expect.objectContaining({ scheme: 'token', connected: true })])
      }
    }
    // And a secret stored on B after the rotations is sealed with A's key, which both hold.
    expect((await put(b, 'vault-user', 'user-token-on-b')).status).toBe(200)
    expect(await whoami(a, 'vault-user')).toBe('Bearer user-token-on-b')
    // Each rotation is audited once, by the instance that ran it.
    const audit = await call(a, 'GET', '/api/audit?action=secrets_key.rotate')
    expect(audit.body.map((entry: { target_id: string }) => entry.target_id).sort()).toEqual([...keyIds].sort())
  }, 60_000)
})
