// A changed credential is what the very next call uses, on every path (issue 25 #3): after a clear, a new value, an
// organisation credential cleared by an admin, a key rotation, an application deleted or a scheme dropped by a
// re-import, neither POST …/execute nor an MCP tools/call sends the old secret. The upstream is a real server on
// 127.0.0.1 that reports the credential each request carried.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { agentWithEcho, type McpWorld, rpc, startMcpWorld } from '../mcp/helpers.ts'
import { uploadSpec } from './helpers.ts'

let w: McpWorld
/** An agent whose live version uses the application `doomed`. */
let agent: string
let upstream: ReturnType<typeof Bun.serve>
/** The credential each upstream request carried (X-Api-Key, else Authorization), in order. */
const received: (string | null)[] = []

const whoamiApi = (serverUrl: string, title: string) => ({
  openapi: '3.1.0',
  info: { title, version: '1' },
  servers: [{ url: serverUrl }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' }, basic: { type: 'http', scheme: 'basic' } } },
  paths: {
    '/whoami': { get: { operationId: 'whoami', summary: 'Who am I', responses: { '200': { description: 'ok' } } } },
    '/basic': { get: { operationId: 'basicWhoami', security: [{ basic: [] }], responses: { '200': { description: 'ok' } } } },
  },
})

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const credential = request.headers.get('x-api-key') ?? request.headers.get('authorization')
      received.push(credential)
      return Response.json({ credential })
    },
  })
  w = await startMcpWorld({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  const base = `http://127.0.0.1:${upstream.port}`
  for (const [api_name, extra] of [
    ['mine', {}],
    ['shared', { shared_security_info: 'true' }],
    ['doomed', {}],
  ] as const) {
    const imported = await uploadSpec(w.t, w.admin, whoamiApi(base, `Who ${api_name}`), { api_name, global_spec: 'true', create_mcp: 'true', ...extra })
    expect(imported.status).toBe(201)
  }
  agent = await agentWithEcho(w)
  expect((await w.t.request('PATCH', `/api/agents/${agent}`, { token: w.owner.token, body: { applications: [{ api_name: 'doomed' }] } })).status).toBe(200)
  expect((await w.t.request('POST', `/api/agents/${agent}/publish`, { token: w.owner.token, body: {} })).status).toBe(201)
})
afterAll(async () => {
  await w.stop()
  upstream.stop(true)
})

const put = (api: string, body: Record<string, unknown>, token: string) => w.t.request('PUT', `/api/applications/${api}/credentials`, { token, body })
const clear = (api: string, scheme: string, token: string) => w.t.request('DELETE', `/api/applications/${api}/credentials/${scheme}`, { token })
const execute = (api: string, token: string, operation = 'whoami') =>
  w.t.request('POST', `/api/applications/${api}/operations/${operation}/execute`, { token, body: { arguments: {} } })

let calls = 0
/** An MCP tools/call on an endpoint (an MCP app's by default): the tool's text and whether it failed. */
async function mcpCall(api: string, token: string, tool = 'whoami', url = `${w.base}/app/${api}/mcp`): Promise<{ isError: boolean; text: string }> {
  const answer = await rpc(url, token, { jsonrpc: '2.0', id: ++calls, method: 'tools/call', params: { name: tool, arguments: {} } })
  expect(answer.status).toBe(200)
  if (answer.body.error) return { isError: true, text: answer.body.error.message }
  return { isError: answer.body.result.isError === true, text: answer.body.result.content[0].text }
}

/** What the upstream saw during `run`. */
async function seenDuring(run: () => Promise<unknown>): Promise<(string | null)[]> {
  const before = received.length
  await run()
  return received.slice(before)
}

