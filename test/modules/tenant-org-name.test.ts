// POST /api/tenant/setup's org_name (issue 26, item 7): an evaluation takes the organisation's name from the wizard; a
// signed licence keeps naming its organisation itself, and org_name sent with one is refused before anything is written.
import { afterEach, describe, expect, test } from 'bun:test'
import { issueTestLicense } from '../helpers/license.ts'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
afterEach(() => t?.close())

const setup = (extra: Record<string, unknown>, license_token = 'evaluation') =>
  t.request('POST', '/api/tenant/setup', {
    token: t.server.setupToken!,
    body: { license_token, admin_email: ADMIN.email, admin_name: ADMIN.name, admin_password: ADMIN.password, ...extra },
  })

const organisationAccountName = async () => ((await t.sql.get("SELECT name FROM users WHERE kind = 'organisation'")) as { name: string } | null)?.name

describe('org_name at setup', () => {
  test('an evaluation is named as asked (trimmed): licence summary, organisation account and instance', async () => {
    t = await startTestServer()
    expect((await setup({ org_name: '  Acme Robotics  ' })).status).toBe(200)
    const admin = await t.login(ADMIN.email, ADMIN.password)
    expect((await t.request('GET', '/api/org/license', { token: admin })).body).toMatchObject({ org: 'Acme Robotics', evaluation: true })
    expect(await organisationAccountName()).toBe('Acme Robotics')
    expect(await t.sql.get('SELECT org_name FROM instance')).toEqual({ org_name: 'Acme Robotics' })
  })

  test('without org_name an evaluation is still "Evaluation", as before', async () => {
    t = await startTestServer()
    expect((await setup({})).status).toBe(200)
    const admin = await t.login(ADMIN.email, ADMIN.password)
    expect((await t.request('GET', '/api/org/license', { token: admin })).body.org).toBe('Evaluation')
  })

  test('the first signed licence applied later renames the organisation after the licence', async () => {
    t = await startTestServer()
    await setup({ org_name: 'Acme trial' })
    const admin = await t.login(ADMIN.email, ADMIN.password)
    const applied = await t.request('POST', '/api/org/apply_license', {
      token: admin,
      body: { license_token: issueTestLicense({ nowMs: t.clock.now(), org: 'Acme Inc', customer: 'acme' }) },
    })
    expect(applied.status).toBe(200)
    expect(applied.body.license.org).toBe('Acme Inc')
    expect(await organisationAccountName()).toBe('Acme Inc')
  })

  test("with a signed licence org_name is a 422 at the field; nothing is provisioned and setup can be retried; the licence's org stands", async () => {
    t = await startTestServer()
    const license = issueTestLicense({ nowMs: t.clock.now(), org: 'Licensed Org' })
    const refused = await setup({ org_name: 'Another name' }, license)
    expect(refused.status).toBe(422)
    expect(refused.body.detail).toEqual([
      {
        loc: ['body', 'org_name'],
        msg: 'Only an evaluation takes an organisation name: a licence names its organisation itself',
        type: 'value_error',
        input: 'Another name',
      },
    ])
    expect(t.server.modules.tenant.service.provisioned).toBe(false)
    expect((await setup({}, license)).status).toBe(200)
    const admin = await t.login(ADMIN.email, ADMIN.password)
    expect((await t.request('GET', '/api/org/license', { token: admin })).body.org).toBe('Licensed Org')
  })

  test.each([
    ['', 'string_too_short'],
    ['   ', 'string_too_short'],
    ['x'.repeat(201), 'string_too_long'],
    [42, 'string_type'],
  ])('org_name %p is a 422', async (org_name, type) => {
    t = await startTestServer()
    const res = await setup({ org_name })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'org_name'], type })])
    expect(t.server.modules.tenant.service.provisioned).toBe(false)
  })
})
