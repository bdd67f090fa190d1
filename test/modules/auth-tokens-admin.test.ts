// Personal API tokens (issue 14, item 9): deactivation revokes them for good, admins list and revoke anyone's, and a
// user revokes all theirs at once; a password change keeps them (docs/decisions.md).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
})
afterAll(() => t.close())

const newPat = async (token: string, name = 'script') =>
  (await t.request('POST', '/api/auth/tokens', { token, body: { name } })).body as { id: string; token: string }
const works = async (token: string) => (await t.request('GET', '/api/auth/me', { token })).status === 200

describe('personal tokens', () => {
  test('a deactivated user’s tokens stay revoked when the user is reactivated', async () => {
    const user = await t.createUser(adminToken, { email: 'gone@example.com' })
    const pat = await newPat(user.token)
    expect(await works(pat.token)).toBe(true)
    expect((await t.request('DELETE', `/api/users/${user.id}`, { token: adminToken })).status).toBe(200)
    expect(await works(pat.token)).toBe(false)
    expect((await t.request('PATCH', `/api/users/${user.id}`, { token: adminToken, body: { active: true } })).status).toBe(200)
    expect(await works(pat.token)).toBe(false)
    const listed = await t.request('GET', `/api/users/${user.id}/tokens`, { token: adminToken })
    expect(listed.body).toEqual([expect.objectContaining({ id: pat.id, revoked_at: expect.any(String) })])
  })

  test('admins list and revoke all of another user’s tokens; members may not; unknown users are 404', async () => {
    const user = await t.createUser(adminToken, { email: 'many@example.com' })
    const pats = [await newPat(user.token, 'a'), await newPat(user.token, 'b')]
    const listed = await t.request('GET', `/api/users/${user.id}/tokens`, { token: adminToken })
    expect(listed.body.map((p: { id: string }) => p.id).sort()).toEqual(pats.map((p) => p.id).sort())
    expect(JSON.stringify(listed.body)).not.toContain(pats[0]!.token)
    expect((await t.request('GET', `/api/users/${user.id}/tokens`, { token: user.token })).status).toBe(403)
    expect((await t.request('DELETE', `/api/users/${user.id}/tokens`, { token: user.token })).status).toBe(403)
    expect((await t.request('GET', '/api/users/nobody/tokens', { token: adminToken })).status).toBe(404)
    expect((await t.request('DELETE', `/api/users/${user.id}/tokens`, { token: adminToken })).body).toEqual({ revoked: 2 })
    for (const pat of pats) expect(await works(pat.token)).toBe(false)
    expect((await t.request('DELETE', `/api/users/${user.id}/tokens`, { token: adminToken })).body).toEqual({ revoked: 0 })
  })

  test('a user revokes all their own tokens at once, and nobody else’s', async () => {
    const me = await t.createUser(adminToken, { email: 'me@example.com' })
    const other = await t.createUser(adminToken, { email: 'other@example.com' })
    const mine = [await newPat(me.token, 'x'), await newPat(me.token, 'y')]
    const theirs = await newPat(other.token)
    expect((await t.request('DELETE', '/api/auth/tokens', { token: me.token })).body).toEqual({ revoked: 2 })
    for (const pat of mine) expect(await works(pat.token)).toBe(false)
    expect(await works(theirs.token)).toBe(true)
    expect(await works(me.token)).toBe(true)
  })

  test('a password change ends sessions but keeps personal tokens', async () => {
    const user = await t.createUser(adminToken, { email: 'pw@example.com', password: 'first long password' })
    const pat = await newPat(user.token)
    const changed = await t.request('POST', '/api/auth/password', {
      token: user.token,
      body: { current_password: 'first long password', new_password: 'second long password' },
    })
    expect(changed.status).toBe(200)
    expect(await works(user.token)).toBe(false)
    expect(await works(pat.token)).toBe(true)
  })
})
