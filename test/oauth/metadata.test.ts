// Discovery (CONTRACT §14, design/mcp.md §1e): protected-resource metadata per MCP URL (RFC 9728, path-aware and
// root) and authorization-server metadata (RFC 8414), public, with the origin the request came to as issuer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { ORIGIN } from './helpers.ts'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
  await t.provision()
})
afterAll(() => t.close())

describe('GET /.well-known/oauth-protected-resource/…', () => {
  test.each([
    ['/agent/alpha/mcp', 'Agentbox agent "alpha"'],
    ['/agent/alpha/design/mcp', 'Agentbox agent "alpha" (design)'],
    ['/app/petstore/mcp', 'Agentbox application "petstore"'],
  ])('path-aware for %s: the resource is that MCP URL and this origin is its authorization server', async (path, name) => {
    const res = await t.request('GET', `/.well-known/oauth-protected-resource${path}`)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      resource: `${ORIGIN}${path}`,
      authorization_servers: [ORIGIN],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: name,
    })
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })

  test('an agent that does not exist gets the same answer, so names cannot be probed', async () => {
    const res = await t.request('GET', '/.well-known/oauth-protected-resource/agent/no-such-agent/mcp')
    expect(res.status).toBe(200)
    expect(res.body.resource).toBe(`${ORIGIN}/agent/no-such-agent/mcp`)
  })

  test('the root document names the origin', async () => {
    const res = await t.request('GET', '/.well-known/oauth-protected-resource')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ resource: ORIGIN, authorization_servers: [ORIGIN], scopes_supported: ['mcp'], bearer_methods_supported: ['header'] })
  })

  test('without AGENTBOX_PUBLIC_URL the issuer follows the Host the request came to, so no cache may keep the answer', async () => {
    const res = await t.server.fetch(new Request('http://agentbox.internal:8080/.well-known/oauth-protected-resource/agent/a/mcp'))
    expect(await res.json()).toMatchObject({ resource: 'http://agentbox.internal:8080/agent/a/mcp', authorization_servers: ['http://agentbox.internal:8080'] })
    expect(res.headers.get('cache-control')).toBe('no-store')
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server'])
      expect((await t.request('GET', path)).headers.get('cache-control')).toBe('no-store')
  })
})

describe('GET /.well-known/oauth-authorization-server', () => {
  test('lists the endpoints, S256 only, public clients, metadata documents and the iss parameter', async () => {
    const res = await t.request('GET', '/.well-known/oauth-authorization-server')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/oauth/token`,
      registration_endpoint: `${ORIGIN}/oauth/register`,
      revocation_endpoint: `${ORIGIN}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['mcp'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    })
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
  })

  test('a browser client may preflight the token endpoint', async () => {
    const res = await t.server.fetch(
      new Request(`${ORIGIN}/oauth/token`, { method: 'OPTIONS', headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST' } }),
    )
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-methods')).toContain('POST')
  })
})

describe('the OpenAPI document', () => {
  test('describes the metadata, registration, token, revocation and console endpoints; authorize (a browser redirect) is left out', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/agent/{name}/mcp',
      '/.well-known/oauth-protected-resource/agent/{name}/design/mcp',
      '/.well-known/oauth-protected-resource/app/{api_name}/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
      '/oauth/token',
      '/oauth/revoke',
      '/api/oauth/requests/{id}',
      '/api/oauth/grants',
      '/api/oauth/grants/{id}',
    ])
      expect(body.paths).toHaveProperty([path])
    expect(body.paths['/oauth/authorize']).toBeUndefined()
    expect(Object.keys(body.paths['/oauth/token'].post.requestBody.content)).toEqual(['application/x-www-form-urlencoded', 'application/json'])
    expect(body.paths['/oauth/token'].post.responses['400'].content['application/json'].schema.required).toEqual(['error'])
  })
})

describe('with AGENTBOX_PUBLIC_URL the issuer is fixed (issue 25, item 11; real sockets, any Host header)', () => {
  const PUBLIC = 'https://agentbox.example.com'
  let fixed: TestServer
  let base: string
  beforeAll(async () => {
    fixed = await startTestServer({ env: { AGENTBOX_PUBLIC_URL: PUBLIC, AGENTBOX_PORT: '0', AGENTBOX_HOST: '127.0.0.1' } })
    await fixed.provision()
    base = `http://127.0.0.1:${fixed.server.start()}`
  })
  afterAll(() => fixed.close())

  test.each(['evil.example', 'agentbox.example.com:444', '127.0.0.1'])(
    'Host %s changes neither the issuer, the metadata nor resource_metadata',
    async (host) => {
      const headers = { host }
      const as = await fetch(`${base}/.well-known/oauth-authorization-server`, { headers })
      expect(await as.json()).toMatchObject({
        issuer: PUBLIC,
        authorization_endpoint: `${PUBLIC}/oauth/authorize`,
        token_endpoint: `${PUBLIC}/oauth/token`,
        registration_endpoint: `${PUBLIC}/oauth/register`,
      })
      const prm = await fetch(`${base}/.well-known/oauth-protected-resource/agent/a/mcp`, { headers })
      expect(await prm.json()).toMatchObject({ resource: `${PUBLIC}/agent/a/mcp`, authorization_servers: [PUBLIC] })
      const root = await fetch(`${base}/.well-known/oauth-protected-resource`, { headers })
      expect(await root.json()).toMatchObject({ resource: PUBLIC, authorization_servers: [PUBLIC] })
      const challenge = await fetch(`${base}/agent/a/mcp`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
      expect(challenge.status).toBe(401)
      expect(challenge.headers.get('www-authenticate')).toStartWith(`Bearer resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/agent/a/mcp"`)
      // A fixed answer may be cached.
      expect(as.headers.get('cache-control')).toBeNull()
    },
  )
})
