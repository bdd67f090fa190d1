// OAuth 2 tokens with refresh on an application's oauth2 scheme: PUT …/credentials takes the token, its lifetime, the
// refresh token and where to send it; a call made when the token is within a minute of expiring refreshes it first
// (once, through the guarded outbound client) and sends the new one; a refused or failed refresh is a clear 400 or
// 502, never a 500, and nothing secret reaches a response or the log. Upstream and token endpoint on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type McpWorld, rpc, startMcpWorld } from '../mcp/helpers.ts'
import { uploadSpec } from './helpers.ts'

let w: McpWorld
let upstream: ReturnType<typeof Bun.serve>
let tokenServer: ReturnType<typeof Bun.serve>
let tokenUrl: string
const sentUpstream: (string | null)[] = []
const tokenRequests: URLSearchParams[] = []
let tokenAnswer: (form: URLSearchParams) => Response
let issued = 0
const rotating = () => {
  issued++
  return Response.json({ access_token: `access-${issued}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `refresh-${issued}` })
}

const crmApi = (serverUrl: string) => ({
  openapi: '3.1.0',
  info: { title: 'CRM', version: '1' },
  servers: [{ url: serverUrl }],
  security: [{ oauth: ['contacts'] }],
  components: {
    securitySchemes: {
      oauth: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://crm.example.com/authorize',
            tokenUrl: 'https://crm.example.com/token',
            scopes: { contacts: 'Contacts' },
          },
        },
      },
      bearer: { type: 'http', scheme: 'bearer' },
    },
  },
  paths: { '/contacts': { get: { operationId: 'listContacts', responses: { '200': { description: 'ok' } } } } },
})

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      sentUpstream.push(request.headers.get('authorization'))
      return Response.json({ contacts: [] })
    },
  })
  tokenServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const form = new URLSearchParams(await request.text())
      tokenRequests.push(form)
      return tokenAnswer(form)
    },
  })
  tokenUrl = `http://127.0.0.1:${tokenServer.port}/oauth/token`
  w = await startMcpWorld({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  expect(
    (await uploadSpec(w.t, w.admin, crmApi(`http://127.0.0.1:${upstream.port}`), { api_name: 'crm', global_spec: 'true', create_mcp: 'true' })).status,
  ).toBe(201)
})
afterAll(async () => {
  await w.stop()
  upstream.stop(true)
  tokenServer.stop(true)
})

const put = (body: Record<string, unknown>, token = w.owner.token) => w.t.request('PUT', '/api/applications/crm/credentials', { token, body })
const execute = (token = w.owner.token) => w.t.request('POST', '/api/applications/crm/operations/listContacts/execute', { token, body: { arguments: {} } })
const connect = (extra: Record<string, unknown> = {}) =>
  put({
    scheme: 'oauth',
    token: 'access-0',
    refresh_token: 'refresh-0',
    expires_in: 3600,
    token_url: tokenUrl,
    client_id: 'agentbox-crm',
    client_secret: 'crm-client-secret',
    ...extra,
  })

describe('PUT …/credentials with OAuth 2 tokens', () => {
  test('an oauth2 scheme takes a refresh token with its token URL and client; the entry shows no secret', async () => {
    const set = await connect()
    expect(set.status).toBe(200)
    expect(set.body).toEqual({ scheme: 'oauth', type: 'bearer', scope: 'user', connected: true, updated_at: expect.any(String) })
  })

  test('refresh fields are refused on other schemes, and a refresh token needs its URL and client (422, secrets masked)', async () => {
    const other = await put({ scheme: 'bearer', token: 't', refresh_token: 'rt-secret-1' })
    expect(other.status).toBe(422)
    expect(other.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'refresh_token'], type: 'extra_forbidden', input: '***' })])
    const incomplete = await put({ scheme: 'oauth', token: 't', refresh_token: 'rt-secret-2' })
    expect(incomplete.body.detail.map((issue: any) => [issue.loc, issue.type])).toEqual([
      [['body', 'token_url'], 'missing'],
      [['body', 'client_id'], 'missing'],
    ])
    const orphan = await put({ scheme: 'oauth', token: 't', client_secret: 'cs-secret-3' })
    expect(orphan.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'client_secret'], type: 'value_error', input: '***' })])
    const privateUrl = await put({ scheme: 'oauth', token: 't', refresh_token: 'r', token_url: 'http://10.0.0.8/token', client_id: 'c' })
    expect(privateUrl.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'token_url'], type: 'value_error' })])
    const lifetime = await put({ scheme: 'oauth', token: 't', expires_in: 0 })
    expect(lifetime.status).toBe(422)
    for (const body of [other.body, incomplete.body, orphan.body]) expect(JSON.stringify(body)).not.toMatch(/secret-\d/)
  })
})

