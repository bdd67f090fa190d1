// The console's session across tabs (issue 26, item 7): a console sign-in also sets an HttpOnly refresh cookie; a tab
// without a token exchanges it at POST /api/auth/refresh (rotated, hashed in the database, only from the console's own
// page); POST /api/auth/logout ends the session and every tab's token of it; password change, reset and deactivation
// end it too. And the password change itself (issue 26, item 6): a wrong current password is 403 and counted like a
// failed sign-in.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ROTATION_GRACE_MS, SESSION_TTL_MS } from '../../src/modules/auth/sessions.ts'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

const ORIGIN = 'http://localhost'
let t: TestServer
let adminToken: string

beforeEach(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
})
afterEach(() => t.close())

interface Cookie {
  name: string
  value: string
  attributes: string[]
}

function cookiesOf(headers: Headers): Cookie[] {
  return headers.getSetCookie().map((line) => {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim())
    const eq = pair!.indexOf('=')
    return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes }
  })
}
const cookieNamed = (headers: Headers, name: string) => cookiesOf(headers).find((cookie) => cookie.name === name)

/** Signs in as the console does (its page's Origin): the access token and the two cookies' values. */
async function consoleLogin(email: string = ADMIN.email, password: string = ADMIN.password, origin = ORIGIN) {
  const res = await t.request('POST', '/api/auth/login', { body: { email, password }, headers: { origin } })
  expect(res.status).toBe(200)
  return {
    token: res.body.access_token as string,
    refresh: cookieNamed(res.headers, 'agentbox_refresh')?.value,
    device: cookieNamed(res.headers, 'agentbox_device')?.value,
    res,
  }
}

const refresh = (cookie: string | undefined, origin: string | null = ORIGIN) =>
  t.request('POST', '/api/auth/refresh', {
    headers: { ...(origin !== null && { origin }), ...(cookie !== undefined && { cookie: `other=1; agentbox_refresh=${cookie}` }) },
  })
const me = async (token: string) => (await t.request('GET', '/api/auth/me', { token })).status
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())

