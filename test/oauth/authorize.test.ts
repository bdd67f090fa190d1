// GET /oauth/authorize and the consent API: an untrusted client or redirect URI gets a page (never a redirect), every
// other error goes back to the client with state and iss, and a valid request waits for the signed-in user's decision.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { AGENT_A, authorizeParams, authorizeUrl, ORIGIN, pkce, REDIRECT, registerClient, startAuthorization } from './helpers.ts'

let t: TestServer
let member: { id: string; token: string }
let orgToken: string
let clientId: string
const { challenge } = pkce()

beforeAll(async () => {
  t = await startTestServer()
  const provisioned = await t.provision()
  orgToken = provisioned.orgToken
  member = await t.createUser(provisioned.adminToken, { email: 'member@example.com', name: 'Mia Member' })
  clientId = await registerClient(t, { client_name: 'Claude Desktop' })
})
afterAll(() => t.close())

const authorize = (overrides: Record<string, string | undefined>) => t.request('GET', authorizeUrl(authorizeParams(clientId, challenge, overrides)))

/** The error parameters the client's redirect URI receives. */
function redirectedError(res: { status: number; headers: Headers }) {
  expect(res.status).toBe(302)
  const location = new URL(res.headers.get('location')!)
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT)
  return Object.fromEntries(location.searchParams)
}

describe('GET /oauth/authorize: an untrusted client or redirect URI gets a page, not a redirect', () => {
  test('unknown client_id → 400 HTML page', async () => {
    const res = await authorize({ client_id: 'abx_client_unknown' })
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(res.body).toContain('Unknown client_id')
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
  })

  test('a redirect_uri the client did not register (even one differing only in its path or port) → 400, no redirect', async () => {
    for (const redirect_uri of ['https://attacker.example/cb', 'http://127.0.0.1:33418/callback/', 'http://127.0.0.1:33419/callback', undefined]) {
      const res = await authorize({ redirect_uri })
      expect(res.status).toBe(400)
      expect(res.headers.get('location')).toBeNull()
      expect(res.body).toContain('redirect_uri')
    }
  })

  test('text from the request is escaped on the page', async () => {
    const res = await authorize({ client_id: 'https://<script>.example/x' })
    expect(res.status).toBe(400)
    expect(res.body).not.toContain('<script>')
  })
})

describe('GET /oauth/authorize: other errors go back to the client with error, state and iss', () => {
  test('no PKCE challenge → invalid_request', async () => {
    expect(redirectedError(await authorize({ code_challenge: undefined }))).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('code_challenge'),
      state: 'xyz-state',
      iss: ORIGIN,
    })
  })

  test('the plain method, or no method (which means plain), is refused → invalid_request', async () => {
    expect(redirectedError(await authorize({ code_challenge_method: 'plain' })).error).toBe('invalid_request')
    expect(redirectedError(await authorize({ code_challenge_method: undefined })).error).toBe('invalid_request')
  })

  test('response_type other than code → unsupported_response_type', async () => {
    expect(redirectedError(await authorize({ response_type: 'token' })).error).toBe('unsupported_response_type')
  })

  test('no resource, another origin, or a URL that is not an MCP endpoint → invalid_target', async () => {
    for (const resource of [undefined, 'https://elsewhere.example/agent/alpha/mcp', `${ORIGIN}/api/agents`, `${ORIGIN}/agent/alpha/mcp?x=1`, 'not a url']) {
      expect(redirectedError(await authorize({ resource })).error).toBe('invalid_target')
    }
  })

  test('without state, none comes back', async () => {
    const params = redirectedError(await authorize({ state: undefined, code_challenge: undefined }))
    expect(params.state).toBeUndefined()
  })
})

describe('GET /oauth/authorize: a valid request waits for consent', () => {
  test('302 to the console consent page with an unguessable request id', async () => {
    const res = await authorize({})
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toMatch(/^\/oauth\/consent\?request=[A-Za-z0-9_-]{32}$/)
  })

  test('the consent page is the console app', async () => {
    const res = await t.request('GET', '/oauth/consent?request=abc')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
  })
})

