// The MCP endpoints on the wire: every bad request gets the answer the MCP specification names, before or instead of
// reaching a tool; who may reach which endpoint.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { agentWithEcho, type McpWorld, rpc, startMcpWorld } from './helpers.ts'

let w: McpWorld
let agent: string
let live: string

const initialize = (name = 'wire-test') => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } },
})
const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }

beforeAll(async () => {
  w = await startMcpWorld()
  agent = await agentWithEcho(w)
  live = `${w.base}/agent/${agent}/mcp`
})
afterAll(() => w.stop())

describe('authentication', () => {
  test('no token: 401 with a challenge naming the path-aware protected-resource metadata', async () => {
    const res = await rpc(live, null, initialize())
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${w.base}/.well-known/oauth-protected-resource/agent/${agent}/mcp", scope="mcp"`,
    )
  })

  test('a bad token: 401 with error="invalid_token"', async () => {
    const res = await rpc(`${w.base}/agent/${agent}/design/mcp`, 'abx_pat_not-a-real-token', initialize())
    expect(res.status).toBe(401)
    const header = res.headers.get('www-authenticate')!
    expect(header).toStartWith(`Bearer resource_metadata="${w.base}/.well-known/oauth-protected-resource/agent/${agent}/design/mcp"`)
    expect(header).toContain('error="invalid_token"')
  })

  test('a personal API token works as a bearer token', async () => {
    const created = await w.t.request('POST', '/api/auth/tokens', { token: w.viewer.token, body: { name: 'mcp client' } })
    expect(created.status).toBe(201)
    const res = await rpc(live, created.body.token, listTools)
    expect(res.status).toBe(200)
    expect(res.body.result.tools.map((tool: any) => tool.name)).toEqual(['run_workflow', 'resume_workflow'])
  })
})

describe('who reaches which endpoint', () => {
  test('an outsider gets 404 for an agent not shared with them, as for one that does not exist', async () => {
    expect((await rpc(live, w.outsider.token, listTools)).status).toBe(404)
    const missing = await rpc(`${w.base}/agent/no-such-agent/mcp`, w.owner.token, listTools)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ detail: 'Agent not found' })
  })

  test('a viewer uses the live endpoint but gets 403 at the design endpoint; the owner gets both', async () => {
    expect((await rpc(live, w.viewer.token, listTools)).status).toBe(200)
    expect((await rpc(`${w.base}/agent/${agent}/design/mcp`, w.viewer.token, listTools)).status).toBe(403)
    expect((await rpc(`${w.base}/agent/${agent}/design/mcp`, w.owner.token, listTools)).status).toBe(200)
  })

  test('an agent never published has no live tools but still answers', async () => {
    const created = await w.t.request('POST', '/api/agents', { token: w.owner.token, body: { name: 'unpublished', description: 'd', instructions: 'i' } })
    expect(created.status).toBe(201)
    const res = await rpc(`${w.base}/agent/unpublished/mcp`, w.owner.token, listTools)
    expect(res.status).toBe(200)
    expect(res.body.result.tools.map((tool: any) => tool.name)).toEqual(['run_workflow', 'resume_workflow'])
  })

  test('an application endpoint exists only for applications imported with create_mcp', async () => {
    expect((await rpc(`${w.base}/app/nothing/mcp`, w.owner.token, listTools)).status).toBe(404)
  })
})

