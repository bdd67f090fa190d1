// POST /oauth/register (RFC 7591): anonymous registration of public clients; redirect URIs are https, http only on
// loopback, or an app's own scheme, never a script, data or file URL, never with a fragment.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_REGISTERED_CLIENTS } from '../../src/modules/oauth/clients.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
  await t.provision()
})
afterAll(() => t.close())

const register = (body: unknown) => t.request('POST', '/oauth/register', { body })

describe('POST /oauth/register', () => {
  test('registers a public client: 201 with a random client_id, the issue time and the effective metadata', async () => {
    const res = await register({
      redirect_uris: [
        'http://127.0.0.1:5173/cb',
        'https://app.example.com/oauth/callback',
        'vscode://publisher.ext/callback',
        'cursor://anysphere.cursor/oauth',
      ],
      client_name: 'My MCP client',
      client_uri: 'https://app.example.com',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^abx_client_[A-Za-z0-9_-]{20,}$/),
      client_id_issued_at: Math.floor(t.clock.now() / 1000),
      client_name: 'My MCP client',
      client_uri: 'https://app.example.com',
      redirect_uris: [
        'http://127.0.0.1:5173/cb',
        'https://app.example.com/oauth/callback',
        'vscode://publisher.ext/callback',
        'cursor://anysphere.cursor/oauth',
      ],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
    expect(res.headers.get('cache-control')).toBe('no-store')
    const again = await register({ redirect_uris: ['http://localhost:9/cb'] })
    expect(again.body.client_id).not.toBe(res.body.client_id)
  })

  test('a client asking for a secret is told it is public (token_endpoint_auth_method none), as RFC 7591 allows', async () => {
    const res = await register({ redirect_uris: ['http://[::1]:8080/cb'], token_endpoint_auth_method: 'client_secret_post' })
    expect(res.status).toBe(201)
    expect(res.body.token_endpoint_auth_method).toBe('none')
    expect(res.body.client_secret).toBeUndefined()
  })

  test.each([
    ['http on a non-loopback host', 'http://app.example.com/cb'],
    ['a fragment', 'https://app.example.com/cb#frag'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,hi'],
    ['file:', 'file:///etc/passwd'],
    ['a relative URI', '/callback'],
    ['a user name', 'https://user@app.example.com/cb'],
  ])('refuses a redirect URI with %s: 400 invalid_redirect_uri', async (_, uri) => {
    const res = await register({ redirect_uris: ['https://ok.example.com/cb', uri] })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) })
  })

  test('refuses no redirect URIs, an empty list or more than ten', async () => {
    for (const redirect_uris of [undefined, [], Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`), 'https://app.example.com/cb']) {
      const res = await register({ redirect_uris, client_name: 'x' })
      expect(res.status).toBe(400)
      expect(res.body.error).toBe('invalid_redirect_uri')
    }
  })

  test('refuses metadata it cannot honour: 400 invalid_client_metadata', async () => {
    for (const body of [
      { redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] },
      { redirect_uris: ['https://a.example/cb'], response_types: ['token'] },
      { redirect_uris: ['https://a.example/cb'], client_name: 42 },
      { redirect_uris: ['https://a.example/cb'], client_uri: 'javascript:alert(1)' },
    ]) {
      const res = await register(body)
      expect(res.status).toBe(400)
      expect(res.body.error).toBe('invalid_client_metadata')
    }
  })

  test('a body that is not a JSON object is invalid_client_metadata, not the API 422', async () => {
    for (const rawBody of ['{"redirect_uris": [', '[1,2]', 'redirect_uris=https://a.example/cb']) {
      const res = await t.request('POST', '/oauth/register', { rawBody, headers: { 'content-type': 'application/json' } })
      expect(res.status).toBe(400)
      expect(res.body.error).toBe('invalid_client_metadata')
    }
  })

  test('a body over 64 KiB is 413 before it is read', async () => {
    const res = await register({ redirect_uris: ['https://a.example/cb'], padding: 'x'.repeat(70 * 1024) })
    expect(res.status).toBe(413)
  })
})

describe('the registration cap', () => {
  test('at 10,000 registrations the oldest abandoned ones (over a day old, never granted) make room; none abandoned → 503', async () => {
    const capped = await startTestServer()
    try {
      const db = capped.server.database.db
      const fill = async (createdAt: string) => {
        const rows = Array.from({ length: MAX_REGISTERED_CLIENTS }, (_, i) => ({
          client_id: `abx_client_fill_${createdAt}_${i}`,
          kind: 'registered' as const,
          client_name: null,
          client_uri: null,
          logo_uri: null,
          redirect_uris: '["https://a.example/cb"]',
          grant_types: '["authorization_code"]',
          created_at: createdAt,
          fetched_at: null,
        }))
        await db.transaction().execute(async (trx) => {
          for (let i = 0; i < rows.length; i += 500)
            await trx
              .insertInto('oauth_clients')
              .values(rows.slice(i, i + 500))
              .execute()
        })
      }
      await fill(new Date(capped.clock.now()).toISOString())
      const full = await capped.request('POST', '/oauth/register', { body: { redirect_uris: ['https://a.example/cb'] } })
      expect(full.status).toBe(503)
      expect(full.body.error).toBe('temporarily_unavailable')

      await db.deleteFrom('oauth_clients').execute()
      await fill(new Date(capped.clock.now() - 2 * 24 * 3600 * 1000).toISOString())
      const room = await capped.request('POST', '/oauth/register', { body: { redirect_uris: ['https://a.example/cb'] } })
      expect(room.status).toBe(201)
      const { count } = await db
        .selectFrom('oauth_clients')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow()
      expect(Number(count)).toBe(MAX_REGISTERED_CLIENTS - 1000 + 1)
    } finally {
      await capped.close()
    }
  })
})