describe('GET /api/oauth/requests/{id}', () => {
  test('shows the signed-in member who asks, where the code goes, and for which agent', async () => {
    const id = await startAuthorization(t, authorizeParams(clientId, challenge, { resource: `${ORIGIN}/agent/alpha/design/mcp` }))
    const res = await t.request('GET', `/api/oauth/requests/${id}`, { token: member.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      id,
      client_id: clientId,
      client_name: 'Claude Desktop',
      client_uri: null,
      redirect_uri: REDIRECT,
      redirect_host: '127.0.0.1:33418',
      resource: `${ORIGIN}/agent/alpha/design/mcp`,
      resource_kind: 'agent_design',
      resource_name: 'alpha',
      resource_description: 'Agentbox agent "alpha" (design)',
      scope: 'mcp',
      expires_at: new Date(t.clock.now() + 600_000).toISOString(),
    })
  })

  test('needs a signed-in user (401), a person (the org token: 403), a known and unexpired id (404)', async () => {
    const id = await startAuthorization(t, authorizeParams(clientId, challenge))
    expect((await t.request('GET', `/api/oauth/requests/${id}`)).status).toBe(401)
    expect((await t.request('GET', `/api/oauth/requests/${id}`, { token: orgToken })).status).toBe(403)
    expect((await t.request('GET', '/api/oauth/requests/nope', { token: member.token })).status).toBe(404)
    t.clock.advance(601_000)
    expect((await t.request('GET', `/api/oauth/requests/${id}`, { token: member.token })).status).toBe(404)
    expect((await t.request('POST', `/api/oauth/requests/${id}`, { token: member.token, body: { approve: true } })).status).toBe(404)
  })
})

describe('POST /api/oauth/requests/{id}', () => {
  test('approve: the client gets a one-time code with its state and iss', async () => {
    const id = await startAuthorization(t, authorizeParams(clientId, challenge))
    const res = await t.request('POST', `/api/oauth/requests/${id}`, { token: member.token, body: { approve: true } })
    expect(res.status).toBe(200)
    const back = new URL(res.body.redirect_to)
    expect(Object.fromEntries(back.searchParams)).toEqual({ code: expect.stringMatching(/^abx_oac_/), state: 'xyz-state', iss: ORIGIN })
  })

  test('deny: the client gets access_denied', async () => {
    const id = await startAuthorization(t, authorizeParams(clientId, challenge))
    const res = await t.request('POST', `/api/oauth/requests/${id}`, { token: member.token, body: { approve: false } })
    expect(res.status).toBe(200)
    expect(Object.fromEntries(new URL(res.body.redirect_to).searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The user denied access',
      state: 'xyz-state',
      iss: ORIGIN,
    })
  })

  test('a request is decided once: 409 afterwards, for reading and for deciding', async () => {
    const id = await startAuthorization(t, authorizeParams(clientId, challenge))
    expect((await t.request('POST', `/api/oauth/requests/${id}`, { token: member.token, body: { approve: false } })).status).toBe(200)
    expect((await t.request('POST', `/api/oauth/requests/${id}`, { token: member.token, body: { approve: true } })).status).toBe(409)
    expect((await t.request('GET', `/api/oauth/requests/${id}`, { token: member.token })).status).toBe(409)
  })

  test('approve must be a boolean (422)', async () => {
    const id = await startAuthorization(t, authorizeParams(clientId, challenge))
    const res = await t.request('POST', `/api/oauth/requests/${id}`, { token: member.token, body: { approve: 'yes' } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['body', 'approve'])
  })

  test('the redirect URI keeps its own query parameters', async () => {
    const withQuery = await registerClient(t, { redirect_uris: ['https://app.example.com/cb?tenant=7'] })
    const id = await startAuthorization(t, authorizeParams(withQuery, challenge, { redirect_uri: 'https://app.example.com/cb?tenant=7' }))
    const res = await t.request('POST', `/api/oauth/requests/${id}`, { token: member.token, body: { approve: true } })
    expect(new URL(res.body.redirect_to).searchParams.get('tenant')).toBe('7')
  })
})

test('the resource is stored as origin + path, the form the MCP endpoint compares', async () => {
  const id = await startAuthorization(t, authorizeParams(clientId, challenge, { resource: 'http://LOCALHOST:80/agent/alpha/mcp' }))
  expect((await t.request('GET', `/api/oauth/requests/${id}`, { token: member.token })).body.resource).toBe(AGENT_A)
})
