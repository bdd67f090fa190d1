// First run (CONTRACT §2): the setup token, POST /api/tenant/setup in one transaction, and its refusals.
import { databaseHolds, ON_POSTGRES } from '../helpers/database.ts'
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'
import { issueTestLicense } from '../helpers/license.ts'

let t: TestServer
afterEach(() => t?.close())

const setupBody = (overrides: Record<string, unknown> = {}) => ({
  license_token: issueTestLicense({ nowMs: t.clock.now() }),
  admin_email: ADMIN.email,
  admin_name: ADMIN.name,
  admin_password: ADMIN.password,
  ...overrides,
})

describe('the setup token', () => {
  test('a fresh data dir gets a setup token in secrets/setup-token (0600, dir 0700)', async () => {
    t = await startTestServer()
    const file = join(t.dataDir, 'secrets', 'setup-token')
    expect(t.server.setupToken).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect((await Bun.file(file).text()).trim()).toBe(t.server.setupToken!)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(t.dataDir, 'secrets')).mode & 0o777).toBe(0o700)
    if (!ON_POSTGRES) expect(statSync(join(t.dataDir, 'agentbox.db')).mode & 0o777).toBe(0o600)
  })

  test('AGENTBOX_SETUP_TOKEN is used and stored instead of a generated one', async () => {
    t = await startTestServer({ env: { AGENTBOX_SETUP_TOKEN: 'operator-chosen-token' } })
    expect(t.server.setupToken).toBe('operator-chosen-token')
    expect((await Bun.file(join(t.dataDir, 'secrets', 'setup-token')).text()).trim()).toBe('operator-chosen-token')
  })

  test('the same token survives a restart before setup', async () => {
    t = await startTestServer()
    const first = t.server.setupToken
    await t.restart()
    expect(t.server.setupToken).toBe(first)
  })
})

