// An agent bundle carries its applications' UI templates (applications/<api_name>/templates/<operation_id>/<id>.html and
// .json): export writes them, import on another server stores them with the new application (export again: the same
// files), a reused application keeps its own, a suffixed copy gets fresh ids, and bad template files are refused with
// the file named, leaving nothing behind.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { petstore } from '../applications/helpers.ts'
import { type Person, startWithPeople } from '../helpers/people.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { craftBundle } from './craft-bundle.ts'
import { exportBytes, filesOf, importBundle, makeAgent } from './helpers.ts'

let t: TestServer
let owner: Person
const ids: { main: string; other: string; create: string } = { main: '', other: '', create: '' }
const html = (title: string) => `<!doctype html><html><body><h1>${title}</h1></body></html>\n`

beforeAll(async () => {
  ;({ t, owner } = await startWithPeople())
  await makeAgent(t, owner.token, 'pets')
  const create = async (operation: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', `/api/ui-templates/pet-store/operations/${operation}`, { token: owner.token, body })
    expect(res.status).toBe(201)
    return res.body.id as string
  }
  ids.main = await create('listPets', {
    html: html('Pets'),
    is_default: true,
    csp_config: { connectDomains: ['https://api.example.com'] },
    ui_meta: { prefersBorder: true, permissions: { clipboardWrite: {} } },
  })
  ids.other = await create('listPets', { html: html('Pets, compact'), type: 'compact' })
  ids.create = await create('createPet', { html: html('New pet') })
})
afterAll(() => t.close())

const templateFiles = (files: Record<string, string>) => Object.keys(files).filter((path) => path.includes('/templates/'))
const templatesOf = async (server: TestServer, token: string, apiName: string, operation: string) =>
  (await server.request('GET', `/api/ui-templates/${apiName}/operations/${operation}`, { token })).body.templates as {
    id: string
    html: string
    is_default: boolean
    type: string
    csp_config: unknown
    ui_meta: unknown
  }[]

