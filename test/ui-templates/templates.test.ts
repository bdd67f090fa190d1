// UI templates over HTTP: create, list (default first), read, change, delete; one default per operation; rights that
// follow the application; the checks on html, type, template_format, csp_config and ui_meta; the audit log.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type People, startWithPeople } from '../helpers/people.ts'
import { createTemplate, ownedApplication, page } from './helpers.ts'

let w: People
let app: string

beforeAll(async () => {
  w = await startWithPeople()
  app = await ownedApplication(w)
})
afterAll(() => w.t.close())

const path = (apiName: string, operationId: string) => `/api/ui-templates/${apiName}/operations/${operationId}`
const one = (apiName: string, id: string) => `/api/ui-templates/${apiName}/templates/${id}`

describe('create, list, read', () => {
  test('POST answers the spec fields with their defaults; GET lists {templates} with the default first', async () => {
    const created = await w.t.request('POST', path(app, 'listPets'), { token: w.owner.token, body: { html: page('first') } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      html: page('first'),
      application_id: app,
      operation_id: 'listPets',
      type: 'result',
      is_default: false,
      template_format: 'mcp-app',
      csp_config: null,
      ui_meta: null,
      resource_uri: `ui://${app}/listPets/${created.body.id}`,
    })
    const csp = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] }
    const meta = { permissions: { clipboardWrite: {} }, prefersBorder: false, domain: 'pets.example.com', csp: { frameDomains: ['https://maps.example.com'] } }
    const second = await createTemplate(w, w.owner.token, app, 'listPets', { is_default: true, type: 'card', csp_config: csp, ui_meta: meta })
    const listed = await w.t.request('GET', path(app, 'listPets'), { token: w.owner.token })
    expect(listed.status).toBe(200)
    expect(listed.body.templates.map((t: { id: string }) => t.id)).toEqual([second.id, created.body.id])
    expect(listed.body.templates[0]).toMatchObject({ is_default: true, type: 'card', csp_config: csp, ui_meta: meta })
    const read = await w.t.request('GET', one(app, second.id), { token: w.owner.token })
    expect(read.body).toEqual(listed.body.templates[0])
  })

  test('an operation without templates lists none; an unknown operation or application is 404', async () => {
    expect((await w.t.request('GET', path(app, 'deletePet'), { token: w.owner.token })).body).toEqual({ templates: [] })
    const unknownOperation = await w.t.request('GET', path(app, 'noSuchOperation'), { token: w.owner.token })
    expect(unknownOperation).toMatchObject({ status: 404, body: { detail: 'Operation not found' } })
    expect((await w.t.request('POST', path(app, 'noSuchOperation'), { token: w.owner.token, body: { html: 'x' } })).status).toBe(404)
    expect((await w.t.request('GET', path('no-such-app', 'listPets'), { token: w.owner.token })).status).toBe(404)
    expect((await w.t.request('GET', one(app, '0190d1c4-0000-7000-8000-000000000000'), { token: w.owner.token })).body).toEqual({
      detail: 'Template not found',
    })
  })
})

describe('one default per operation', () => {
  test('making one the default clears the others, on create and on PUT', async () => {
    const a = await createTemplate(w, w.owner.token, app, 'createPet', { is_default: true })
    const b = await createTemplate(w, w.owner.token, app, 'createPet', { is_default: true })
    const defaults = async () =>
      ((await w.t.request('GET', path(app, 'createPet'), { token: w.owner.token })).body.templates as { id: string; is_default: boolean }[])
        .filter((t) => t.is_default)
        .map((t) => t.id)
    expect(await defaults()).toEqual([b.id])
    const moved = await w.t.request('PUT', one(app, a.id), { token: w.owner.token, body: { is_default: true } })
    expect(moved.body.is_default).toBe(true)
    expect(await defaults()).toEqual([a.id])
    // Another operation's default is untouched.
    const other = await createTemplate(w, w.owner.token, app, 'deletePet', { is_default: true })
    expect(await defaults()).toEqual([a.id])
    expect((await w.t.request('GET', one(app, other.id), { token: w.owner.token })).body.is_default).toBe(true)
  })

  test('concurrent writes never leave two defaults', async () => {
    const busy = await ownedApplication(w)
    const made = await Promise.all(Array.from({ length: 8 }, () => createTemplate(w, w.owner.token, busy, 'deletePet', { is_default: true })))
    await Promise.all(made.map((t) => w.t.request('PUT', one(busy, t.id), { token: w.owner.token, body: { is_default: true } })))
    const listed = (await w.t.request('GET', path(busy, 'deletePet'), { token: w.owner.token })).body.templates as { is_default: boolean }[]
    expect(listed.filter((t) => t.is_default)).toHaveLength(1)
    expect(listed[0]!.is_default).toBe(true)
  })
})