describe('transport rules', () => {
  test('a foreign Origin is refused with 403 before anything else', async () => {
    const res = await rpc(live, w.viewer.token, listTools, { headers: { origin: 'https://evil.example' } })
    expect(res.status).toBe(403)
    // A loopback instance reached from its own origin (a local page, the MCP conformance suite) is served.
    const same = await rpc(live, w.viewer.token, listTools, { headers: { origin: w.base } })
    expect(same.status).toBe(200)
  })

  test('DNS rebinding: a page whose Origin matches the Host it rebound to our address is refused', async () => {
    const rebound = await w.t.server.fetch(
      new Request(`http://evil.example/agent/${agent}/mcp`, {
        method: 'POST',
        headers: {
          origin: 'http://evil.example',
          authorization: `Bearer ${w.viewer.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(listTools),
      }),
    )
    expect(rebound.status).toBe(403)
    // Without an Origin (every MCP client that is not a browser page), the same request is served.
    const client = await w.t.server.fetch(
      new Request(`http://agentbox.example/agent/${agent}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${w.viewer.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify(listTools),
      }),
    )
    expect(client.status).toBe(200)
  })

  test('GET and DELETE are 405 with Allow: POST (stateless: no stream to open, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await rpc(live, w.viewer.token, null, { method })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
    }
  })

  test('a body that is not JSON: 400 with the JSON-RPC parse error', async () => {
    const res = await rpc(live, w.viewer.token, '{"jsonrpc": "2.0", ')
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
  })

  test('a message over 1 MiB: 413', async () => {
    const res = await rpc(live, w.viewer.token, { ...listTools, params: { pad: 'x'.repeat(1024 * 1024) } })
    expect(res.status).toBe(413)
  })

  test('an unknown method: -32601', async () => {
    const res = await rpc(live, w.viewer.token, { jsonrpc: '2.0', id: 5, method: 'tools/destroy', params: {} })
    expect(res.body).toMatchObject({ id: 5, error: { code: -32601 } })
  })

  test('an unknown tool: -32602 naming it', async () => {
    const res = await rpc(live, w.viewer.token, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'drop_tables', arguments: {} } })
    expect(res.body.error.code).toBe(-32602)
    expect(res.body.error.message).toContain('drop_tables')
  })

  test('an Accept without application/json or text/event-stream: 406', async () => {
    const res = await rpc(live, w.viewer.token, initialize(), { headers: { accept: 'text/html' } })
    expect(res.status).toBe(406)
  })

  test('a modern (2026-07-28) request without its protocol _meta: 400', async () => {
    const res = await rpc(live, w.viewer.token, listTools, { headers: { 'mcp-protocol-version': '2026-07-28' } })
    expect(res.status).toBe(400)
    expect(res.body.error).toBeDefined()
  })

  test('a notification is accepted with 202 and no body', async () => {
    const res = await rpc(live, w.viewer.token, { jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(res.status).toBe(202)
  })

  test('legacy clients: the name from initialize is remembered for the calls that follow', async () => {
    await rpc(live, w.viewer.token, initialize('windsurf'))
    const call = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'run_workflow', arguments: { workflow: 'echo', input: { text: 'x' } } } }
    const res = await rpc(live, w.viewer.token, call)
    expect(res.status).toBe(200)
    expect(res.body.result.isError).toBeFalsy()
    await w.t.server.modules.interactions.service.flush()
    const row = await w.t.server.database.db
      .selectFrom('interactions')
      .select(['client_source'])
      .where('kind', '=', 'mcp_tool')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow()
    expect(row.client_source).toBe('windsurf')
  })
})

describe('the OpenAPI document describes these answers', () => {
  // Through t.request, which checks every answer against /api/openapi.json (status documented, body matching).
  const post = (path: string, token: string | undefined, body: string, headers: Record<string, string> = {}) =>
    w.t.request('POST', path, {
      token,
      rawBody: body,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    })

  test('200 (a result or a JSON-RPC error), 202, 400, 401, 403 (both kinds), 404, 406', async () => {
    const path = `/agent/${agent}/mcp`
    expect((await post(path, w.viewer.token, JSON.stringify(listTools))).status).toBe(200)
    expect((await post(path, w.viewer.token, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).status).toBe(202)
    expect((await post(path, w.viewer.token, '{not json')).status).toBe(400)
    expect((await post(path, undefined, JSON.stringify(listTools))).status).toBe(401)
    expect((await post(path, w.viewer.token, JSON.stringify(listTools), { origin: 'https://evil.example' })).status).toBe(403)
    expect((await post(`/agent/${agent}/design/mcp`, w.viewer.token, JSON.stringify(listTools))).status).toBe(403)
    expect((await post('/agent/nobody/mcp', w.viewer.token, JSON.stringify(listTools))).status).toBe(404)
    // An unknown method: a JSON-RPC error, with 200 in the 2025 era (the 2026-07-28 handler answers 404).
    expect((await post(path, w.viewer.token, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'nope/nothing' }))).body.error.code).toBe(-32601)
    expect((await post(path, w.viewer.token, JSON.stringify(initialize()), { accept: 'text/html' })).status).toBe(406)
  })
})
