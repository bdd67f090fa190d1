// Authentication (CONTRACT §3): login and its throttle, access tokens, API tokens, /api/auth/me, password change.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { jwt } from '@elysiajs/jwt'
import { Elysia } from 'elysia'
import { createHmac } from 'node:crypto'
import { join } from 'node:path'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'
import { LOGIN_DELAY_MAX_MS, LoginRateLimiter } from '../../src/modules/auth/rate-limit.ts'
import { ManualClock } from '../../src/platform/clock.ts'

let t: TestServer
let adminToken: string
let orgToken: string
beforeEach(async () => {
  t = await startTestServer()
  ;({ adminToken, orgToken } = await t.provision())
})
afterEach(() => t.close())

const login = (email: string, password: string, headers?: Record<string, string>) =>
  t.request('POST', '/api/auth/login', { body: { email, password }, headers })
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const instanceKey = async () => Buffer.from((await Bun.file(join(t.dataDir, 'secrets', 'access-token-key')).text()).trim(), 'base64url')

describe('POST /api/auth/login', () => {
  test('answers an HS256 bearer token valid for 12 hours', async () => {
    const res = await login(ADMIN.email, ADMIN.password)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 43200 })
    const [header, payload] = res.body.access_token.split('.')
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' })
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    expect(Object.keys(claims).sort()).toEqual(['exp', 'iat', 'jti', 'role', 'sub', 'sv'])
    expect(claims.exp - claims.iat).toBe(43200)
  })

  test('the e-mail is matched case-insensitively', async () => {
    expect((await login(' ADMIN@Example.com ', ADMIN.password)).status).toBe(200)
  })

  test('wrong password and unknown e-mail get the same 401 body', async () => {
    const wrong = await login(ADMIN.email, 'not the password')
    const unknown = await login('nobody@example.com', 'not the password')
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual({ detail: 'Invalid credentials' })
    expect(unknown.body).toEqual(wrong.body)
  })

  test('the organisation account cannot sign in with a password', async () => {
    expect((await login('organisation@agentbox.invalid', '')).status).toBe(401)
  })

  test('missing fields are 422', async () => {
    const res = await t.request('POST', '/api/auth/login', { body: { email: ADMIN.email } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([{ loc: ['body', 'password'], msg: 'Field required', type: 'missing' }])
  })
})

describe('login rate limiting', () => {
  test('after 10 failures for one e-mail from one address the 11th attempt answers 429 with Retry-After, even with the right password', async () => {
    for (let i = 0; i < 10; i++) expect((await login(ADMIN.email, `wrong ${i}`)).status).toBe(401)
    const limited = await login(ADMIN.email, ADMIN.password)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(900)
    t.clock.advance(15 * 60 * 1000)
    expect((await login(ADMIN.email, ADMIN.password)).status).toBe(200)
  })

  test('a success clears the e-mail count', async () => {
    for (let i = 0; i < 9; i++) await login(`${ADMIN.email}`, 'wrong')
    t.clock.advance(1000)
    expect((await login(ADMIN.email, ADMIN.password)).status).toBe(200)
  })

  test('parallel wrong passwords for one account are counted before the verify: at most 10 are checked (issue 14, item 6)', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => login(ADMIN.email, `parallel wrong ${i}`)))
    const statuses = answers.map((res) => res.status)
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10)
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([])
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(40)
  })

  // An attempt in flight counts until it is known to be right, so one address gets 10 parallel attempts at one account.
  test('10 parallel right passwords all succeed and leave nothing counted', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => login(ADMIN.email, ADMIN.password)))
    expect(answers.map((res) => res.status)).toEqual(Array(10).fill(200))
    for (let i = 0; i < 10; i++) expect((await login(ADMIN.email, `wrong ${i}`)).status).toBe(401)
  })
})