describe('change and delete', () => {
  test('PUT changes only the fields given; null clears csp_config and ui_meta; DELETE is 204 then 404', async () => {
    const t = await createTemplate(w, w.owner.token, app, 'listPets', { type: 'table', csp_config: { connectDomains: ['https://a.example.com'] } })
    const changed = await w.t.request('PUT', one(app, t.id), { token: w.owner.token, body: { html: page('changed') } })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ html: page('changed'), type: 'table', csp_config: { connectDomains: ['https://a.example.com'] } })
    const cleared = await w.t.request('PUT', one(app, t.id), { token: w.owner.token, body: { csp_config: null } })
    expect(cleared.body.csp_config).toBeNull()
    expect(cleared.body.html).toBe(page('changed'))
    expect((await w.t.request('DELETE', one(app, t.id), { token: w.owner.token })).status).toBe(204)
    expect((await w.t.request('GET', one(app, t.id), { token: w.owner.token })).status).toBe(404)
    expect((await w.t.request('DELETE', one(app, t.id), { token: w.owner.token })).status).toBe(404)
  })

  test("a template id of another application is not found through this one's path", async () => {
    const other = await ownedApplication(w)
    const t = await createTemplate(w, w.owner.token, other, 'listPets')
    expect((await w.t.request('GET', one(app, t.id), { token: w.owner.token })).status).toBe(404)
    expect((await w.t.request('PUT', one(app, t.id), { token: w.owner.token, body: { html: 'x' } })).status).toBe(404)
  })
})

describe('rights follow the application', () => {
  test('a private application: its owner and admins read and write; other members get 404', async () => {
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    expect((await w.t.request('GET', path(app, 'listPets'), { token: w.admin })).status).toBe(200)
    expect((await w.t.request('PUT', one(app, t.id), { token: w.admin, body: { type: 'admin-made' } })).status).toBe(200)
    for (const token of [w.viewer.token, w.outsider.token]) {
      expect((await w.t.request('GET', path(app, 'listPets'), { token })).status).toBe(404)
      expect((await w.t.request('GET', one(app, t.id), { token })).status).toBe(404)
      expect((await w.t.request('POST', path(app, 'listPets'), { token, body: { html: 'x' } })).status).toBe(404)
      expect((await w.t.request('DELETE', one(app, t.id), { token })).status).toBe(404)
    }
  })

  test('a global application: every member reads; only its owner (the admin who imported it) writes, others get 403', async () => {
    const global = await ownedApplication(w, { global: true })
    const t = await createTemplate(w, w.admin, global, 'listPets')
    const read = await w.t.request('GET', path(global, 'listPets'), { token: w.viewer.token })
    expect(read.status).toBe(200)
    expect(read.body.templates).toHaveLength(1)
    const refused = await w.t.request('PUT', one(global, t.id), { token: w.viewer.token, body: { html: 'x' } })
    expect(refused.status).toBe(403)
    expect((await w.t.request('POST', path(global, 'listPets'), { token: w.owner.token, body: { html: 'x' } })).status).toBe(403)
    expect((await w.t.request('DELETE', one(global, t.id), { token: w.owner.token })).status).toBe(403)
  })

  test('without a token: 401', async () => {
    expect((await w.t.request('GET', path(app, 'listPets'))).status).toBe(401)
  })
})