describe('a cleared credential is dead at once', () => {
  test('over HTTP execute and MCP tools/call: used while set, refused on the very next call after the clear, never sent again', async () => {
    expect((await put('mine', { scheme: 'key', api_key: 'first-secret-1111' }, w.owner.token)).status).toBe(200)
    // Both paths have read (and kept) the credential.
    expect((await execute('mine', w.owner.token)).body.body).toEqual({ credential: 'first-secret-1111' })
    expect(await mcpCall('mine', w.owner.token)).toEqual({ isError: false, text: expect.stringContaining('first-secret-1111') })

    expect((await clear('mine', 'key', w.owner.token)).status).toBe(204)
    const seen = await seenDuring(async () => {
      const refused = await execute('mine', w.owner.token)
      expect(refused.status).toBe(400)
      expect(refused.body.detail).toContain('No credential for security scheme "key"')
      const viaMcp = await mcpCall('mine', w.owner.token)
      expect(viaMcp.isError).toBe(true)
      expect(viaMcp.text).toContain('No credential for security scheme "key"')
    })
    expect(seen).toEqual([])
    expect(
      (await w.t.request('GET', '/api/applications/mine/credentials', { token: w.owner.token })).body.find((entry: any) => entry.scheme === 'key'),
    ).toMatchObject({ connected: false })
  })

  test('a new value replaces the old one on the next call of either path', async () => {
    await put('mine', { scheme: 'key', api_key: 'second-secret-2222' }, w.owner.token)
    expect((await execute('mine', w.owner.token)).body.body.credential).toBe('second-secret-2222')
    expect((await mcpCall('mine', w.owner.token)).text).toContain('second-secret-2222')
    await put('mine', { scheme: 'key', api_key: 'third-secret-3333' }, w.owner.token)
    const seen = await seenDuring(async () => {
      await execute('mine', w.owner.token)
      await mcpCall('mine', w.owner.token)
    })
    expect(seen).toEqual(['third-secret-3333', 'third-secret-3333'])
  })

  test("clearing one user's credential leaves another user's in use", async () => {
    await put('mine', { scheme: 'key', api_key: 'viewer-secret-4444' }, w.viewer.token)
    expect((await execute('mine', w.viewer.token)).body.body.credential).toBe('viewer-secret-4444')
    expect((await clear('mine', 'key', w.owner.token)).status).toBe(204)
    expect((await execute('mine', w.viewer.token)).body.body.credential).toBe('viewer-secret-4444')
    expect((await mcpCall('mine', w.viewer.token)).text).toContain('viewer-secret-4444')
    expect((await execute('mine', w.owner.token)).status).toBe(400)
  })

  test("an admin clearing the organisation's credential stops every member's calls at once", async () => {
    await put('shared', { scheme: 'key', api_key: 'org-secret-5555' }, w.admin)
    expect((await execute('shared', w.owner.token)).body.body.credential).toBe('org-secret-5555')
    expect((await mcpCall('shared', w.viewer.token)).text).toContain('org-secret-5555')
    expect((await clear('shared', 'key', w.admin)).status).toBe(204)
    const seen = await seenDuring(async () => {
      expect((await execute('shared', w.owner.token)).status).toBe(400)
      expect((await mcpCall('shared', w.viewer.token)).isError).toBe(true)
    })
    expect(seen).toEqual([])
  })

  test('after a key rotation the same credential keeps working on both paths, and a clear after it still takes effect', async () => {
    await put('mine', { scheme: 'key', api_key: 'rotated-secret-6666' }, w.outsider.token)
    expect((await execute('mine', w.outsider.token)).body.body.credential).toBe('rotated-secret-6666')
    expect((await w.t.request('POST', '/api/org/secrets/rotate', { token: w.admin })).status).toBe(200)
    expect((await execute('mine', w.outsider.token)).body.body.credential).toBe('rotated-secret-6666')
    expect((await mcpCall('mine', w.outsider.token)).text).toContain('rotated-secret-6666')
    await clear('mine', 'key', w.outsider.token)
    expect(await seenDuring(() => execute('mine', w.outsider.token))).toEqual([])
  })

  test('a re-import that drops a scheme clears its credentials, and calls stop using them at once', async () => {
    await put('mine', { scheme: 'basic', username: 'ann', password: 'basic-secret-7777' }, w.outsider.token)
    expect((await execute('mine', w.outsider.token, 'basicWhoami')).body.body.credential).toStartWith('Basic ')
    const document = whoamiApi(`http://127.0.0.1:${upstream.port}`, 'Who mine') as any
    delete document.components.securitySchemes.basic
    document.paths['/basic'].get.security = [{ key: [] }]
    expect((await uploadSpec(w.t, w.admin, document, { api_name: 'mine', replace: 'true' })).status).toBe(201)
    const seen = await seenDuring(async () => {
      // The operation now needs `key`, which this user cleared: the Basic credential is gone, not sent.
      expect((await execute('mine', w.outsider.token, 'basicWhoami')).status).toBe(400)
    })
    expect(seen).toEqual([])
  })

  test("a deleted application is gone on the next call of every path, though each had kept it (an agent's tools too)", async () => {
    await put('doomed', { scheme: 'key', api_key: 'doomed-secret-8888' }, w.owner.token)
    const agentUrl = `${w.base}/agent/${agent}/mcp`
    expect((await execute('doomed', w.owner.token)).status).toBe(200)
    expect((await mcpCall('doomed', w.owner.token)).isError).toBe(false)
    expect(await mcpCall('doomed', w.owner.token, 'whoami', agentUrl)).toEqual({ isError: false, text: expect.stringContaining('doomed-secret-8888') })
    expect((await w.t.request('DELETE', '/api/applications/doomed', { token: w.admin })).status).toBe(204)
    const seen = await seenDuring(async () => {
      expect((await execute('doomed', w.owner.token)).status).toBe(404)
      const answer = await rpc(`${w.base}/app/doomed/mcp`, w.owner.token, {
        jsonrpc: '2.0',
        id: ++calls,
        method: 'tools/call',
        params: { name: 'whoami', arguments: {} },
      })
      expect(answer.status).toBe(404)
      // The agent's surface no longer offers the operation.
      expect((await mcpCall('doomed', w.owner.token, 'whoami', agentUrl)).isError).toBe(true)
    })
    expect(seen).toEqual([])
    // Nothing of it is left in the vault.
    const left = (await w.t.sql.get("SELECT count(*) AS n FROM sealed_secrets WHERE namespace = 'app_credential'")) as { n: number }
    const apps = (await w.t.sql.all('SELECT id FROM applications')) as { id: string }[]
    const owned = (await w.t.sql.all("SELECT DISTINCT subject FROM sealed_secrets WHERE namespace = 'app_credential'")) as {
      subject: string
    }[]
    expect(owned.every((row) => apps.some((app) => app.id === row.subject))).toBe(true)
    expect(left.n).toBeGreaterThan(0)
  })

  test("a deactivated user's credential is not used by anyone: their next call on either path is a 401", async () => {
    expect((await execute('mine', w.viewer.token)).body.body.credential).toBe('viewer-secret-4444')
    const viewerId = (await w.t.request('GET', '/api/auth/me', { token: w.viewer.token })).body.id
    expect((await w.t.request('DELETE', `/api/users/${viewerId}`, { token: w.admin })).status).toBe(200)
    const seen = await seenDuring(async () => {
      expect((await execute('mine', w.viewer.token)).status).toBe(401)
      expect(
        (await rpc(`${w.base}/app/mine/mcp`, w.viewer.token, { jsonrpc: '2.0', id: ++calls, method: 'tools/call', params: { name: 'whoami', arguments: {} } }))
          .status,
      ).toBe(401)
    })
    expect(seen).toEqual([])
  })

  test('secrets never reach the log', () => {
    const logged = JSON.stringify(w.t.log.lines)
    for (const secret of [
      'first-secret-1111',
      'third-secret-3333',
      'viewer-secret-4444',
      'org-secret-5555',
      'rotated-secret-6666',
      'basic-secret-7777',
      'doomed-secret-8888',
    ])
      expect(logged).not.toContain(secret)
  })
})