describe('login throttle policy: per (account, address), per address, delay per account (issue 14, item 7)', () => {
  const from =
    (address: string) =>
    ({ email, password }: { email: string; password: string }) =>
      t.request('POST', '/api/auth/login', { body: { email, password }, clientAddress: address })

  test('10 failures from one address lock that account from that address only; other users behind it still sign in', async () => {
    const attacker = from('203.0.113.7')
    const member = await t.createUser(adminToken, { email: 'colleague@example.com', password: 'colleague password' })
    expect(member.id).toBeString()
    for (let i = 0; i < 10; i++) expect((await attacker({ email: ADMIN.email, password: `wrong ${i}` })).status).toBe(401)
    const locked = await attacker({ email: ADMIN.email, password: ADMIN.password })
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
    // The same address (a shared proxy) still serves everyone else.
    expect((await attacker({ email: 'colleague@example.com', password: 'colleague password' })).status).toBe(200)
    // The account itself is not locked from another address.
    expect((await from('198.51.100.1')({ email: ADMIN.email, password: ADMIN.password })).status).toBe(200)
  })

  test('one address has a ceiling of 100 failures across accounts', async () => {
    const sprayer = from('203.0.113.8')
    for (let i = 0; i < 100; i++) expect((await sprayer({ email: `user${i}@example.com`, password: 'x' })).status).toBe(401)
    const limited = await sprayer({ email: 'fresh@example.com', password: 'x' })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await sprayer({ email: ADMIN.email, password: ADMIN.password })).status).toBe(429)
    // Other addresses are unaffected, and the window ends.
    expect((await from('203.0.113.9')({ email: 'fresh@example.com', password: 'x' })).status).toBe(401)
    t.clock.advance(15 * 60 * 1000)
    expect((await sprayer({ email: ADMIN.email, password: ADMIN.password })).status).toBe(200)
  }, 60_000) // 100 password hashes

  test('an account attacked from many addresses is never locked, only slowed by a growing, capped delay', async () => {
    t.sleeps.length = 0
    for (let i = 0; i < 10; i++) expect((await from(`10.0.0.${i}`)({ email: ADMIN.email, password: 'wrong' })).status).toBe(401)
    expect(t.sleeps).toEqual([])
    for (let i = 10; i < 20; i++) expect((await from(`10.0.0.${i}`)({ email: ADMIN.email, password: 'wrong' })).status).toBe(401)
    expect(t.sleeps).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000])
    // The owner, from their own address, still gets in (after the delay), while the attack goes on.
    t.sleeps.length = 0
    expect((await from('192.0.2.50')({ email: ADMIN.email, password: ADMIN.password })).status).toBe(200)
    expect(t.sleeps).toEqual([5000])
    // The success does not forgive the attacker's failures: the next wrong guess is still slowed.
    expect((await from('10.0.1.1')({ email: ADMIN.email, password: 'wrong' })).status).toBe(401)
    expect(t.sleeps).toEqual([5000, 5000])
    // Failures age out of the window, and with them the delay.
    t.clock.advance(15 * 60 * 1000)
    t.sleeps.length = 0
    expect((await from('10.0.1.2')({ email: ADMIN.email, password: 'wrong' })).status).toBe(401)
    expect(t.sleeps).toEqual([])
  })
})

