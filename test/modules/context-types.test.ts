// Context types (CONTRACT §8): list, create, get, replace, delete; unique names per tenant, created_by, who may change them.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { explain, planSorts, planUsesIndex } from '../../src/platform/db/query-plan.ts'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let orgToken: string
beforeEach(async () => {
  t = await startTestServer({ now: '2026-11-21T10:00:00.000Z' })
  ;({ adminToken, orgToken } = await t.provision())
})
afterEach(() => t.close())

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const invoice = {
  name: 'Invoice',
  summary: 'A supplier invoice',
  description: 'PDF or e-mail with totals',
  when_to_use: 'When the user asks about payments',
  how_to_generate: 'Extract supplier, total, due date',
}

const create = (body: unknown, token = adminToken) => t.request('POST', '/api/context-type', { token, body })

describe('POST /api/context-type', () => {
  test("creates (201) with every field, created_by the caller's e-mail and ISO timestamps", async () => {
    const res = await create(invoice)
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(String),
      ...invoice,
      created_by: ADMIN.email,
      created_at: '2026-11-21T10:00:00.000Z',
      updated_at: '2026-11-21T10:00:00.000Z',
    })
    expect(res.body.created_at).toMatch(ISO)
    expect((await t.request('GET', `/api/context-type/${res.body.id}`, { token: adminToken })).body).toEqual(res.body)
  })

  test('only name is required; omitted texts are empty strings; the name is trimmed', async () => {
    const res = await create({ name: '  Meeting notes ' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ name: 'Meeting notes', summary: '', description: '', when_to_use: '', how_to_generate: '' })
  })

  test('members create too, and are named as creator', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const res = await create({ name: 'Ticket' }, member.token)
    expect(res.status).toBe(201)
    expect(res.body.created_by).toBe('m@example.com')
  })

  test('a name taken in the tenant, in any case or with spaces around, is 409', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    expect((await create(invoice)).status).toBe(201)
    for (const name of ['Invoice', 'INVOICE', ' invoice ']) {
      const dup = await create({ name }, member.token)
      expect(dup.status).toBe(409)
      expect(dup.body).toEqual({ detail: 'A context type with this name already exists' })
    }
    expect((await t.request('GET', '/api/context-type', { token: adminToken })).body).toHaveLength(1)
  })

  test('a missing, empty, blank, too long or mistyped name is 422; mistyped texts too, all at once', async () => {
    expect((await create({ summary: 'x' })).body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'missing' })])
    expect((await create({ name: '' })).body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_too_short' })])
    expect((await create({ name: '   ' })).body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_too_short' })])
    expect((await create({ name: 'x'.repeat(201) })).body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'string_too_long' })])
    const res = await create({ name: 5, summary: 1, description: [], when_to_use: {}, how_to_generate: true })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc[1], d.type]).sort()).toEqual([
      ['description', 'string_type'],
      ['how_to_generate', 'string_type'],
      ['name', 'string_type'],
      ['summary', 'string_type'],
      ['when_to_use', 'string_type'],
    ])
  })

  test('no token is 401, before the body is looked at', async () => {
    const res = await t.request('POST', '/api/context-type', { body: { name: 5 } })
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('Bearer')
  })
})

describe('GET /api/context-type', () => {
  test('is an array of every context type in the tenant, by name ignoring case, for any member', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    await create({ name: 'ticket' })
    await create({ name: 'Invoice' }, member.token)
    await create({ name: 'contract' }, orgToken)
    const res = await t.request('GET', '/api/context-type', { token: member.token })
    expect(res.status).toBe(200)
    expect(res.body.map((c: any) => c.name)).toEqual(['contract', 'Invoice', 'ticket'])
    expect(res.body[1]).toEqual({
      id: expect.any(String),
      name: 'Invoice',
      summary: '',
      description: '',
      when_to_use: '',
      how_to_generate: '',
      created_by: 'm@example.com',
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    })
  })

  test('is an empty array when there are none; 401 without a token', async () => {
    expect((await t.request('GET', '/api/context-type', { token: adminToken })).body).toEqual([])
    expect((await t.request('GET', '/api/context-type')).status).toBe(401)
  })

  test('the list is served by the unique name index', async () => {
    const orderBy = t.server.database.kind === 'sqlite' ? 'name' : 'lower(name)'
    const plan = await explain(t.server.database, `SELECT id FROM context_types ORDER BY ${orderBy}`)
    expect(planUsesIndex(plan, 'context_types_name')).toBe(true)
    expect(planSorts(plan)).toBe(false)
  })
})

