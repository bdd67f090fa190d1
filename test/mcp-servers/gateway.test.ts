// The MCP gateway {base}/mcp/gateway over a real port, with the official SDK clients (v1: the 2025 era; v2: 2026-07-28):
// the same transport, sign-in and recording rules as the agent endpoints, serving the caller's connected external
// servers' tools under the same names as chat, each called with the caller's own token. An OAuth token Agentbox issued
// for the gateway works there and only there.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { MemoryOauthProvider } from '../helpers/mcp-oauth.ts'
import { agentWithEcho, connectV1, connectV2 } from '../mcp/helpers.ts'
import { type McpWorld, recordedCalls, registerServer, rpc, signIn, startServersWorld } from './helpers.ts'
import { TestMcpServer } from './upstream.ts'

let w: McpWorld
let notes: TestMcpServer
let gateway: string

beforeAll(async () => {
  w = await startServersWorld()
  gateway = `${w.base}/mcp/gateway`
  notes = new TestMcpServer({ auth: 'oauth' })
  await registerServer(w, { name: 'notes', url: notes.url, auth: 'oauth' })
  await signIn(w, notes, 'notes', w.owner.token, 'alice')
  await signIn(w, notes, 'notes', w.viewer.token, 'bob')
})
afterAll(async () => {
  notes.stop()
  await w.stop()
})

describe('POST /mcp/gateway', () => {
  test("the SDK clients (both eras) list the caller's tools and call them with the caller's own token", async () => {
    for (const [person, account] of [
      [w.owner, 'alice'],
      [w.viewer, 'bob'],
    ] as const) {
      for (const client of [await connectV1(gateway, person.token, 'gateway-v1'), await connectV2(gateway, person.token, 'gateway-v2')]) {
        const { tools } = await client.listTools()
        expect(tools.map((tool) => tool.name)).toEqual(['notes__whoami', 'notes__add', 'notes__fail', 'notes__search_issues_by_label'])
        const whoami = (await client.callTool({ name: 'notes__whoami', arguments: {} })) as { content: { text: string }[] }
        expect(whoami.content[0]!.text).toBe(account)
        const added = (await client.callTool({ name: 'notes__add', arguments: { a: 1, b: 2 } })) as { structuredContent: unknown }
        expect(added.structuredContent).toEqual({ sum: 3 })
        const failed = (await client.callTool({ name: 'notes__fail', arguments: {} })) as { isError: boolean; content: { text: string }[] }
        expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the upstream says no' }] })
        await client.close()
      }
    }
    const recorded = (await recordedCalls(w)).filter((row) => row.action === 'whoami')
    expect(recorded.map((row) => [row.user_id, row.api_title, row.client_source])).toEqual([
      [w.owner.id, 'notes', 'gateway-v1'],
      [w.owner.id, 'notes', 'gateway-v2'],
      [w.viewer.id, 'notes', 'gateway-v1'],
      [w.viewer.id, 'notes', 'gateway-v2'],
    ])
  })

  test('a member with nothing connected gets an empty list and instructions that say where to connect', async () => {
    const client = await connectV2(gateway, w.outsider.token)
    expect((await client.listTools()).tools).toEqual([])
    expect(client.getInstructions()).toContain('connect servers on its MCP servers page')
    const unknown = await client.callTool({ name: 'notes__whoami', arguments: {} }).catch((error: Error) => error)
    expect(String(unknown)).toContain('Unknown tool: notes__whoami')
    await client.close()
  })

  test('without a token: 401 whose challenge names the gateway’s protected-resource metadata; the metadata names this server', async () => {
    const res = await rpc(gateway, null, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${w.base}/.well-known/oauth-protected-resource/mcp/gateway", scope="mcp"`)
    const metadata = await (await fetch(`${w.base}/.well-known/oauth-protected-resource/mcp/gateway`)).json()
    expect(metadata).toMatchObject({
      resource: gateway,
      authorization_servers: [w.base],
      resource_name: 'Agentbox MCP gateway (the MCP servers you connected)',
    })
  })

  test('a browser Origin is refused (403), GET and DELETE are 405, a personal API token works', async () => {
    const foreign = await rpc(
      gateway,
      w.owner.token,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { headers: { origin: 'https://evil.example' } },
    )
    expect(foreign.status).toBe(403)
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(gateway, { method, headers: { authorization: `Bearer ${w.owner.token}` } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
    }
    const pat = await w.t.request('POST', '/api/auth/tokens', { token: w.owner.token, body: { name: 'gateway' } })
    const client = await connectV1(gateway, pat.body.token)
    expect((await client.listTools()).tools).toHaveLength(4)
    await client.close()
  })

  test('the SDK client signs in with OAuth given only the gateway URL; its token is bound to the gateway (refused at an agent URL)', async () => {
    const url = new URL(gateway)
    const provider = new MemoryOauthProvider()
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider })
    await expect(new Client({ name: 'oauth-gateway', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.authorizationUrl!.searchParams.get('resource')).toBe(gateway)
    const toConsent = await fetch(provider.authorizationUrl!, { redirect: 'manual' })
    const requestId = new URL(toConsent.headers.get('location')!, w.base).searchParams.get('request')!
    const shown = await w.t.request('GET', `/api/oauth/requests/${requestId}`, { token: w.viewer.token })
    expect(shown.body).toMatchObject({ resource: gateway, resource_kind: 'gateway', resource_name: 'gateway' })
    const decided = await w.t.request('POST', `/api/oauth/requests/${requestId}`, { token: w.viewer.token, body: { approve: true } })
    await first.finishAuth(new URL(decided.body.redirect_to).searchParams.get('code')!)
    const client = new Client({ name: 'oauth-gateway', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))
    const whoami = (await client.callTool({ name: 'notes__whoami', arguments: {} })) as { content: { text: string }[] }
    expect(whoami.content[0]!.text).toBe('bob')
    await client.close()

    const agent = await agentWithEcho(w)
    const elsewhere = await rpc(`${w.base}/agent/${agent}/mcp`, provider.saved!.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
    expect(elsewhere.status).toBe(401)
    expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })
})
