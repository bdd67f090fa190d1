// Licences after setup (CONTRACT §2): apply, summary, seats, expiry, 14-day grace and the 402 write block.
import { afterEach, describe, expect, test } from 'bun:test'
import { TEST_KID } from '../../src/modules/license/keyring.ts'
import { signLicenseToken } from '../../src/modules/license/token.ts'
import { issueTestLicense, testPrivateKey } from '../helpers/license.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const DAY = 86_400_000
let t: TestServer
afterEach(() => t?.close())

describe('GET /api/org/license', () => {
  test('an admin sees the summary with seats used', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision({ org: 'Acme Corp', seats: 5, days: 30, features: ['git_sync'] })
    await t.createUser(adminToken, { email: 'm@example.com' })
    const res = await t.request('GET', '/api/org/license', { token: adminToken })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ org: 'Acme Corp', seats: 5, seats_used: 2, features: ['git_sync'], status: 'valid' })
    expect(res.body.lic).toStartWith('lic_')
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(t.clock.now() + 29 * DAY)
  })

  test('a member gets 403 and an anonymous caller 401', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision()
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    expect((await t.request('GET', '/api/org/license', { token: member.token })).status).toBe(403)
    expect((await t.request('GET', '/api/org/license')).status).toBe(401)
  })
})

describe('POST /api/org/apply_license', () => {
  test('a valid licence for the same customer replaces the current one', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision({ seats: 2 })
    const res = await t.request('POST', '/api/org/apply_license', {
      token: adminToken,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), seats: 50, days: 400 }) },
    })
    expect(res.status).toBe(200)
    expect(res.body.message).toBe('License applied')
    expect(res.body.license).toMatchObject({ seats: 50, status: 'valid' })
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.seats).toBe(50)
    await t.restart()
    const again = await t.login('admin@example.com', 'correct horse battery')
    expect((await t.request('GET', '/api/org/license', { token: again })).body.seats).toBe(50)
  })

  test('a licence for another customer is refused and the current one stays', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision({ seats: 2 })
    const res = await t.request('POST', '/api/org/apply_license', {
      token: adminToken,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), customer: 'someone-else', seats: 99 }) },
    })
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'license_token'], type: 'license_invalid' })
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.seats).toBe(2)
  })

  test('expired, garbage and missing licences are 422', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision()
    const expired = await t.request('POST', '/api/org/apply_license', {
      token: adminToken,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), days: -2, notBeforeDays: -40 }) },
    })
    expect(expired.body.detail[0].type).toBe('license_expired')
    const garbage = await t.request('POST', '/api/org/apply_license', { token: adminToken, body: { license_token: 'x.y.z' } })
    expect(garbage.body.detail[0].type).toBe('license_invalid')
    const missing = await t.request('POST', '/api/org/apply_license', { token: adminToken, body: {} })
    expect(missing.status).toBe(422)
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'license_token'], type: 'missing' })
  })

  test('a signed licence whose dates have no calendar form (exp 1e300, a negative nbf) is license_invalid, not a 500 (issue 14, item 14)', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision({ seats: 2 })
    const now = Math.floor(t.clock.now() / 1000)
    const base = {
      iss: 'agentbox-licensing' as const,
      lic: 'lic_far',
      sub: 'acme',
      org: 'Acme',
      seats: 5,
      features: [] as string[],
      iat: now - 60,
      nbf: now - 60,
      exp: now + 86_400,
    }
    for (const dates of [{ exp: 1e300 }, { exp: 253_402_300_800 }, { nbf: -1e300 }, { iat: -1 }]) {
      const token = signLicenseToken({ ...base, ...dates }, testPrivateKey(), TEST_KID)
      const res = await t.request('POST', '/api/org/apply_license', { token: adminToken, body: { license_token: token } })
      expect({ dates, status: res.status, type: res.body.detail?.[0]?.type }).toEqual({ dates, status: 422, type: 'license_invalid' })
    }
    // The last second of the year 9999 is still a date.
    const farthest = signLicenseToken({ ...base, exp: 253_402_300_799 }, testPrivateKey(), TEST_KID)
    const applied = await t.request('POST', '/api/org/apply_license', { token: adminToken, body: { license_token: farthest } })
    expect(applied.status).toBe(200)
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.expires_at).toBe('9999-12-31T23:59:59.000Z')
  })

  test('members cannot apply a licence', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision()
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const res = await t.request('POST', '/api/org/apply_license', { token: member.token, body: { license_token: issueTestLicense({ nowMs: t.clock.now() }) } })
    expect(res.status).toBe(403)
  })
})

