// POST /oauth/token and /oauth/revoke: the code exchange with PKCE (single use; a replay revokes what it granted),
// refresh with rotation (an old refresh token revokes the grant), RFC 6749 error bodies, no caching, revocation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OauthTokenError } from '../../src/modules/oauth/module.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { AGENT_A, approve, authorizeParams, connect, pkce, postForm, REDIRECT, registerClient, startAuthorization } from './helpers.ts'

let t: TestServer
let member: { id: string; token: string }
let clientId: string
let adminToken: string

beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
  member = await t.createUser(adminToken, { email: 'member@example.com' })
  clientId = await registerClient(t)
})
afterAll(() => t.close())

/** A fresh code and its verifier, approved by the member. */
async function freshCode(resource = AGENT_A) {
  const { verifier, challenge } = pkce()
  const code = await approve(t, member.token, await startAuthorization(t, authorizeParams(clientId, challenge, { resource })))
  return { code, verifier }
}

const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  postForm(t, '/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, ...extra })
const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
  postForm(t, '/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra })
const verify = (token: string, resource = AGENT_A) => t.server.modules.oauth.service.verifyAccessToken(token, resource)

describe('grant_type=authorization_code', () => {
  test('the right verifier gets an access token, a refresh token and the scope, never cached', async () => {
    const { code, verifier } = await freshCode()
    const res = await exchange(code, verifier)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^abx_oat_[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^abx_ort_[A-Za-z0-9_-]{43}$/),
      scope: 'mcp',
    })
    expect(res.headers.get('cache-control')).toBe('no-store')
    const principal = await verify(res.body.access_token)
    expect(principal).toMatchObject({ userId: member.id, email: 'member@example.com', role: 'member', kind: 'person', via: 'oauth' })
  })

  test('JSON bodies are accepted too', async () => {
    const { code, verifier } = await freshCode()
    const res = await t.request('POST', '/oauth/token', {
      body: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier },
    })
    expect(res.status).toBe(200)
  })

  test('a verifier that does not hash to the challenge → invalid_grant; the code still works with the right one', async () => {
    const { code, verifier } = await freshCode()
    const wrong = await exchange(code, pkce().verifier)
    expect(wrong.status).toBe(400)
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge' })
    expect((await exchange(code, verifier)).status).toBe(200)
  })

  test('a replayed code → invalid_grant, and the tokens the first exchange issued stop working', async () => {
    const { code, verifier } = await freshCode()
    const first = await exchange(code, verifier)
    expect(first.status).toBe(200)
    const replay = await exchange(code, verifier)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe('invalid_grant')
    await expect(verify(first.body.access_token)).rejects.toBeInstanceOf(OauthTokenError)
    expect((await refresh(first.body.refresh_token)).body.error).toBe('invalid_grant')
  })

  test('a code is bound to its redirect URI, its client, its resource and a minute', async () => {
    const a = await freshCode()
    expect((await exchange(a.code, a.verifier, { redirect_uri: 'http://127.0.0.1:33418/other' })).body.error).toBe('invalid_grant')
    const other = await registerClient(t)
    expect((await exchange(a.code, a.verifier, { client_id: other })).body.error).toBe('invalid_grant')
    expect((await exchange(a.code, a.verifier, { resource: 'http://localhost/agent/beta/mcp' })).body.error).toBe('invalid_target')
    expect((await exchange(a.code, a.verifier, { resource: AGENT_A })).status).toBe(200)
    const b = await freshCode()
    t.clock.advance(61_000)
    expect((await exchange(b.code, b.verifier)).body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code has expired' })
  })

  test('an unknown code, or a denied request, is invalid_grant', async () => {
    expect((await exchange('abx_oac_nope', pkce().verifier)).body.error).toBe('invalid_grant')
  })
})