describe('GET, PUT, DELETE /api/context-type/{id}', () => {
  test('an unknown id is 404 Context type not found on get, replace and delete', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await t.request(method, '/api/context-type/01900000-0000-7000-8000-000000000000', {
        token: adminToken,
        body: method === 'PUT' ? { name: 'x' } : undefined,
      })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Context type not found' })
    }
  })

  test('PUT replaces every field (omitted texts become empty), keeps id, creator and created_at, moves updated_at', async () => {
    const { body: created } = await create(invoice)
    t.clock.advance(60_000)
    const res = await t.request('PUT', `/api/context-type/${created.id}`, { token: adminToken, body: { name: 'Bill', summary: 'Renamed' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ...created,
      name: 'Bill',
      summary: 'Renamed',
      description: '',
      when_to_use: '',
      how_to_generate: '',
      updated_at: '2026-11-21T10:01:00.000Z',
    })
    expect((await t.request('GET', `/api/context-type/${created.id}`, { token: adminToken })).body).toEqual(res.body)
  })

  test("PUT may keep its own name in another case, but not take another type's name (409)", async () => {
    const { body: a } = await create({ name: 'Invoice' })
    await create({ name: 'Ticket' })
    expect((await t.request('PUT', `/api/context-type/${a.id}`, { token: adminToken, body: { name: 'INVOICE' } })).body.name).toBe('INVOICE')
    const taken = await t.request('PUT', `/api/context-type/${a.id}`, { token: adminToken, body: { name: 'ticket' } })
    expect(taken.status).toBe(409)
    expect(taken.body).toEqual({ detail: 'A context type with this name already exists' })
  })

  test('PUT validates like create (422)', async () => {
    const { body: a } = await create({ name: 'Invoice' })
    const res = await t.request('PUT', `/api/context-type/${a.id}`, { token: adminToken, body: { summary: 'no name' } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'missing' })])
  })

  test('DELETE answers 204; the type is gone and its name is free again', async () => {
    const { body: a } = await create(invoice)
    const res = await t.request('DELETE', `/api/context-type/${a.id}`, { token: adminToken })
    expect(res.status).toBe(204)
    expect((await t.request('GET', `/api/context-type/${a.id}`, { token: adminToken })).status).toBe(404)
    expect((await t.request('DELETE', `/api/context-type/${a.id}`, { token: adminToken })).status).toBe(404)
    expect((await create(invoice)).status).toBe(201)
  })

  test('the creator and admins may replace or delete; another member gets 403 and may still read it', async () => {
    const owner = await t.createUser(adminToken, { email: 'owner@example.com' })
    const other = await t.createUser(adminToken, { email: 'other@example.com' })
    const { body: a } = await create({ name: 'Invoice' }, owner.token)
    expect((await t.request('GET', `/api/context-type/${a.id}`, { token: other.token })).status).toBe(200)
    const put = await t.request('PUT', `/api/context-type/${a.id}`, { token: other.token, body: { name: 'Mine now' } })
    expect(put.status).toBe(403)
    expect(put.body).toEqual({ detail: 'Only the creator or an admin may change a context type' })
    expect((await t.request('DELETE', `/api/context-type/${a.id}`, { token: other.token })).status).toBe(403)
    expect((await t.request('PUT', `/api/context-type/${a.id}`, { token: owner.token, body: { name: 'Invoice v2' } })).status).toBe(200)
    expect((await t.request('PUT', `/api/context-type/${a.id}`, { token: adminToken, body: { name: 'Invoice v3' } })).status).toBe(200)
    expect((await t.request('DELETE', `/api/context-type/${a.id}`, { token: orgToken })).status).toBe(204)
  })

  test('no token is 401 on every route', async () => {
    const { body: a } = await create({ name: 'Invoice' })
    for (const method of ['GET', 'PUT', 'DELETE'])
      expect((await t.request(method, `/api/context-type/${a.id}`, { body: method === 'PUT' ? { name: 'x' } : undefined })).status).toBe(401)
  })
})

describe('the audit log', () => {
  test('creating, replacing and deleting a context type is recorded with who and which', async () => {
    const created = await create(invoice)
    const id = created.body.id
    await t.request('PUT', `/api/context-type/${id}`, { token: adminToken, body: { ...invoice, name: 'Bill' } })
    await t.request('DELETE', `/api/context-type/${id}`, { token: adminToken })
    // A refused change writes nothing.
    expect((await create(invoice, 'not-a-token')).status).toBe(401)
    const audit = await t.request('GET', '/api/audit?action=context_type.create', { token: adminToken })
    expect(audit.status).toBe(200)
    const entries = audit.body.items ?? audit.body
    expect(entries).toEqual([expect.objectContaining({ action: 'context_type.create', target_type: 'context_type', target_id: id })])
    for (const action of ['context_type.replace', 'context_type.delete']) {
      const res = await t.request('GET', `/api/audit?action=${action}`, { token: adminToken })
      expect((res.body.items ?? res.body).map((e: any) => e.target_id)).toEqual([id])
    }
  })
})