describe('templates in agent bundles', () => {
  test('export writes every template of the application as .html and .json, by operation and id', async () => {
    const files = filesOf((await exportBytes(t, owner.token, 'pets')).bytes)
    const folder = 'applications/pet-store/templates'
    expect(templateFiles(files).sort()).toEqual(
      [
        `${folder}/createPet/${ids.create}.html`,
        `${folder}/createPet/${ids.create}.json`,
        `${folder}/listPets/${ids.main}.html`,
        `${folder}/listPets/${ids.main}.json`,
        `${folder}/listPets/${ids.other}.html`,
        `${folder}/listPets/${ids.other}.json`,
      ].sort(),
    )
    expect(files[`${folder}/listPets/${ids.main}.html`]).toBe(html('Pets'))
    expect(JSON.parse(files[`${folder}/listPets/${ids.main}.json`]!)).toEqual({
      type: 'result',
      is_default: true,
      template_format: 'mcp-app',
      csp_config: { connectDomains: ['https://api.example.com'] },
      ui_meta: { prefersBorder: true, permissions: { clipboardWrite: {} } },
    })
  })

  test('import on another server stores them with the application; exporting there gives the same files', async () => {
    const first = filesOf((await exportBytes(t, owner.token, 'pets')).bytes)
    const other = await startTestServer()
    try {
      const { adminToken } = await other.provision()
      const res = await importBundle(other, adminToken, (await exportBytes(t, owner.token, 'pets')).bytes)
      expect(res.status).toBe(201)
      const listed = await templatesOf(other, adminToken, 'pet-store', 'listPets')
      expect(listed.map((template) => [template.id, template.is_default, template.type])).toEqual([
        [ids.main, true, 'result'],
        [ids.other, false, 'compact'],
      ])
      expect(listed[0]).toMatchObject({ html: html('Pets'), csp_config: { connectDomains: ['https://api.example.com'] }, ui_meta: { prefersBorder: true } })
      expect((await templatesOf(other, adminToken, 'pet-store', 'createPet')).map((template) => template.id)).toEqual([ids.create])
      const second = filesOf((await exportBytes(other, adminToken, 'pets')).bytes)
      for (const path of templateFiles(first)) expect(second[path]).toBe(first[path])
      expect(templateFiles(second).sort()).toEqual(templateFiles(first).sort())
    } finally {
      await other.close()
    }
  })

  test('a reused application keeps its own templates; a suffixed copy (another document) gets the templates under fresh ids', async () => {
    const bytes = (await exportBytes(t, owner.token, 'pets')).bytes
    const reused = await importBundle(t, owner.token, bytes, { name: 'pets-again' })
    expect(reused.status).toBe(201)
    expect(reused.body.imported.applications[0]).toMatchObject({ api_name: 'pet-store', action: 'reuse' })
    expect((await templatesOf(t, owner.token, 'pet-store', 'listPets')).map((template) => template.id)).toEqual([ids.main, ids.other])

    const files = filesOf(bytes)
    const changed = { ...petstore(), info: { ...petstore().info, description: 'Another pet store' } }
    const copy = await importBundle(
      t,
      owner.token,
      craftBundle({ ...files, 'applications/pet-store/openapi.json': JSON.stringify(changed) }, { agent: 'pets' }),
      { name: 'pets-copy' },
    )
    expect(copy.status).toBe(201)
    expect(copy.body.imported.applications[0]).toMatchObject({ api_name: 'pet-store-2', action: 'create' })
    const copied = await templatesOf(t, owner.token, 'pet-store-2', 'listPets')
    expect(copied.map((template) => [template.html, template.is_default])).toEqual([
      [html('Pets'), true],
      [html('Pets, compact'), false],
    ])
    expect(copied.map((template) => template.id)).not.toContain(ids.main)
    expect(copied.map((template) => template.id)).not.toContain(ids.other)
    // The originals are untouched.
    expect((await t.request('GET', `/api/ui-templates/pet-store/templates/${ids.main}`, { token: owner.token })).body.html).toBe(html('Pets'))
  })

  test('bad template files are refused with the file named (422 on the upload) and nothing is stored', async () => {
    const files = filesOf((await exportBytes(t, owner.token, 'pets')).bytes)
    const folder = 'applications/pet-store/templates'
    const changed = JSON.stringify({ ...petstore(), info: { ...petstore().info, description: 'A third pet store' } })
    const other = { ...files, 'applications/pet-store/openapi.json': changed }
    const id = '0190d1c4-0000-7000-8000-00000000abcd'
    const cases: [Record<string, string>, string, string][] = [
      [
        { [`${folder}/listPets/${id}.html`]: html('x'), [`${folder}/listPets/${id}.json`]: '{"template_format":"jinja"}' },
        `${folder}/listPets/${id}.json`,
        'template_format',
      ],
      [{ [`${folder}/listPets/${id}.html`]: html('x') }, `${folder}/listPets/${id}.json`, 'both'],
      [{ [`${folder}/listPets/not-an-id.html`]: html('x') }, `${folder}/listPets/not-an-id.html`, 'templates/<operation_id>'],
      [{ [`${folder}/listPets/${id}.html`]: html('x'), [`${folder}/listPets/${id}.json`]: '{"is_default":true}' }, `${folder}/listPets`, 'default'],
      [{ [`${folder}/noSuchOperation/${id}.html`]: html('x'), [`${folder}/noSuchOperation/${id}.json`]: '{}' }, `${folder}/noSuchOperation`, 'no operation'],
    ]
    for (const [extra, path, words] of cases) {
      const res = await importBundle(t, owner.token, craftBundle({ ...other, ...extra }, { agent: 'pets' }), { name: 'pets-bad' })
      expect(res.status).toBe(422)
      const issue = (res.body.detail as { loc: string[]; msg: string; ctx: { path: string } }[]).find((d) => d.ctx.path === path)
      expect(issue).toBeDefined()
      expect(issue!.loc).toEqual(['body', 'file'])
      expect(issue!.msg).toContain(words)
    }
    // The unknown operation is found once the application is stored: the whole import rolled back.
    expect((await t.request('GET', '/api/applications/pet-store-3', { token: owner.token })).status).toBe(404)
    expect((await t.request('GET', '/api/agents/pets-bad', { token: owner.token })).status).toBe(404)
  })
})
