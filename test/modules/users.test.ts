// Admin user management (CONTRACT §3): create, list, get, update, deactivate; roles, duplicates and the last admin.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let orgToken: string
beforeEach(async () => {
  t = await startTestServer()
  ;({ adminToken, orgToken } = await t.provision())
})
afterEach(() => t.close())

const newUser = (overrides: Record<string, unknown> = {}) => ({
  email: 'new@example.com',
  name: 'New Person',
  password: 'a long enough password',
  role: 'member',
  ...overrides,
})

describe('POST /api/users', () => {
  test('creates a user (201) who can sign in; the password hash is argon2id and never returned', async () => {
    const res = await t.request('POST', '/api/users', { token: adminToken, body: newUser() })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(String),
      email: 'new@example.com',
      name: 'New Person',
      role: 'member',
      active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const row = (await t.sql.get('SELECT password_hash FROM users WHERE id = ?', res.body.id)) as { password_hash: string }
    expect(row.password_hash).toStartWith('$argon2id$')
    expect((await t.request('POST', '/api/auth/login', { body: { email: 'new@example.com', password: 'a long enough password' } })).status).toBe(200)
  })

  test('a duplicate e-mail, in any case, answers 409', async () => {
    expect((await t.request('POST', '/api/users', { token: adminToken, body: newUser() })).status).toBe(201)
    const dup = await t.request('POST', '/api/users', { token: adminToken, body: newUser({ email: 'NEW@example.com' }) })
    expect(dup.status).toBe(409)
    expect(dup.body).toEqual({ detail: 'A user with this e-mail already exists' })
    expect((await t.request('POST', '/api/users', { token: adminToken, body: newUser({ email: ADMIN.email }) })).status).toBe(409)
  })

  test('the org token acts as an admin', async () => {
    expect((await t.request('POST', '/api/users', { token: orgToken, body: newUser() })).status).toBe(201)
  })

  test('members get 403 on every admin route, anonymous callers 401', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    for (const [method, path, body] of [
      ['POST', '/api/users', newUser()],
      ['GET', '/api/users'],
      ['GET', `/api/users/${member.id}`],
      ['PATCH', `/api/users/${member.id}`, { name: 'x' }],
      ['DELETE', `/api/users/${member.id}`],
    ] as const) {
      expect((await t.request(method, path, { token: member.token, body })).status).toBe(403)
      expect((await t.request(method, path, { body })).status).toBe(401)
    }
  })

  test('a bad role or e-mail is 422', async () => {
    const res = await t.request('POST', '/api/users', { token: adminToken, body: newUser({ role: 'root', email: 'x' }) })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => d.loc[1]).sort()).toEqual(['email', 'role'])
  })
})

describe('GET /api/users', () => {
  test('lists people in creation order, without the organisation account or any password data', async () => {
    await t.createUser(adminToken, { email: 'b@example.com' })
    await t.createUser(adminToken, { email: 'c@example.com' })
    const res = await t.request('GET', '/api/users', { token: adminToken })
    expect(res.body.map((u: any) => u.email)).toEqual([ADMIN.email, 'b@example.com', 'c@example.com'])
    expect(JSON.stringify(res.body)).not.toContain('argon2')
  })

  test('unknown ids are 404 User not found, and the organisation account is not a user', async () => {
    expect((await t.request('GET', '/api/users/nope', { token: adminToken })).body).toEqual({ detail: 'User not found' })
    const orgId = (await t.request('GET', '/api/auth/me', { token: orgToken })).body.id
    expect((await t.request('GET', `/api/users/${orgId}`, { token: adminToken })).status).toBe(404)
    expect((await t.request('DELETE', `/api/users/${orgId}`, { token: adminToken })).status).toBe(404)
  })
})

describe('PATCH and DELETE /api/users/{id}', () => {
  test('changes name, role and password', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const res = await t.request('PATCH', `/api/users/${member.id}`, {
      token: adminToken,
      body: { name: 'Renamed', role: 'admin', password: 'brand new password' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ name: 'Renamed', role: 'admin', active: true })
    expect((await t.request('POST', '/api/auth/login', { body: { email: 'm@example.com', password: 'brand new password' } })).status).toBe(200)
    expect((await t.request('GET', '/api/auth/me', { token: member.token })).status).toBe(401)
  })

  test('DELETE deactivates and keeps the user listed as inactive; repeating it is harmless', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const res = await t.request('DELETE', `/api/users/${member.id}`, { token: adminToken })
    expect(res.status).toBe(200)
    expect(res.body.active).toBe(false)
    expect((await t.request('DELETE', `/api/users/${member.id}`, { token: adminToken })).status).toBe(200)
    expect((await t.request('GET', `/api/users/${member.id}`, { token: adminToken })).body.active).toBe(false)
  })

  test('the last active admin cannot be demoted or deactivated (409); with a second admin it can', async () => {
    const adminId = (await t.request('GET', '/api/auth/me', { token: adminToken })).body.id
    for (const body of [{ role: 'member' }, { active: false }]) {
      const res = await t.request('PATCH', `/api/users/${adminId}`, { token: adminToken, body })
      expect(res.status).toBe(409)
      expect(res.body).toEqual({ detail: 'The last active admin cannot be demoted or deactivated' })
    }
    expect((await t.request('DELETE', `/api/users/${adminId}`, { token: adminToken })).status).toBe(409)
    await t.createUser(adminToken, { email: 'second@example.com', role: 'admin' })
    expect((await t.request('PATCH', `/api/users/${adminId}`, { token: adminToken, body: { role: 'member' } })).status).toBe(200)
  })

  test('wrong types and unknown ids', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const res = await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { name: '', role: 'boss', password: 'short', active: 'no' } })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc[1], d.type])).toEqual([
      ['name', 'string_too_short'],
      ['role', 'literal_error'],
      ['password', 'string_too_short'],
      ['active', 'bool_type'],
    ])
    expect((await t.request('PATCH', '/api/users/unknown', { token: adminToken, body: { name: 'x' } })).status).toBe(404)
  })
})