describe('POST /api/tenant/setup', () => {
  test('provisions with the setup token and returns the org token once', async () => {
    t = await startTestServer()
    const res = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: setupBody() })
    expect(res.status).toBe(200)
    expect(res.body.message).toBe('Tenant provisioned')
    expect(res.body.tenant_org_token).toMatch(/^abx_org_[A-Za-z0-9_-]{43}$/)
    const me = await t.request('GET', '/api/auth/me', { token: res.body.tenant_org_token })
    expect(me.status).toBe(200)
    expect(me.body.role).toBe('admin')
    const login = await t.request('POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } })
    expect(login.status).toBe(200)
  })

  test('the org token is stored only as a hash', async () => {
    t = await startTestServer()
    const res = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: setupBody() })
    const rows = (await t.sql.all('SELECT token_hash FROM api_tokens')) as { token_hash: string }[]
    expect(rows).toHaveLength(1)
    expect(rows[0]!.token_hash).toBe(new Bun.CryptoHasher('sha256').update(res.body.tenant_org_token).digest('hex'))
    // Nowhere else either: SQLite's whole file, free pages included; every text column on PostgreSQL.
    expect(await databaseHolds(t.sql, t.dataDir, res.body.tenant_org_token)).toBe(false)
    expect(await databaseHolds(t.sql, t.dataDir, rows[0]!.token_hash)).toBe(true)
  })

  test('without the setup token answers 401 with WWW-Authenticate: Bearer', async () => {
    t = await startTestServer()
    const res = await t.request('POST', '/api/tenant/setup', { body: setupBody() })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ detail: 'Not authenticated' })
    expect(res.headers.get('www-authenticate')).toBe('Bearer')
  })

  test('a wrong setup token answers 401, even with an invalid body', async () => {
    t = await startTestServer()
    expect((await t.request('POST', '/api/tenant/setup', { token: 'wrong', body: setupBody() })).status).toBe(401)
    expect((await t.request('POST', '/api/tenant/setup', { token: 'wrong', body: {} })).status).toBe(401)
  })

  test('all missing fields are reported at once', async () => {
    t = await startTestServer()
    const res = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: {} })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc[1], d.type]).sort()).toEqual([
      ['admin_email', 'missing'],
      ['admin_name', 'missing'],
      ['admin_password', 'missing'],
      ['license_token', 'missing'],
    ])
  })

  test('a bad e-mail and a short password are 422 on their fields', async () => {
    t = await startTestServer()
    const res = await t.request('POST', '/api/tenant/setup', {
      token: t.server.setupToken!,
      body: setupBody({ admin_email: 'nope', admin_password: 'elevenchars' }),
    })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc, d.type])).toEqual([
      [['body', 'admin_email'], 'value_error'],
      [['body', 'admin_password'], 'string_too_short'],
    ])
  })

  const licenceProblems: [string, () => string, string][] = [
    ['garbage', () => 'not a licence', 'license_invalid'],
    ['tampered', () => tamper(issueTestLicense({ nowMs: t.clock.now() })), 'license_invalid'],
    ['expired', () => issueTestLicense({ nowMs: t.clock.now(), days: -1, notBeforeDays: -30 }), 'license_expired'],
    ['not yet valid', () => issueTestLicense({ nowMs: t.clock.now(), notBeforeDays: 3 }), 'license_not_yet_valid'],
  ]
  for (const [name, make, type] of licenceProblems) {
    test(`a ${name} licence answers 422 ${type} on license_token and leaves the instance unprovisioned`, async () => {
      t = await startTestServer()
      const res = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: setupBody({ license_token: make() }) })
      expect(res.status).toBe(422)
      expect(res.body.detail).toHaveLength(1)
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'license_token'], type })
      expect(typeof res.body.detail[0].msg).toBe('string')
      const health = await t.request('GET', '/api/health')
      expect(health.body.provisioned).toBe(false)
      const retry = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: setupBody() })
      expect(retry.status).toBe(200)
    })
  }

  test('a licence signed by an unknown key is license_invalid', async () => {
    t = await startTestServer({ env: { AGENTBOX_LICENSE_MODE: 'production' } })
    const res = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: setupBody() })
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'license_token'], type: 'license_invalid' })
  })

  test('a second setup answers 409 to everyone and the setup token is destroyed', async () => {
    t = await startTestServer()
    const token = t.server.setupToken!
    expect((await t.request('POST', '/api/tenant/setup', { token, body: setupBody() })).status).toBe(200)
    expect(existsSync(join(t.dataDir, 'secrets', 'setup-token'))).toBe(false)
    for (const attempt of [{ token, body: setupBody() }, { body: {} }, { token: 'x', body: setupBody() }]) {
      const res = await t.request('POST', '/api/tenant/setup', attempt)
      expect(res.status).toBe(409)
      expect(res.body).toEqual({ detail: 'Tenant already provisioned' })
    }
    await t.restart()
    expect(t.server.setupToken).toBeNull()
    expect((await t.request('POST', '/api/tenant/setup', { token, body: setupBody() })).status).toBe(409)
  })

  test('two concurrent setups provision once: one 200, one 409', async () => {
    t = await startTestServer()
    const token = t.server.setupToken!
    const results = await Promise.all([
      t.request('POST', '/api/tenant/setup', { token, body: setupBody() }),
      t.request('POST', '/api/tenant/setup', { token, body: setupBody({ admin_email: 'other@example.com' }) }),
    ])
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
    const people = (await t.sql.get("SELECT count(*) AS n FROM users WHERE kind = 'person'")) as { n: number }
    expect(people.n).toBe(1)
  })

  test('a setup that fails inside its transaction leaves nothing behind and can be retried', async () => {
    t = await startTestServer()
    // Make the transaction's last insert fail: a trigger refusing api_tokens rows for the duration of one attempt.
    if (ON_POSTGRES) {
      await t.sql.run("CREATE FUNCTION refuse_tokens() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$")
      await t.sql.run('CREATE TRIGGER refuse_tokens BEFORE INSERT ON api_tokens FOR EACH ROW EXECUTE FUNCTION refuse_tokens()')
    } else await t.sql.run("CREATE TRIGGER refuse_tokens BEFORE INSERT ON api_tokens BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
    const failed = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: setupBody() })
    expect(failed.status).toBe(500)
    expect(failed.body).toEqual({ detail: 'Internal Server Error' })
    for (const table of ['instance', 'users', 'licenses', 'api_tokens']) {
      expect(((await t.sql.get(`SELECT count(*) AS n FROM ${table}`)) as { n: number }).n).toBe(0)
    }
    await t.sql.run(ON_POSTGRES ? 'DROP TRIGGER refuse_tokens ON api_tokens' : 'DROP TRIGGER refuse_tokens')
    const retry = await t.request('POST', '/api/tenant/setup', { token: t.server.setupToken!, body: setupBody() })
    expect(retry.status).toBe(200)
  })
})

function tamper(token: string): string {
  const [header, payload, signature] = token.split('.')
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
  claims.seats = 100000
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`
}

describe('GET /setup and GET /', () => {
  test('an unprovisioned instance sends / to /setup, which serves the console with no outside assets', async () => {
    t = await startTestServer()
    const root = await t.server.fetch(new Request('http://localhost/'))
    expect(root.status).toBe(302)
    expect(root.headers.get('location')).toBe('/setup')
    const page = await t.server.fetch(new Request('http://localhost/setup?token=abc'))
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const html = await page.text()
    expect(html).toContain('<script type="module" src="/console/app.js')
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
  })

  test('once provisioned, /setup redirects away from the form', async () => {
    t = await startTestServer()
    await t.provision()
    const res = await t.server.fetch(new Request('http://localhost/setup'))
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
  })
})

describe('racing setups (issue 14, item 12)', () => {
  test('parallel setups: one wins, the others are 409, and the winner’s sessions survive a restart', async () => {
    t = await startTestServer()
    const token = t.server.setupToken!
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.request('POST', '/api/tenant/setup', { token, body: setupBody() })))
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409])
    const session = await t.login(ADMIN.email, ADMIN.password)
    expect((await t.request('GET', '/api/auth/me', { token: session })).status).toBe(200)
    await t.restart()
    expect((await t.request('GET', '/api/auth/me', { token: session })).status).toBe(200)
  })
})