describe('the request itself', () => {
  test('unknown client → 401 invalid_client; missing parameters → invalid_request; other grant types → unsupported_grant_type', async () => {
    const unknown = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: 'abx_client_nope',
      code: 'x',
      redirect_uri: REDIRECT,
      code_verifier: 'y',
    })
    expect(unknown.status).toBe(401)
    expect(unknown.body.error).toBe('invalid_client')
    const missing = await postForm(t, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'code is required' })
    expect((await postForm(t, '/oauth/token', { client_id: clientId })).body.error).toBe('invalid_request')
    const implicit = await postForm(t, '/oauth/token', { grant_type: 'client_credentials', client_id: clientId })
    expect(implicit.status).toBe(400)
    expect(implicit.body.error).toBe('unsupported_grant_type')
  })

  test('a parameter sent twice, or a body that does not parse, is invalid_request (not the API 422)', async () => {
    const twice = await t.request('POST', '/oauth/token', {
      rawBody: `grant_type=refresh_token&grant_type=authorization_code&client_id=${clientId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(twice.status).toBe(400)
    expect(twice.body.error).toBe('invalid_request')
    for (const rawBody of ['{nope', '42', '[]', 'null']) {
      const garbage = await t.request('POST', '/oauth/token', { rawBody, headers: { 'content-type': 'application/json' } })
      expect(garbage.status).toBe(400)
      expect(garbage.body.error).toBe('invalid_request')
    }
  })
})

describe('grant_type=refresh_token', () => {
  test('each refresh returns a new pair; the old access token keeps working until it expires', async () => {
    const connected = await connect(t, member.token, AGENT_A, clientId)
    const res = await refresh(connected.refresh_token)
    expect(res.status).toBe(200)
    expect(res.body.refresh_token).not.toBe(connected.refresh_token)
    expect(res.body.access_token).not.toBe(connected.access_token)
    expect((await verify(res.body.access_token)).userId).toBe(member.id)
    expect((await verify(connected.access_token)).userId).toBe(member.id)
    const again = await refresh(res.body.refresh_token)
    expect(again.status).toBe(200)
  })

  test('reusing a rotated-out refresh token → invalid_grant and the whole grant is revoked', async () => {
    const connected = await connect(t, member.token, AGENT_A, clientId)
    const rotated = await refresh(connected.refresh_token)
    expect(rotated.status).toBe(200)
    const reuse = await refresh(connected.refresh_token)
    expect(reuse.status).toBe(400)
    expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token was already used; the grant is revoked' })
    // The legitimate holder's newest tokens die with the grant: one of the two holders was not the client.
    expect((await refresh(rotated.body.refresh_token)).body.error).toBe('invalid_grant')
    await expect(verify(rotated.body.access_token)).rejects.toThrow('unknown or revoked')
    const audit = await t.server.database.db.selectFrom('audit_log').select(['details']).where('action', '=', 'oauth.grant.revoke').execute()
    expect(audit.map((row) => JSON.parse(row.details).reason)).toContain('refresh_token_reused')
  })

  test('bound to its client and resource', async () => {
    const connected = await connect(t, member.token, AGENT_A, clientId)
    const other = await registerClient(t)
    expect((await refresh(connected.refresh_token, { client_id: other })).body.error).toBe('invalid_grant')
    expect((await refresh(connected.refresh_token, { resource: 'http://localhost/agent/beta/mcp' })).body.error).toBe('invalid_target')
    expect((await refresh(connected.refresh_token, { resource: AGENT_A })).status).toBe(200)
  })

  test('a deactivated user can no longer refresh', async () => {
    const leaver = await t.createUser(adminToken, { email: 'leaver@example.com' })
    const connected = await connect(t, leaver.token, AGENT_A, clientId)
    expect((await t.request('DELETE', `/api/users/${leaver.id}`, { token: adminToken })).status).toBeLessThan(300)
    expect((await refresh(connected.refresh_token)).body.error).toBe('invalid_grant')
    await expect(verify(connected.access_token)).rejects.toThrow('deactivated')
  })
})

describe('POST /oauth/revoke', () => {
  test('revoking the refresh token ends the grant: both tokens stop working', async () => {
    const connected = await connect(t, member.token, AGENT_A, clientId)
    const res = await postForm(t, '/oauth/revoke', { token: connected.refresh_token, token_type_hint: 'refresh_token', client_id: clientId })
    expect(res.status).toBe(200)
    await expect(verify(connected.access_token)).rejects.toBeInstanceOf(OauthTokenError)
    expect((await refresh(connected.refresh_token)).body.error).toBe('invalid_grant')
  })

  test('revoking an access token ends only that token', async () => {
    const connected = await connect(t, member.token, AGENT_A, clientId)
    expect((await postForm(t, '/oauth/revoke', { token: connected.access_token, client_id: clientId })).status).toBe(200)
    await expect(verify(connected.access_token)).rejects.toBeInstanceOf(OauthTokenError)
    expect((await refresh(connected.refresh_token)).status).toBe(200)
  })

  test('an unknown token, or another client’s, is 200 and changes nothing; no token at all is invalid_request', async () => {
    expect((await postForm(t, '/oauth/revoke', { token: 'abx_ort_unknown' })).status).toBe(200)
    const connected = await connect(t, member.token, AGENT_A, clientId)
    expect((await postForm(t, '/oauth/revoke', { token: connected.refresh_token, client_id: 'abx_client_other' })).status).toBe(200)
    expect((await verify(connected.access_token)).userId).toBe(member.id)
    const none = await postForm(t, '/oauth/revoke', {})
    expect(none.status).toBe(400)
    expect(none.body.error).toBe('invalid_request')
  })
})

test('only hashes are stored: no token or code appears in the database', async () => {
  const { code, verifier } = await freshCode()
  const res = await exchange(code, verifier)
  const db = t.server.database.db
  const rows = JSON.stringify([
    await db.selectFrom('oauth_tokens').selectAll().execute(),
    await db.selectFrom('oauth_requests').selectAll().execute(),
    await db.selectFrom('oauth_grants').selectAll().execute(),
  ])
  for (const secret of [code, res.body.access_token, res.body.refresh_token]) expect(rows).not.toContain(secret)
})