describe('seats', () => {
  test('creating a user beyond the seats answers 402 Seat limit reached; deactivating frees a seat', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision({ seats: 2 })
    const second = await t.createUser(adminToken, { email: 'two@example.com' })
    const third = await t.request('POST', '/api/users', {
      token: adminToken,
      body: { email: 'three@example.com', name: 'Three', password: 'a long enough password', role: 'member' },
    })
    expect(third.status).toBe(402)
    expect(third.body).toEqual({ detail: 'Seat limit reached' })
    expect((await t.request('DELETE', `/api/users/${second.id}`, { token: adminToken })).status).toBe(200)
    const retry = await t.request('POST', '/api/users', {
      token: adminToken,
      body: { email: 'three@example.com', name: 'Three', password: 'a long enough password', role: 'member' },
    })
    expect(retry.status).toBe(201)
    const reactivate = await t.request('PATCH', `/api/users/${second.id}`, { token: adminToken, body: { active: true } })
    expect(reactivate.status).toBe(402)
  })

  test('the org account does not take a seat', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision({ seats: 1 })
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.seats_used).toBe(1)
  })
})

describe('expiry and grace', () => {
  test('valid → grace at expiry (health warns) → expired after 14 days, when mutations answer 402 and reads go on', async () => {
    t = await startTestServer()
    const { adminToken: firstAdminToken, orgToken } = await t.provision({ days: 20 })
    const member = await t.createUser(firstAdminToken, { email: 'm@example.com' })
    // Access tokens live 12 hours and the clock jumps days: act as admin through the org token, which does not expire.
    const adminToken = orgToken

    t.clock.advance(10 * DAY) // 10 days left: still valid, but health warns
    expect((await t.request('GET', '/api/health')).body.status).toBe('warn')
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.status).toBe('valid')

    t.clock.advance(11 * DAY) // expired a day ago: grace, writes still work
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.status).toBe('grace')
    const health = await t.request('GET', '/api/health')
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ status: 'warn', license: { status: 'grace' } })
    expect((await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { name: 'Renamed' } })).status).toBe(200)

    t.clock.advance(14 * DAY) // past grace
    const blocked = await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { name: 'Again' } })
    expect(blocked.status).toBe(402)
    expect(blocked.body).toEqual({ detail: 'License expired' })
    const memberToken = await t.login('m@example.com', 'a long enough password')
    expect((await t.request('POST', '/api/auth/tokens', { token: memberToken, body: { name: 'x' } })).status).toBe(402)
    // Reads, login, health and the org token keep working; nothing was deleted.
    expect((await t.request('GET', '/api/users', { token: adminToken })).body).toHaveLength(2)
    expect((await t.request('GET', '/api/auth/me', { token: orgToken })).status).toBe(200)
    expect((await t.request('POST', '/api/auth/login', { body: { email: 'm@example.com', password: 'a long enough password' } })).status).toBe(200)
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.status).toBe('expired')
    expect((await t.request('GET', '/api/health')).body.license.status).toBe('expired')

    // Applying a new licence lifts the block at once.
    const applied = await t.request('POST', '/api/org/apply_license', {
      token: adminToken,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), days: 365 }) },
    })
    expect(applied.status).toBe(200)
    expect((await t.request('PATCH', `/api/users/${member.id}`, { token: adminToken, body: { name: 'Again' } })).status).toBe(200)
  })

  test('after grace, unauthenticated mutations still answer 401 first, and taking access away still works', async () => {
    t = await startTestServer()
    const { adminToken, orgToken } = await t.provision({ days: 1 })
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const created = await t.request('POST', '/api/auth/tokens', { token: member.token, body: { name: 'ci' } })
    t.clock.advance(16 * DAY)
    expect((await t.request('POST', '/api/users', { body: {} })).status).toBe(401)
    expect((await t.request('DELETE', `/api/auth/tokens/${created.body.id}`, { token: created.body.token })).status).toBe(200)
    expect((await t.request('GET', '/api/auth/me', { token: created.body.token })).status).toBe(401)
    expect((await t.request('DELETE', `/api/users/${member.id}`, { token: orgToken })).status).toBe(200)
  })
})