describe('bad input', () => {
  test('missing html is 422', async () => {
    const missing = await w.t.request('POST', path(app, 'listPets'), { token: w.owner.token, body: {} })
    expect(missing.status).toBe(422)
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'html'], type: 'missing' })
  })
  test('template_format other than mcp-app, type over 32 characters or empty, wrong types: 422 on each field', async () => {
    const response = await w.t.request('POST', path(app, 'listPets'), {
      token: w.owner.token,
      body: { html: 'x', template_format: 'jinja', type: 'x'.repeat(33), is_default: 'yes' },
    })
    expect(response.status).toBe(422)
    const locs = (response.body.detail as { loc: string[] }[]).map((d) => d.loc.join('.'))
    expect(locs).toEqual(expect.arrayContaining(['body.template_format', 'body.type', 'body.is_default']))
    const empty = await w.t.request('POST', path(app, 'listPets'), { token: w.owner.token, body: { html: 'x', type: '' } })
    expect(empty.status).toBe(422)
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    const put = await w.t.request('PUT', one(app, t.id), { token: w.owner.token, body: { template_format: 'html' } })
    expect(put.status).toBe(422)
    expect(put.body.detail[0].loc).toEqual(['body', 'template_format'])
  })

  test('CSP domains that could break out of a CSP directive are refused', async () => {
    for (const domain of ['https://a.com; script-src *', "'unsafe-inline'", 'javascript:alert(1)', 'https://a.com, https://b.com', '*']) {
      const response = await w.t.request('POST', path(app, 'listPets'), { token: w.owner.token, body: { html: 'x', csp_config: { connectDomains: [domain] } } })
      expect(response.status).toBe(422)
      // csp_config may also be null: a value matching neither shape is located at the field.
      expect(response.body.detail[0].loc).toEqual(['body', 'csp_config'])
    }
    const meta = await w.t.request('POST', path(app, 'listPets'), {
      token: w.owner.token,
      body: { html: 'x', ui_meta: { csp: { resourceDomains: ['https://ok.example.com', 'bad value'] }, prefersBorder: 'no' } },
    })
    expect(meta.status).toBe(422)
    expect(meta.body.detail[0].loc).toEqual(['body', 'ui_meta'])
    const fine = await w.t.request('POST', path(app, 'listPets'), {
      token: w.owner.token,
      body: { html: 'x', csp_config: { connectDomains: ['https://api.example.com:8443/v1', 'wss://live.example.com', 'http://localhost:3000'] } },
    })
    expect(fine.status).toBe(201)
  })

  test('an operation holds at most 50 templates (409)', async () => {
    const crowded = await ownedApplication(w)
    for (let i = 0; i < 50; i++) await createTemplate(w, w.owner.token, crowded, 'deletePet')
    const refused = await w.t.request('POST', path(crowded, 'deletePet'), { token: w.owner.token, body: { html: 'x' } })
    expect(refused.status).toBe(409)
  })
})

describe('audit and deletion', () => {
  test('writes are audited without the HTML; deleting the application deletes its templates', async () => {
    const gone = await ownedApplication(w)
    const t = await createTemplate(w, w.owner.token, gone, 'listPets')
    await w.t.request('PUT', one(gone, t.id), { token: w.owner.token, body: { type: 'card' } })
    await w.t.request('DELETE', one(gone, t.id), { token: w.owner.token })
    const audit = (await w.t.request('GET', '/api/audit?limit=200', { token: w.admin })).body as { items?: unknown[] } | unknown[]
    const entries = (Array.isArray(audit) ? audit : (audit as { items: unknown[] }).items) as {
      action: string
      target_id: string
      details: Record<string, unknown>
    }[]
    const mine = entries.filter((e) => e.target_id === t.id)
    expect(mine.map((e) => e.action).sort()).toEqual(['template.create', 'template.delete', 'template.update'])
    expect(JSON.stringify(mine)).not.toContain('<h1>')
    const kept = await createTemplate(w, w.owner.token, gone, 'listPets')
    expect((await w.t.request('DELETE', `/api/applications/${gone}`, { token: w.owner.token })).status).toBe(204)
    const rows = await w.t.server.database.db.selectFrom('ui_templates').select('id').where('id', '=', kept.id).execute()
    expect(rows).toEqual([])
  })
})