describe('sign-in from the console', () => {
  test('sets an HttpOnly, SameSite=Strict refresh cookie for /api/auth (no Secure over http) and a device cookie; the token names its session', async () => {
    const { token, res } = await consoleLogin()
    expect(res.headers.get('cache-control')).toBe('no-store')
    const refreshCookie = cookieNamed(res.headers, 'agentbox_refresh')!
    expect(refreshCookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(refreshCookie.attributes.sort()).toEqual(['HttpOnly', 'Path=/api/auth', 'SameSite=Strict'])
    const device = cookieNamed(res.headers, 'agentbox_device')!
    expect(device.attributes.sort()).toEqual(['HttpOnly', 'Max-Age=31536000', 'Path=/api/auth', 'SameSite=Strict'])
    expect(claimsOf(token).sid).toEqual(expect.any(String))
    expect(res.body.expires_in).toBe(43200)
    // Only a hash is stored.
    const rows = await t.server.database.db.selectFrom('auth_sessions').selectAll().execute()
    expect(rows).toHaveLength(1)
    expect(JSON.stringify(rows)).not.toContain(refreshCookie.value)
  })

  test('a sign-in without Origin (a script) or from another site gets no cookie and no session', async () => {
    for (const headers of [{}, { origin: 'https://evil.example' }, { origin: 'null' }] as Record<string, string>[]) {
      const res = await t.request('POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password }, headers })
      expect(res.status).toBe(200)
      expect(res.headers.getSetCookie()).toEqual([])
      expect(claimsOf(res.body.access_token).sid).toBeUndefined()
    }
    expect(await t.server.database.db.selectFrom('auth_sessions').selectAll().execute()).toEqual([])
  })

  test('the cookies are Secure when AGENTBOX_PUBLIC_URL is https, or the console page is https (TLS ended at a proxy)', async () => {
    const secure = await startTestServer({ env: { AGENTBOX_PUBLIC_URL: 'https://agentbox.example.com' } })
    try {
      await secure.provision()
      const res = await secure.request('POST', '/api/auth/login', {
        body: { email: ADMIN.email, password: ADMIN.password },
        headers: { origin: 'https://agentbox.example.com' },
      })
      expect(res.headers.getSetCookie().every((line) => line.includes('; Secure'))).toBe(true)
      expect(res.headers.getSetCookie()).toHaveLength(2)
    } finally {
      await secure.close()
    }
    const viaProxy = await consoleLogin(ADMIN.email, ADMIN.password, 'https://localhost')
    expect(viaProxy.res.headers.getSetCookie().every((line) => line.includes('; Secure'))).toBe(true)
  })

  test('a cookie is never a credential: /api/auth/me with only the cookies is 401', async () => {
    const { refresh: cookie, device } = await consoleLogin()
    const res = await t.request('GET', '/api/auth/me', { headers: { cookie: `agentbox_refresh=${cookie}; agentbox_device=${device}`, origin: ORIGIN } })
    expect(res.status).toBe(401)
  })
})

describe('POST /api/auth/refresh', () => {
  test('a second tab gets its own access token of the same session; the refresh token rotates', async () => {
    const first = await consoleLogin()
    const res = await refresh(first.refresh)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 43200 })
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(claimsOf(res.body.access_token).sid).toBe(claimsOf(first.token).sid)
    const rotated = cookieNamed(res.headers, 'agentbox_refresh')!
    expect(rotated.value).not.toBe(first.refresh)
    expect(await me(res.body.access_token)).toBe(200)
    expect(await me(first.token)).toBe(200)
    // The rotated token works in turn.
    expect((await refresh(rotated.value)).status).toBe(200)
  })

  test('tabs racing: the replaced token still works for 30 s without rotating; after that it ends the session', async () => {
    const { refresh: original } = await consoleLogin()
    const rotated = cookieNamed((await refresh(original)).headers, 'agentbox_refresh')!.value
    t.clock.advance(ROTATION_GRACE_MS)
    const racing = await refresh(original)
    expect(racing.status).toBe(200)
    expect(racing.headers.getSetCookie()).toEqual([])
    const tabToken = racing.body.access_token
    t.clock.advance(1)
    const replay = await refresh(original)
    expect(replay.status).toBe(401)
    expect(replay.body).toEqual({ detail: 'Not authenticated' })
    expect(cookieNamed(replay.headers, 'agentbox_refresh')!.attributes).toContain('Max-Age=0')
    // Someone holds a copy: the whole session ends, the current token and every tab's access token with it.
    expect((await refresh(rotated)).status).toBe(401)
    expect(await me(tabToken)).toBe(401)
  })

  test('the session ends 12 hours after sign-in whatever the refreshes; tokens never outlive it', async () => {
    const signedInAt = t.clock.now()
    let { refresh: cookie } = await consoleLogin()
    t.clock.advance(11 * 3600 * 1000)
    const late = await refresh(cookie)
    expect(late.body.expires_in).toBe(3600)
    expect(claimsOf(late.body.access_token).exp).toBe(Math.floor((signedInAt + SESSION_TTL_MS) / 1000))
    cookie = cookieNamed(late.headers, 'agentbox_refresh')!.value
    t.clock.advance(3600 * 1000)
    expect((await refresh(cookie)).status).toBe(401)
    expect(await me(late.body.access_token)).toBe(401)
    await t.server.modules.auth.service.pruneSessions()
    expect(await t.server.database.db.selectFrom('auth_sessions').selectAll().execute()).toEqual([])
  })

  test('only from the console page: no Origin or another site is 403; no cookie or an unknown one is 401', async () => {
    const { refresh: cookie } = await consoleLogin()
    for (const origin of [null, 'https://evil.example', 'http://localhost.evil.example', 'null']) {
      const res = await refresh(cookie, origin)
      expect(res.status).toBe(403)
      expect(res.body.detail).toContain('console')
    }
    const none = await refresh(undefined)
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer')
    expect(none.headers.getSetCookie()).toEqual([])
    const unknown = await refresh('not-a-session-token')
    expect(unknown.status).toBe(401)
    expect(cookieNamed(unknown.headers, 'agentbox_refresh')?.attributes).toContain('Max-Age=0')
    // The refused attempts did not harm the real session.
    expect((await refresh(cookie)).status).toBe(200)
  })

  test('the public URL is the console origin too, whatever Host the proxy passes', async () => {
    const proxied = await startTestServer({ env: { AGENTBOX_PUBLIC_URL: 'https://agentbox.example.com' } })
    try {
      await proxied.provision()
      const login = await proxied.request('POST', '/api/auth/login', {
        body: { email: ADMIN.email, password: ADMIN.password },
        headers: { origin: 'https://agentbox.example.com' },
      })
      const cookie = cookieNamed(login.headers, 'agentbox_refresh')!.value
      const res = await proxied.request('POST', '/api/auth/refresh', {
        headers: { origin: 'https://agentbox.example.com', cookie: `agentbox_refresh=${cookie}` },
      })
      expect(res.status).toBe(200)
    } finally {
      await proxied.close()
    }
  })

  test('a deactivated user, or one whose password an admin reset, cannot refresh', async () => {
    await t.createUser(adminToken, { email: 'm@example.com' })
    const member = await consoleLogin('m@example.com', 'a long enough password')
    const memberId = (await t.request('GET', '/api/auth/me', { token: member.token })).body.id
    await t.request('PATCH', `/api/users/${memberId}`, { token: adminToken, body: { password: 'a brand new password' } })
    expect((await refresh(member.refresh)).status).toBe(401)
    const again = await consoleLogin('m@example.com', 'a brand new password')
    expect((await t.request('DELETE', `/api/users/${memberId}`, { token: adminToken })).status).toBe(200)
    expect((await refresh(again.refresh)).status).toBe(401)
  })
})

