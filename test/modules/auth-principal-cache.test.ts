// The authenticator remembers principals until the next write (src/modules/auth/authenticator.ts). Every test first
// warms that memory with repeated requests, then writes, and checks that the very next request sees the write.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ON_POSTGRES } from '../helpers/database.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let member: { id: string; token: string }
let memberPat: string
beforeEach(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
  member = await t.createUser(adminToken, { email: 'member@example.com', name: 'Mia Member' })
  memberPat = (await t.request('POST', '/api/auth/tokens', { token: member.token, body: { name: 'cli' } })).body.token
})
afterEach(() => t.close())

const me = (token: string) => t.request('GET', '/api/auth/me', { token })

/** Several identical reads with no write between them: the later ones are answered from the remembered principal. */
async function warm(...tokens: string[]): Promise<void> {
  for (let i = 0; i < 3; i++) for (const token of tokens) expect((await me(token)).status).toBe(200)
}

describe('remembered principals never outlive a write', () => {
  test('a rename through the API shows on the next request, with an access token and with a PAT', async () => {
    await warm(member.token, memberPat)
    expect((await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { name: 'Mia Renamed' } })).status).toBe(200)
    expect((await me(member.token)).body.name).toBe('Mia Renamed')
    expect((await me(memberPat)).body.name).toBe('Mia Renamed')
  })

  test('a promotion and a demotion apply to the next request on an admin route', async () => {
    await warm(member.token)
    expect((await t.request('GET', '/api/users', { token: member.token })).status).toBe(403)
    expect((await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { role: 'admin' } })).status).toBe(200)
    expect((await t.request('GET', '/api/users', { token: member.token })).status).toBe(200)
    expect((await t.request('GET', '/api/users', { token: member.token })).status).toBe(200)
    expect((await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { role: 'member' } })).status).toBe(200)
    expect((await t.request('GET', '/api/users', { token: member.token })).status).toBe(403)
  })

  test('a revoked PAT is refused on the next request while the access token keeps working', async () => {
    await warm(member.token, memberPat)
    const [listed] = (await t.request('GET', '/api/auth/tokens', { token: member.token })).body
    expect((await t.request('DELETE', `/api/auth/tokens/${listed.id}`, { token: member.token })).status).toBe(200)
    expect((await me(memberPat)).status).toBe(401)
    expect((await me(member.token)).status).toBe(200)
  })

  test('a deactivated user is refused on the next request with both kinds of token', async () => {
    await warm(member.token, memberPat)
    expect((await t.request('DELETE', `/api/users/${member.id}`, { token: adminToken })).status).toBe(200)
    expect((await me(member.token)).status).toBe(401)
    expect((await me(memberPat)).status).toBe(401)
  })

  test('a password change kills the old access token on the next request', async () => {
    await warm(member.token)
    const changed = await t.request('POST', '/api/auth/password', {
      token: member.token,
      body: { current_password: 'a long enough password', new_password: 'another long password' },
    })
    expect(changed.status).toBe(200)
    expect((await me(member.token)).status).toBe(401)
    expect((await me(changed.body.access_token)).status).toBe(200)
  })

  test('a write that bypasses every service (straight on the writer connection) is seen too', async () => {
    await warm(member.token, memberPat)
    await t.sql.run('UPDATE users SET active = 0 WHERE id = ?', member.id)
    expect((await me(member.token)).status).toBe(401)
    expect((await me(memberPat)).status).toBe(401)
  })

  test('a request made while a write transaction is open sees the committed row and keeps nothing past the commit', async () => {
    await warm(member.token)
    await t.server.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ active: 0 }).where('id', '=', member.id).execute()
      // Not committed yet: the read connection still sees an active user.
      expect((await me(member.token)).status).toBe(200)
      expect((await me(member.token)).status).toBe(200)
    })
    expect((await me(member.token)).status).toBe(401)
  })

  test('a rolled-back write changes nothing', async () => {
    await warm(member.token)
    const rolledBack = t.server.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ active: 0 }).where('id', '=', member.id).execute()
      throw new Error('roll back')
    })
    await expect(rolledBack).rejects.toThrow('roll back')
    await warm(member.token)
  })
})

// On PostgreSQL principals are remembered until the `sign_ins` cluster revision moves: triggers move it in the
// transaction that changes a user, an API token or a session's end, on any instance; recorded calls leave it alone.
describe.skipIf(!ON_POSTGRES)('PostgreSQL: what moves the sign-ins revision', () => {
  const signIns = async () => Number((await t.sql.get<{ value: number }>("SELECT value FROM cluster_revisions WHERE name = 'sign_ins'"))!.value)
  const record = (token: string) =>
    t.request('POST', '/api/interaction/record-mcp-tool', { token, body: { mcp_server_name: 'Jira', tool_name: 'search', arguments: {}, result: {} } })

  test('recorded calls do not empty the remembered principals; a sign-in change does, on the next request', async () => {
    await warm(member.token, memberPat)
    // Switched off, the triggers cannot tell anyone that this user is gone: a request answered 200 now was answered
    // from the remembered principal, not from the row.
    await t.sql.run('ALTER TABLE users DISABLE TRIGGER USER')
    try {
      await t.sql.run('UPDATE users SET active = 0 WHERE id = ?', member.id)
    } finally {
      await t.sql.run('ALTER TABLE users ENABLE TRIGGER USER')
    }
    expect((await me(member.token)).status).toBe(200)
    const before = await signIns()
    for (let i = 0; i < 5; i++) expect((await record(adminToken)).status).toBe(200)
    expect(await signIns()).toBe(before)
    expect((await me(member.token)).status).toBe(200)
    expect((await me(memberPat)).status).toBe(200)
    // Any sign-in change (here another user's rename) moves the revision: the next request reads the rows again.
    const other = await t.createUser(adminToken, { email: 'other@example.com' })
    expect((await t.request('PATCH', `/api/users/${other.id}`, { token: adminToken, body: { name: 'Renamed' } })).status).toBe(200)
    expect(await signIns()).toBe(before + 1)
    expect((await me(member.token)).status).toBe(401)
    expect((await me(memberPat)).status).toBe(401)
  })

  test('token revocations, sign-outs and user changes move it; creating tokens and sessions does not', async () => {
    const before = await signIns()
    const made = await t.request('POST', '/api/auth/tokens', { token: member.token, body: { name: 'second' } })
    expect(made.status).toBe(201)
    await t.login('member@example.com', 'a long enough password')
    expect(await signIns()).toBe(before)
    expect((await t.request('DELETE', `/api/auth/tokens/${made.body.id}`, { token: member.token })).status).toBe(200)
    expect(await signIns()).toBe(before + 1)
    expect((await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { role: 'admin' } })).status).toBe(200)
    expect(await signIns()).toBe(before + 2)
    await t.sql.run('UPDATE auth_sessions SET revoked_at = ? WHERE user_id = ?', new Date(t.clock.now()).toISOString(), member.id)
    expect(await signIns()).toBe(before + 3)
  })
})
