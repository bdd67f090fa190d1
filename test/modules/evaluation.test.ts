// A 30-day evaluation started at setup instead of a signed licence, so `npm ci && npm start` can be finished by an
// evaluator in production licence mode; a signed licence replaces it later (issue 15, item 7).
import { afterEach, describe, expect, test } from 'bun:test'
import { issueTestLicense } from '../helpers/license.ts'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

const DAY = 86_400_000
let t: TestServer
afterEach(() => t?.close())

async function setupWith(license_token: string) {
  return t.request('POST', '/api/tenant/setup', {
    token: t.server.setupToken!,
    body: { license_token, admin_email: ADMIN.email, admin_name: ADMIN.name, admin_password: ADMIN.password },
  })
}

describe('evaluation', () => {
  test('setup with license_token "evaluation" starts 30 days with 5 seats, in production mode too, shown by health and the licence summary', async () => {
    t = await startTestServer({ env: { AGENTBOX_LICENSE_MODE: 'production' } })
    const setup = await setupWith('evaluation')
    expect(setup.status).toBe(200)
    expect(setup.body.tenant_org_token).toStartWith('abx_org_')
    const admin = await t.login(ADMIN.email, ADMIN.password)
    const summary = await t.request('GET', '/api/org/license', { token: admin })
    expect(summary.body).toMatchObject({ org: 'Evaluation', seats: 5, seats_used: 1, features: [], status: 'valid', evaluation: true })
    expect(Date.parse(summary.body.expires_at)).toBe(Math.floor(t.clock.now() / 1000) * 1000 + 30 * DAY)
    const health = await t.request('GET', '/api/health')
    expect(health.body.license).toEqual({ status: 'valid', mode: 'production', expires_at: summary.body.expires_at, evaluation: true })
    // 5 seats: the admin and four more.
    for (let i = 0; i < 4; i++) await t.createUser(admin, { email: `u${i}@example.com` })
    const sixth = await t.request('POST', '/api/users', {
      token: admin,
      body: { email: 'u5@example.com', name: 'u5', password: 'a long enough password', role: 'member' },
    })
    expect(sixth.status).toBe(402)
    expect(sixth.body).toEqual({ detail: 'Seat limit reached' })
  })

  test('it ends like a licence: health warns in the last 14 days, grace for 14 days, then writes are 402 until a licence is applied', async () => {
    t = await startTestServer()
    expect((await setupWith(' Evaluation ')).status).toBe(200)
    t.clock.advance(17 * DAY)
    expect((await t.request('GET', '/api/health')).body.status).toBe('warn')
    t.clock.advance(14 * DAY)
    expect((await t.request('GET', '/api/org/license', { token: await t.login(ADMIN.email, ADMIN.password) })).body.status).toBe('grace')
    t.clock.advance(14 * DAY)
    const admin = await t.login(ADMIN.email, ADMIN.password)
    const blocked = await t.request('POST', '/api/auth/tokens', { token: admin, body: { name: 'ci' } })
    expect(blocked.status).toBe(402)
    const applied = await t.request('POST', '/api/org/apply_license', {
      token: admin,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), org: 'Acme', customer: 'acme', seats: 20 }) },
    })
    expect(applied.status).toBe(200)
    expect((await t.request('POST', '/api/auth/tokens', { token: admin, body: { name: 'ci' } })).status).toBe(201)
  })

  test('the first signed licence for any customer replaces it and names the organisation; later ones must be for that customer', async () => {
    t = await startTestServer()
    const orgToken = (await setupWith('evaluation')).body.tenant_org_token
    const admin = await t.login(ADMIN.email, ADMIN.password)
    expect((await t.request('GET', '/api/auth/me', { token: orgToken })).body.name).toBe('Evaluation')
    const applied = await t.request('POST', '/api/org/apply_license', {
      token: admin,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), org: 'Globex', customer: 'globex', seats: 50 }) },
    })
    expect(applied.status).toBe(200)
    expect(applied.body.license).toMatchObject({ org: 'Globex', seats: 50, evaluation: false, status: 'valid' })
    expect((await t.request('GET', '/api/health')).body.license.evaluation).toBe(false)
    expect((await t.request('GET', '/api/auth/me', { token: orgToken })).body.name).toBe('Globex')
    const other = await t.request('POST', '/api/org/apply_license', {
      token: admin,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), customer: 'initech' }) },
    })
    expect(other.status).toBe(422)
    expect(other.body.detail[0]).toMatchObject({ loc: ['body', 'license_token'], type: 'license_invalid', msg: 'License is for a different customer' })
    // The change survives a restart.
    await t.restart()
    const again = await t.login(ADMIN.email, ADMIN.password)
    expect((await t.request('GET', '/api/org/license', { token: again })).body).toMatchObject({ org: 'Globex', evaluation: false })
  })

  test('an evaluation starts only at setup: apply_license refuses it, and a provisioned instance cannot start another', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision()
    const res = await t.request('POST', '/api/org/apply_license', { token: adminToken, body: { license_token: 'evaluation' } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body', 'license_token'],
      type: 'license_invalid',
      msg: 'An evaluation can only be started at setup: apply a signed licence',
    })
    expect((await t.request('GET', '/api/org/license', { token: adminToken })).body.evaluation).toBe(false)
  })

  test('a test licence on a production server says how to use it, and that an evaluation needs no licence', async () => {
    t = await startTestServer({ env: { AGENTBOX_LICENSE_MODE: 'production' } })
    const res = await setupWith(issueTestLicense({ nowMs: t.clock.now() }))
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'license_token'], type: 'license_invalid' })
    expect(res.body.detail[0].msg).toContain('AGENTBOX_LICENSE_MODE=test')
    expect(res.body.detail[0].msg).toContain('30-day evaluation')
    expect((await t.request('GET', '/api/health')).body.provisioned).toBe(false)
  })
})