describe('POST /api/auth/logout', () => {
  test("ends the session: the cookie is cleared, it cannot refresh, and every tab's token of it is refused at once", async () => {
    const tab1 = await consoleLogin()
    const tab2 = (await refresh(tab1.refresh)).body.access_token
    const cookie = tab1.refresh
    const apiLogin = await t.login(ADMIN.email, ADMIN.password)
    const pat = (await t.request('POST', '/api/auth/tokens', { token: adminToken, body: { name: 'cli' } })).body.token
    const res = await t.request('POST', '/api/auth/logout', { token: tab1.token, headers: { cookie: `agentbox_refresh=${cookie}`, origin: ORIGIN } })
    expect(res.status).toBe(204)
    expect(cookieNamed(res.headers, 'agentbox_refresh')!.attributes).toEqual(expect.arrayContaining(['Max-Age=0', 'HttpOnly', 'Path=/api/auth']))
    expect(await me(tab1.token)).toBe(401)
    expect(await me(tab2)).toBe(401)
    // Cookie rotated by tab 2's refresh: the replaced one named the session too, and the session is over anyway.
    expect((await refresh(cookie)).status).toBe(401)
    // Other sign-ins and personal tokens are not this session.
    expect(await me(apiLogin)).toBe(200)
    expect(await me(pat)).toBe(200)
    expect(await me(adminToken)).toBe(200)
  })

  test('with only the bearer token of a session (the cookie gone), that session ends; repeated or anonymous sign-outs are 204', async () => {
    const tab = await consoleLogin()
    expect((await t.request('POST', '/api/auth/logout', { token: tab.token })).status).toBe(204)
    expect(await me(tab.token)).toBe(401)
    expect((await refresh(tab.refresh)).status).toBe(401)
    expect((await t.request('POST', '/api/auth/logout', { token: tab.token })).status).toBe(204)
    expect((await t.request('POST', '/api/auth/logout')).status).toBe(204)
    expect((await t.request('POST', '/api/auth/logout', { headers: { cookie: 'agentbox_refresh=garbage' } })).status).toBe(204)
  })
})

describe('POST /api/auth/password', () => {
  test("ends the user's other sessions and access tokens, keeps this console session going in a new one, keeps personal tokens", async () => {
    await t.createUser(adminToken, { email: 'm@example.com' })
    const here = await consoleLogin('m@example.com', 'a long enough password')
    const elsewhere = await consoleLogin('m@example.com', 'a long enough password')
    const script = await t.login('m@example.com', 'a long enough password')
    const pat = (await t.request('POST', '/api/auth/tokens', { token: script, body: { name: 'cli' } })).body.token
    const res = await t.request('POST', '/api/auth/password', {
      token: here.token,
      headers: { origin: ORIGIN, cookie: `agentbox_refresh=${here.refresh}; agentbox_device=${here.device}` },
      body: { current_password: 'a long enough password', new_password: 'an even longer password' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ message: 'Password changed', access_token: expect.any(String), token_type: 'bearer', expires_in: 43200 })
    const renewed = cookieNamed(res.headers, 'agentbox_refresh')!.value
    for (const token of [here.token, elsewhere.token, script]) expect(await me(token)).toBe(401)
    for (const cookie of [here.refresh, elsewhere.refresh]) expect((await refresh(cookie)).status).toBe(401)
    expect(await me(res.body.access_token)).toBe(200)
    expect(claimsOf(res.body.access_token).sid).toEqual(expect.any(String))
    expect((await refresh(renewed)).status).toBe(200)
    expect(await me(pat)).toBe(200)
  })

  test('from a script (no console session) it answers a plain token and sets no cookie', async () => {
    const res = await t.request('POST', '/api/auth/password', {
      token: adminToken,
      body: { current_password: ADMIN.password, new_password: 'an even longer password' },
    })
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie()).toEqual([])
    expect(claimsOf(res.body.access_token).sid).toBeUndefined()
  })

  test('a wrong current password is 403 and counts like a failed sign-in: after 10, even the right one is 429 for a while', async () => {
    const attacker = { clientAddress: '203.0.113.50' }
    const change = (current: string) =>
      t.request('POST', '/api/auth/password', { token: adminToken, ...attacker, body: { current_password: current, new_password: 'an even longer password' } })
    for (let i = 0; i < 10; i++) {
      const wrong = await change(`guess ${i}`)
      expect(wrong.status).toBe(403)
      expect(wrong.body).toEqual({ detail: 'Current password is incorrect' })
    }
    const limited = await change(ADMIN.password)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    // The same throttle as sign-in: that account from that address is locked for sign-in too.
    const signIn = await t.request('POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password }, ...attacker })
    expect(signIn.status).toBe(429)
    // And the account's own delay grew like after failed sign-ins.
    t.sleeps.length = 0
    expect((await t.request('POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password }, clientAddress: '198.51.100.1' })).status).toBe(
      200,
    )
    expect(t.sleeps).toEqual([250])
    t.clock.advance(15 * 60 * 1000)
    expect((await change(ADMIN.password)).status).toBe(200)
  })
})
