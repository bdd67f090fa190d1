// The SDK's own OAuth client flow against an agent's MCP URL, end to end over a real port: 401 → protected-resource
// metadata → authorization-server metadata → dynamic registration → authorize with PKCE → the console's consent (as the
// signed-in member) → code exchange → the MCP session with an access token bound to that URL.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { MemoryOauthProvider as MemoryProvider } from '../helpers/mcp-oauth.ts'
import { agentWithEcho, type McpWorld, recordedCalls, rpc, startMcpWorld } from './helpers.ts'

let w: McpWorld
let agent: string
let other: string

beforeAll(async () => {
  w = await startMcpWorld()
  agent = await agentWithEcho(w)
  other = await agentWithEcho(w)
})
afterAll(() => w.stop())

describe('OAuth with the SDK client', () => {
  test('a client given only the URL signs the member in, calls tools as them, and its token works for that URL only', async () => {
    const url = new URL(`${w.base}/agent/${agent}/mcp`)
    const provider = new MemoryProvider()
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider })
    await expect(new Client({ name: 'oauth-test', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.information?.client_id).toBeString()
    const authorize = provider.authorizationUrl!
    expect(authorize.origin + authorize.pathname).toBe(`${w.base}/oauth/authorize`)
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorize.searchParams.get('resource')).toBe(url.href)

    // The browser: authorize sends the member to the console's consent page, which approves as the signed-in member.
    const toConsent = await fetch(authorize, { redirect: 'manual' })
    expect(toConsent.status).toBe(302)
    const consent = new URL(toConsent.headers.get('location')!, w.base)
    expect(consent.pathname).toBe('/oauth/consent')
    const requestId = consent.searchParams.get('request')!
    const shown = await w.t.request('GET', `/api/oauth/requests/${requestId}`, { token: w.viewer.token })
    expect(shown.status).toBe(200)
    expect(JSON.stringify(shown.body)).toContain('Test MCP Client')
    const decided = await w.t.request('POST', `/api/oauth/requests/${requestId}`, { token: w.viewer.token, body: { approve: true } })
    expect(decided.status).toBe(200)
    const callback = new URL(decided.body.redirect_to)
    expect(callback.origin + callback.pathname).toBe(provider.redirectUrl)
    expect(callback.searchParams.get('iss')).toBe(w.base)

    await first.finishAuth(callback.searchParams.get('code')!)
    expect(provider.saved?.access_token).toStartWith('abx_oat_')

    const client = new Client({ name: 'oauth-test', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow'])
    const run = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'echo', input: { text: 'via oauth' } } })) as any
    expect(run.structuredContent.result).toEqual({ echo: 'via oauth' })
    await client.close()
    expect((await recordedCalls(w)).at(-1)).toMatchObject({ user_id: w.viewer.id, client_source: 'oauth-test', action: 'run_workflow' })

    // Audience binding: the same token at another agent's URL (which the member may also use) is refused.
    const elsewhere = await rpc(`${w.base}/agent/${other}/mcp`, provider.saved!.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
    expect(elsewhere.status).toBe(401)
    expect(elsewhere.headers.get('www-authenticate')).toContain('error="invalid_token"')
    // Nor is it an API token.
    expect((await w.t.request('GET', '/api/auth/me', { token: provider.saved!.access_token })).status).toBe(401)
  })
})
