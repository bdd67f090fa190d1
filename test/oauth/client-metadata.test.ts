// Client ID metadata documents: a client_id that is a URL is read through the guarded outbound client (a loopback
// server here, opened with AGENTBOX_OUTBOUND_ALLOW), checked (it must name itself, its redirect URIs follow the same
// rules as registrations), cached for five minutes, and refused for addresses the outbound policy refuses.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { authorizeParams, authorizeUrl, pkce, postForm, REDIRECT, startAuthorization } from './helpers.ts'

const documents = new Map<string, () => Response>()
const hits: string[] = []
let upstream: ReturnType<typeof Bun.serve>
let base: string
let t: TestServer
let member: { id: string; token: string }

const clientDocument = (clientId: string, extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: 'Metadata Client',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
  ...extra,
})

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname
      hits.push(path)
      return documents.get(path)?.() ?? new Response('not found', { status: 404 })
    },
  })
  base = `http://127.0.0.1:${upstream.port}`
  for (const name of ['good', 'cached']) documents.set(`/${name}.json`, () => Response.json(clientDocument(`${base}/${name}.json`)))
  documents.set('/impostor.json', () => Response.json(clientDocument(`${base}/someone-else.json`)))
  documents.set('/bad-redirect.json', () => Response.json(clientDocument(`${base}/bad-redirect.json`, { redirect_uris: ['http://attacker.example/cb'] })))
  documents.set('/huge.json', () => Response.json(clientDocument(`${base}/huge.json`, { padding: 'x'.repeat(70 * 1024) })))
  documents.set('/not-json.json', () => new Response('<html>hello</html>', { headers: { 'content-type': 'text/html' } }))
  t = await startTestServer({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  const { adminToken } = await t.provision()
  member = await t.createUser(adminToken, { email: 'member@example.com' })
})
afterAll(async () => {
  await t.close()
  upstream.stop(true)
})

describe('a client_id that is a metadata document URL', () => {
  test('is read, shown on the consent page by its own name, and can complete the whole flow', async () => {
    const clientId = `${base}/good.json`
    const { verifier, challenge } = pkce()
    const requestId = await startAuthorization(t, authorizeParams(clientId, challenge))
    const view = await t.request('GET', `/api/oauth/requests/${requestId}`, { token: member.token })
    expect(view.body).toMatchObject({ client_id: clientId, client_name: 'Metadata Client' })
    const decided = await t.request('POST', `/api/oauth/requests/${requestId}`, { token: member.token, body: { approve: true } })
    const code = new URL(decided.body.redirect_to).searchParams.get('code')!
    const res = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    })
    expect(res.status).toBe(200)
    expect(res.body.token_type).toBe('Bearer')
  })

  test('is cached for five minutes, then read again', async () => {
    const clientId = `${base}/cached.json`
    const reads = () => hits.filter((path) => path === '/cached.json').length
    await startAuthorization(t, authorizeParams(clientId, pkce().challenge))
    await startAuthorization(t, authorizeParams(clientId, pkce().challenge))
    expect(reads()).toBe(1)
    t.clock.advance(5 * 60 * 1000 + 1)
    await startAuthorization(t, authorizeParams(clientId, pkce().challenge))
    expect(reads()).toBe(2)
  })

  test.each([
    ['names another client_id', 'impostor', 'does not name itself'],
    ['lists a redirect URI that registrations refuse', 'bad-redirect', 'is not valid'],
    ['is larger than 64 KiB', 'huge', 'larger than 64 KiB'],
    ['is not JSON', 'not-json', 'is not JSON'],
    ['does not exist', 'missing', 'answered HTTP 404'],
  ])('that %s → 400 page, no redirect', async (_, name, why) => {
    const res = await t.request('GET', authorizeUrl(authorizeParams(`${base}/${name}.json`, pkce().challenge)))
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
    expect(res.body).toContain(why)
  })

  test('plain http is accepted only on loopback hosts; elsewhere the client_id is just unknown', async () => {
    const res = await t.request('GET', authorizeUrl(authorizeParams('http://clients.example.com/client.json', pkce().challenge)))
    expect(res.status).toBe(400)
    expect(res.body).toContain('Unknown client_id')
  })
})

describe('the outbound policy applies', () => {
  test('without an allow entry, loopback and private addresses are refused before any connection', async () => {
    const reached: string[] = []
    const strict = await startTestServer({ outbound: { fetch: async (url) => (reached.push(url), new Response('{}')) } })
    try {
      for (const clientId of [`${base}/good.json`, 'https://10.1.2.3/client.json', 'https://[::1]/client.json']) {
        const res = await strict.request('GET', authorizeUrl(authorizeParams(clientId, pkce().challenge)))
        expect(res.status).toBe(400)
        expect(res.body).toContain('Destination not allowed')
      }
      expect(reached).toEqual([])
    } finally {
      await strict.close()
    }
  })
})
