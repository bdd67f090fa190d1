// Connected clients (GET/DELETE /api/oauth/grants) and the check an MCP endpoint makes of an OAuth access token:
// audience-bound to one MCP URL, expiring, revocable, and acting as the user as they are now.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { OAUTH_ACCESS_TOKEN_PREFIX, OauthTokenError } from '../../src/modules/oauth/module.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { AGENT_A, AGENT_B, connect, registerClient } from './helpers.ts'

let t: TestServer
let adminToken: string
let ann: { id: string; token: string }
let bob: { id: string; token: string }

beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
  ann = await t.createUser(adminToken, { email: 'ann@example.com' })
  bob = await t.createUser(adminToken, { email: 'bob@example.com' })
})
afterAll(() => t.close())

const verify = (token: string, resource = AGENT_A) => t.server.modules.oauth.service.verifyAccessToken(token, resource)
const grantRow = (id: string) => t.server.database.db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

describe('GET /api/oauth/grants', () => {
  test("lists the caller's own connected clients, newest first, and nobody else's", async () => {
    const clientId = await registerClient(t, { client_name: 'Cursor' })
    await connect(t, ann.token, AGENT_A, clientId)
    t.clock.advance(1000)
    await connect(t, ann.token, AGENT_B, clientId)
    await connect(t, bob.token, AGENT_A, clientId)
    const res = await t.request('GET', '/api/oauth/grants', { token: ann.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      expect.objectContaining({ client_id: clientId, client_name: 'Cursor', resource: AGENT_B, scope: 'mcp', last_used_at: null }),
      expect.objectContaining({ client_id: clientId, client_name: 'Cursor', resource: AGENT_A, scope: 'mcp', last_used_at: null }),
    ])
    expect(res.body[0]).toEqual({
      id: expect.any(String),
      client_id: clientId,
      client_name: 'Cursor',
      resource: AGENT_B,
      scope: 'mcp',
      created_at: expect.any(String),
      last_used_at: null,
      expires_at: expect.any(String),
    })
    expect((await t.request('GET', '/api/oauth/grants', { token: bob.token })).body).toHaveLength(1)
    expect((await t.request('GET', '/api/oauth/grants')).status).toBe(401)
  })
})

describe('DELETE /api/oauth/grants/{id}', () => {
  test('disconnects at once: 204, gone from the list, its tokens refused', async () => {
    const connected = await connect(t, ann.token)
    const principal = await verify(connected.access_token)
    const res = await t.request('DELETE', `/api/oauth/grants/${principal.tokenId}`, { token: ann.token })
    expect(res.status).toBe(204)
    const list = await t.request('GET', '/api/oauth/grants', { token: ann.token })
    expect(list.body.map((g: { id: string }) => g.id)).not.toContain(principal.tokenId)
    await expect(verify(connected.access_token)).rejects.toBeInstanceOf(OauthTokenError)
    // Twice is harmless.
    expect((await t.request('DELETE', `/api/oauth/grants/${principal.tokenId}`, { token: ann.token })).status).toBe(204)
  })

  test("another user's grant is 404 and stays connected", async () => {
    const connected = await connect(t, bob.token)
    const { tokenId } = await verify(connected.access_token)
    const res = await t.request('DELETE', `/api/oauth/grants/${tokenId}`, { token: ann.token })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ detail: 'Grant not found' })
    expect((await verify(connected.access_token)).userId).toBe(bob.id)
  })
})

describe('verifyAccessToken', () => {
  test("a token for one agent's URL is refused at another's", async () => {
    const connected = await connect(t, ann.token, AGENT_A)
    expect((await verify(connected.access_token, AGENT_A)).userId).toBe(ann.id)
    const error = await verify(connected.access_token, AGENT_B).catch((e) => e)
    expect(error).toBeInstanceOf(OauthTokenError)
    expect(error.description).toBe('The access token was issued for another resource')
    expect(error.status).toBe(401)
    await expect(verify(connected.access_token, 'http://localhost/agent/alpha/design/mcp')).rejects.toBeInstanceOf(OauthTokenError)
  })

  test('expires after an hour', async () => {
    const connected = await connect(t, ann.token)
    t.clock.advance(3599_000)
    expect((await verify(connected.access_token)).userId).toBe(ann.id)
    t.clock.advance(1000)
    await expect(verify(connected.access_token)).rejects.toThrow('The access token has expired')
  })

  test('unknown tokens and other kinds of token are refused', async () => {
    await expect(verify(`${OAUTH_ACCESS_TOKEN_PREFIX}nope`)).rejects.toThrow('unknown or revoked')
    await expect(verify('abx_pat_something')).rejects.toThrow('Not an OAuth access token')
    const connected = await connect(t, ann.token)
    await expect(verify(connected.refresh_token)).rejects.toBeInstanceOf(OauthTokenError)
  })

  test('the principal carries the user as they are now: a role change applies at once', async () => {
    const connected = await connect(t, ann.token)
    expect((await verify(connected.access_token)).role).toBe('member')
    expect((await t.request('PATCH', `/api/users/${ann.id}`, { token: adminToken, body: { role: 'admin' } })).status).toBe(200)
    const principal = await verify(connected.access_token)
    expect(principal).toEqual({
      userId: ann.id,
      email: 'ann@example.com',
      name: 'ann',
      role: 'admin',
      kind: 'person',
      via: 'oauth',
      tokenId: expect.any(String),
    })
    await t.request('PATCH', `/api/users/${ann.id}`, { token: adminToken, body: { role: 'member' } })
  })

  test('last_used_at is written at most once a minute', async () => {
    const connected = await connect(t, ann.token)
    const { tokenId } = await verify(connected.access_token)
    const first = (await grantRow(tokenId!)).last_used_at
    expect(first).toBe(new Date(t.clock.now()).toISOString())
    t.clock.advance(30_000)
    await verify(connected.access_token)
    expect((await grantRow(tokenId!)).last_used_at).toBe(first)
    t.clock.advance(30_000)
    await verify(connected.access_token)
    expect((await grantRow(tokenId!)).last_used_at).toBe(new Date(t.clock.now()).toISOString())
  })
})

test('housekeeping drops expired tokens and long-dead grants', async () => {
  const connected = await connect(t, bob.token)
  const { tokenId } = await verify(connected.access_token)
  t.clock.advance(61 * 24 * 3600 * 1000)
  await t.server.modules.oauth.service.prune()
  const db = t.server.database.db
  expect(await db.selectFrom('oauth_grants').select('id').where('id', '=', tokenId!).executeTakeFirst()).toBeUndefined()
  expect(await db.selectFrom('oauth_tokens').select('token_hash').where('grant_id', '=', tokenId!).execute()).toEqual([])
})