describe('calls with an OAuth 2 token', () => {
  test('a fresh token is sent as it is, without asking the token endpoint', async () => {
    await connect()
    const before = tokenRequests.length
    expect((await execute()).status).toBe(200)
    expect(sentUpstream.at(-1)).toBe('Bearer access-0')
    expect(tokenRequests.length).toBe(before)
  })

  test('within a minute of expiry it is refreshed once, stored, and the new token is sent by every caller and path', async () => {
    tokenAnswer = rotating
    w.t.clock.advance(3600_000 - 30_000)
    const before = tokenRequests.length
    const answers = await Promise.all([execute(), execute(), execute(), execute()])
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200])
    expect(tokenRequests.length).toBe(before + 1)
    expect(Object.fromEntries(tokenRequests.at(-1)!)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'refresh-0',
      client_id: 'agentbox-crm',
      client_secret: 'crm-client-secret',
    })
    expect(sentUpstream.slice(-4)).toEqual(Array(4).fill(`Bearer access-${issued}`))
    // The MCP app endpoint uses the stored, refreshed token too.
    const viaMcp = await rpc(`${w.base}/app/crm/mcp`, w.owner.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'listContacts', arguments: {} },
    })
    expect(viaMcp.body.result.isError).toBeFalsy()
    expect(sentUpstream.at(-1)).toBe(`Bearer access-${issued}`)
    expect(tokenRequests.length).toBe(before + 1)
  })

  test('the next expiry refreshes with the rotated refresh token', async () => {
    w.t.clock.advance(3600_000)
    expect((await execute()).status).toBe(200)
    expect(tokenRequests.at(-1)!.get('refresh_token')).toBe(`refresh-${issued - 1}`)
    expect(sentUpstream.at(-1)).toBe(`Bearer access-${issued}`)
  })

  test('a refresh the endpoint refuses is a 400 naming the scheme and the OAuth error, over HTTP and MCP; nothing is sent upstream', async () => {
    w.t.clock.advance(3600_000)
    tokenAnswer = () => Response.json({ error: 'invalid_grant', error_description: 'the refresh token refresh-9 was revoked' }, { status: 400 })
    const before = sentUpstream.length
    const refused = await execute()
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({
      detail: 'Security scheme "oauth": The OAuth 2 token endpoint refused to refresh the token (invalid_grant): connect again',
    })
    const viaMcp = await rpc(`${w.base}/app/crm/mcp`, w.owner.token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'listContacts', arguments: {} },
    })
    expect(viaMcp.body.result.isError).toBe(true)
    expect(viaMcp.body.result.content[0].text).toContain('invalid_grant')
    expect(sentUpstream.length).toBe(before)
  })

  test('a token endpoint that fails or cannot be reached is a 502', async () => {
    tokenAnswer = () => new Response('down for maintenance', { status: 503 })
    const failed = await execute()
    expect(failed.status).toBe(502)
    expect(failed.body.detail).toBe('Security scheme "oauth": The OAuth 2 token could not be refreshed: the token endpoint answered HTTP 503')
    await connect({ token_url: 'http://127.0.0.1:1/token', expires_in: 10 })
    const unreachable = await execute()
    expect(unreachable.status).toBe(502)
    expect(unreachable.body.detail).toContain('cannot be reached')
  })

  test('reconnecting replaces the tokens at once; a token without refresh is sent until the upstream refuses it', async () => {
    expect((await put({ scheme: 'oauth', token: 'pasted-token', expires_in: 5 })).status).toBe(200)
    w.t.clock.advance(60_000)
    const before = tokenRequests.length
    expect((await execute()).status).toBe(200)
    expect(sentUpstream.at(-1)).toBe('Bearer pasted-token')
    expect(tokenRequests.length).toBe(before)
  })

  test('no token, refresh token or client secret reaches a response body or the log', async () => {
    const logged = JSON.stringify(w.t.log.lines)
    for (const secret of ['refresh-0', 'crm-client-secret', 'access-1', 'pasted-token']) expect(logged).not.toContain(secret)
    const listed = await w.t.request('GET', '/api/applications/crm/credentials', { token: w.owner.token })
    expect(JSON.stringify(listed.body)).not.toMatch(/access-|refresh-|crm-client-secret|pasted-token/)
  })
})