describe('bearer tokens', () => {
  const refusals: [string, () => Promise<Record<string, string>>][] = [
    ['no Authorization header', async () => ({})],
    ['a Basic scheme', async () => ({ authorization: 'Basic YWRtaW46cGFzcw==' })],
    ['Bearer with no token', async () => ({ authorization: 'Bearer ' })],
    ['a malformed token', async () => ({ authorization: 'Bearer not.a.jwt.at-all' })],
    ['a token signed with another key', async () => ({ authorization: `Bearer ${forge(Buffer.from('some other key'))}` })],
    ['alg none', async () => ({ authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsFor())}.` })],
    ['an unknown abx_ token', async () => ({ authorization: 'Bearer abx_pat_thisdoesnotexist' })],
  ]
  let adminId: string
  const claimsFor = (overrides: Record<string, unknown> = {}) => {
    const iat = Math.floor(t.clock.now() / 1000)
    return { sub: adminId, role: 'admin', sv: 0, iat, exp: iat + 3600, jti: 'x', ...overrides }
  }
  const forge = (key: Buffer, claims = claimsFor()) => {
    const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`
    return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`
  }
  beforeEach(async () => {
    adminId = (await t.request('GET', '/api/auth/me', { token: adminToken })).body.id
  })

  for (const [name, headers] of refusals) {
    test(`${name} answers 401 Not authenticated with WWW-Authenticate: Bearer`, async () => {
      const res = await t.request('GET', '/api/auth/me', { headers: await headers() })
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ detail: 'Not authenticated' })
      expect(res.headers.get('www-authenticate')).toBe('Bearer')
    })
  }

  test('a correctly signed token with the instance key is accepted (control for the forgery case)', async () => {
    expect((await t.request('GET', '/api/auth/me', { token: forge(await instanceKey()) })).status).toBe(200)
  })

  test('an expired access token answers 401', async () => {
    t.clock.advance(12 * 60 * 60 * 1000 + 1000)
    expect((await t.request('GET', '/api/auth/me', { token: adminToken })).status).toBe(401)
  })

  test('tokens interoperate with @elysiajs/jwt (jose) both ways', async () => {
    const key = await instanceKey()
    const jose = new Elysia().use(jwt({ name: 'jwt', secret: new Uint8Array(key), alg: 'HS256' })).get('/verify', ({ jwt, query }) => jwt.verify(query.t))
    const verified = (await (await jose.handle(new Request(`http://localhost/verify?t=${adminToken}`))).json()) as { sub: string }
    expect(verified.sub).toBe(adminId)
    const signer = new Elysia().use(jwt({ name: 'jwt', secret: new Uint8Array(key), alg: 'HS256' })).get('/sign', ({ jwt }) => jwt.sign(claimsFor() as never))
    const joseToken = await (await signer.handle(new Request('http://localhost/sign'))).text()
    expect((await t.request('GET', '/api/auth/me', { token: joseToken })).status).toBe(200)
  })

  test('access tokens survive a restart (the signing key persists in secrets/)', async () => {
    await t.restart()
    expect((await t.request('GET', '/api/auth/me', { token: adminToken })).status).toBe(200)
    expect((await t.request('GET', '/api/auth/me', { token: orgToken })).status).toBe(200)
  })

  test('a role change applies on the very next request, whatever the token says', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com', role: 'admin' })
    expect((await t.request('GET', '/api/users', { token: member.token })).status).toBe(200)
    await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { role: 'member' } })
    expect((await t.request('GET', '/api/users', { token: member.token })).status).toBe(403)
  })
})

describe('GET /api/auth/me', () => {
  test('answers id, email, name and role for access, org and personal tokens', async () => {
    const me = await t.request('GET', '/api/auth/me', { token: adminToken })
    expect(me.body).toEqual({ id: expect.any(String), email: ADMIN.email, name: ADMIN.name, role: 'admin' })
    const org = await t.request('GET', '/api/auth/me', { token: orgToken })
    expect(org.body).toMatchObject({ email: 'organisation@agentbox.invalid', role: 'admin' })
    const pat = await t.request('POST', '/api/auth/tokens', { token: adminToken, body: { name: 'cli' } })
    expect((await t.request('GET', '/api/auth/me', { token: pat.body.token })).body).toEqual(me.body)
  })
})

describe('API tokens', () => {
  test('a personal token is shown once, listed without its secret, and refused right after revocation', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const created = await t.request('POST', '/api/auth/tokens', { token: member.token, body: { name: 'laptop' } })
    expect(created.status).toBe(201)
    expect(created.body.token).toMatch(/^abx_pat_[A-Za-z0-9_-]{43}$/)
    expect(created.body).toMatchObject({ name: 'laptop', kind: 'pat', hint: created.body.token.slice(-4), revoked_at: null })
    const list = await t.request('GET', '/api/auth/tokens', { token: member.token })
    expect(list.body).toHaveLength(1)
    expect(JSON.stringify(list.body)).not.toContain(created.body.token)
    expect((await t.request('GET', '/api/auth/me', { token: created.body.token })).body.email).toBe('m@example.com')
    const revoked = await t.request('DELETE', `/api/auth/tokens/${created.body.id}`, { token: member.token })
    expect(revoked.status).toBe(200)
    expect(revoked.body.revoked_at).toEqual(expect.any(String))
    expect((await t.request('GET', '/api/auth/me', { token: created.body.token })).status).toBe(401)
  })

  test('tokens made in the same millisecond are listed newest first, the same on either database', async () => {
    const member = await t.createUser(adminToken, { email: 'same-ms@example.com' })
    // The hand-moved clock stands still: every token gets the same created_at.
    const made: string[] = []
    for (const name of ['one', 'two', 'three', 'four'])
      made.push((await t.request('POST', '/api/auth/tokens', { token: member.token, body: { name } })).body.id)
    // A revocation rewrites its row (PostgreSQL stores the new version elsewhere in the table): the order holds.
    expect((await t.request('DELETE', `/api/auth/tokens/${made[1]}`, { token: member.token })).status).toBe(200)
    expect((await t.request('DELETE', `/api/auth/tokens/${made[0]}`, { token: member.token })).status).toBe(200)
    const listed = (await t.request('GET', '/api/auth/tokens', { token: member.token })).body as { id: string; created_at: string }[]
    expect(new Set(listed.map((token) => token.created_at)).size).toBe(1)
    expect(listed.map((token) => token.id)).toEqual(made.toReversed())
    expect((await t.request('GET', `/api/users/${member.id}/tokens`, { token: adminToken })).body.map((token: { id: string }) => token.id)).toEqual(
      made.toReversed(),
    )
  })

  test("a member cannot see or revoke another user's token (404); an admin can revoke it", async () => {
    const alice = await t.createUser(adminToken, { email: 'alice@example.com' })
    const bob = await t.createUser(adminToken, { email: 'bob@example.com' })
    const created = await t.request('POST', '/api/auth/tokens', { token: alice.token, body: { name: 'a' } })
    expect((await t.request('DELETE', `/api/auth/tokens/${created.body.id}`, { token: bob.token })).status).toBe(404)
    expect((await t.request('GET', '/api/auth/me', { token: created.body.token })).status).toBe(200)
    expect((await t.request('DELETE', `/api/auth/tokens/${created.body.id}`, { token: adminToken })).status).toBe(200)
    expect((await t.request('GET', '/api/auth/me', { token: created.body.token })).status).toBe(401)
  })

  test('revoking the org token takes effect at once', async () => {
    const list = await t.request('GET', '/api/auth/tokens', { token: orgToken })
    expect(list.body).toEqual([expect.objectContaining({ kind: 'org', name: 'tenant_org_token' })])
    expect((await t.request('DELETE', `/api/auth/tokens/${list.body[0].id}`, { token: orgToken })).status).toBe(200)
    expect((await t.request('GET', '/api/auth/me', { token: orgToken })).status).toBe(401)
  })

  test('unknown token ids are 404 and bad names 422', async () => {
    expect((await t.request('DELETE', '/api/auth/tokens/nope', { token: adminToken })).body).toEqual({ detail: 'Token not found' })
    expect((await t.request('POST', '/api/auth/tokens', { token: adminToken, body: { name: '' } })).status).toBe(422)
    expect((await t.request('POST', '/api/auth/tokens', { token: adminToken, body: { name: 5 } })).status).toBe(422)
  })
})

describe('deactivated users', () => {
  test('their access and API tokens are refused on the very next request, and they cannot sign in, even once reactivated', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const pat = await t.request('POST', '/api/auth/tokens', { token: member.token, body: { name: 'x' } })
    expect((await t.request('GET', '/api/auth/me', { token: member.token })).status).toBe(200)
    expect((await t.request('DELETE', `/api/users/${member.id}`, { token: adminToken })).status).toBe(200)
    expect((await t.request('GET', '/api/auth/me', { token: member.token })).status).toBe(401)
    expect((await t.request('GET', '/api/auth/me', { token: pat.body.token })).status).toBe(401)
    expect((await login('m@example.com', 'a long enough password')).status).toBe(401)
    await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { active: true } })
    expect((await t.request('GET', '/api/auth/me', { token: member.token })).status).toBe(401)
    // Reactivation does not bring back tokens issued before the account was closed (issue 14, item 9).
    expect((await t.request('GET', '/api/auth/me', { token: pat.body.token })).status).toBe(401)
  })
})

describe('POST /api/auth/password', () => {
  test('changes the password, revokes older access tokens and returns a new one', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const res = await t.request('POST', '/api/auth/password', {
      token: member.token,
      body: { current_password: 'a long enough password', new_password: 'an even longer password' },
    })
    expect(res.status).toBe(200)
    expect(res.body.message).toBe('Password changed')
    expect((await t.request('GET', '/api/auth/me', { token: member.token })).status).toBe(401)
    expect((await t.request('GET', '/api/auth/me', { token: res.body.access_token })).status).toBe(200)
    expect((await login('m@example.com', 'a long enough password')).status).toBe(401)
    expect((await login('m@example.com', 'an even longer password')).status).toBe(200)
  })

  test('a wrong current password is 403 and a short new one 422', async () => {
    const wrong = await t.request('POST', '/api/auth/password', {
      token: adminToken,
      body: { current_password: 'nope', new_password: 'an even longer password' },
    })
    expect(wrong.status).toBe(403)
    expect(wrong.body).toEqual({ detail: 'Current password is incorrect' })
    const short = await t.request('POST', '/api/auth/password', { token: adminToken, body: { current_password: ADMIN.password, new_password: 'short' } })
    expect(short.status).toBe(422)
    expect(short.body.detail[0]).toMatchObject({ loc: ['body', 'new_password'], type: 'string_too_short' })
  })

  test('the organisation account has no password to change (400); anonymous callers get 401', async () => {
    expect(
      (await t.request('POST', '/api/auth/password', { token: orgToken, body: { current_password: 'x', new_password: 'an even longer password' } })).status,
    ).toBe(400)
    expect((await t.request('POST', '/api/auth/password', { body: { current_password: 'x', new_password: 'y' } })).status).toBe(401)
  })
})

describe('LoginRateLimiter under a long attack', () => {
  test('an account attacked from thousands of addresses keeps the capped delay, and each pair and address keeps its limit', () => {
    const clock = new ManualClock(Date.parse('2026-11-24T00:00:00Z'))
    const limiter = new LoginRateLimiter(clock)
    const delays: number[] = []
    for (let i = 0; i < 5_000; i++) {
      const attempt = limiter.begin('victim@example.com', `10.${i >> 8}.${i & 255}.1`)
      if (!attempt.allowed) throw new Error('an account alone is never locked')
      delays.push(attempt.delayMs)
    }
    expect(delays.slice(0, 10)).toEqual(Array(10).fill(0))
    expect(new Set(delays.slice(15))).toEqual(new Set([LOGIN_DELAY_MAX_MS]))
    // One pair still locks after 10, and one address after 100, whatever the account's history.
    for (let i = 0; i < 9; i++) expect(limiter.begin('victim@example.com', '10.0.0.1').allowed).toBe(true)
    expect(limiter.begin('victim@example.com', '10.0.0.1').allowed).toBe(false)
    for (let i = 0; i < 100; i++) limiter.begin(`spray${i}@example.com`, '192.0.2.99')
    expect(limiter.begin('fresh@example.com', '192.0.2.99').allowed).toBe(false)
  })
})
