// Bundles end to end: export a version, import it (here and on a second server), and the round trip gives the same files.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { petstore, uploadSpec } from '../applications/helpers.ts'
import { startWithPeople, type Person } from '../helpers/people.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { exportBytes, filesOf, importBundle, makeAgent, sha256 } from './helpers.ts'

let t: TestServer
let admin: string
let owner: Person
let viewer: Person
let outsider: Person

beforeAll(async () => {
  ;({ t, admin, owner, viewer, outsider } = await startWithPeople({ now: '2026-05-01T09:00:00.000Z' }))
  await makeAgent(t, owner.token, 'pets')
  expect((await t.request('POST', '/api/agents/pets/members', { token: owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })).status).toBe(201)
})
afterAll(() => t.close())

const withoutManifest = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).filter(([path]) => path !== 'manifest.json'))

describe('GET /api/agents/{name}/export', () => {
  test('the bundle: manifest (format, version, agentbox_version, every file with its SHA-256), agent.json, skills, workflows, the document as uploaded', async () => {
    const res = await exportBytes(t, owner.token, 'pets')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/zip')
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="pets-v1.zip"')
    const files = filesOf(res.bytes)
    const manifest = JSON.parse(files['manifest.json']!)
    expect(manifest).toMatchObject({ format: 'agentbox-bundle', format_version: 1, agent: 'pets', version: 1, exported_at: '2026-05-01T09:00:00.000Z' })
    expect(typeof manifest.agentbox_version).toBe('string')
    const paths = Object.keys(files).sort()
    expect(paths.filter((path) => !path.startsWith('workflows/'))).toEqual([
      'agent.json',
      'applications/pet-store/openapi.json',
      'manifest.json',
      'skills/adoption/SKILL.md',
      'skills/pet-care/SKILL.md',
    ])
    expect(paths.filter((path) => path.startsWith('workflows/'))).toHaveLength(2)
    for (const [path, content] of Object.entries(withoutManifest(files))) expect(manifest.files[path]).toBe(sha256(content))
    expect(Object.keys(manifest.files).sort()).toEqual(paths.filter((path) => path !== 'manifest.json'))
    expect(JSON.parse(files['applications/pet-store/openapi.json']!)).toEqual(petstore())
    const agent = JSON.parse(files['agent.json']!)
    expect(agent).toMatchObject({ description: 'The pets agent', instructions: 'Help with pets.', skills: ['pet-care', 'adoption'] })
    expect(agent.applications).toEqual([{ api_name: 'pet-store', operation_ids: ['listPets'] }])
    const workflow = JSON.parse(files[`workflows/${agent.workflows[0]}.json`]!)
    expect(Object.keys(workflow)).toEqual(['id', 'name', 'definition'])
    expect(workflow.definition.nodes.map((node: { type: string }) => node.type)).toContain('agentbox.approval')
  })

  test('the same state exports the same bytes; entries are in path order with a fixed time stamp', async () => {
    const [a, b] = [await exportBytes(t, owner.token, 'pets'), await exportBytes(t, owner.token, 'pets')]
    expect(Buffer.compare(a.bytes, b.bytes)).toBe(0)
    const names = Object.keys(filesOf(a.bytes))
    expect(names).toEqual([...names].sort())
  })

  test('never a credential, token or run: a connected key and a finished run leave no trace in the bundle', async () => {
    const secret = 'sk-live-bundle-must-not-carry-this'
    expect(
      (await t.request('PUT', '/api/applications/pet-store/credentials', { token: owner.token, body: { scheme: 'api_key', api_key: secret } })).status,
    ).toBe(200)
    const workflows = await t.request('GET', '/api/workflows/pets', { token: owner.token })
    const run = await t.request('POST', `/api/workflows/pets/${workflows.body[0].id}/run`, { token: owner.token, body: { input: { amount: 'run-input-42' } } })
    expect(run.body.status).toBe('waiting_human')
    const text = Object.values(filesOf((await exportBytes(t, owner.token, 'pets')).bytes)).join('\n')
    for (const needle of [secret, 'run-input-42', run.body.run_id, owner.token, owner.id]) expect(text).not.toContain(needle)
  })

  test('version=draft and version=N for owners; live for viewers and admins; the draft is 403 for a viewer, the agent 404 for an outsider', async () => {
    expect((await t.request('PATCH', '/api/agents/pets', { token: owner.token, body: { instructions: 'Draft instructions.' } })).status).toBe(200)
    const draft = filesOf((await exportBytes(t, owner.token, 'pets', 'draft')).bytes)
    expect(JSON.parse(draft['agent.json']!).instructions).toBe('Draft instructions.')
    expect(JSON.parse(draft['manifest.json']!).version).toBe('draft')
    const v1 = filesOf((await exportBytes(t, owner.token, 'pets', '1')).bytes)
    expect(JSON.parse(v1['agent.json']!).instructions).toBe('Help with pets.')
    expect((await exportBytes(t, admin, 'pets', 'live')).status).toBe(200)
    expect((await t.request('GET', '/api/agents/pets/export?version=draft', { token: viewer.token })).body).toEqual({
      detail: 'Only owners can see the draft and versions of this agent',
    })
    expect((await t.request('GET', '/api/agents/pets/export?version=1', { token: viewer.token })).status).toBe(403)
    expect((await t.request('GET', '/api/agents/pets/export', { token: outsider.token })).status).toBe(404)
    expect((await t.request('PATCH', '/api/agents/pets', { token: owner.token, body: { instructions: 'Help with pets.' } })).status).toBe(200)
  })

  test('unknown version 404, a version that is not live/draft/N 422 on query.version, no live version 409, no token 401', async () => {
    expect((await t.request('GET', '/api/agents/pets/export?version=9', { token: owner.token })).body).toEqual({ detail: 'Version not found' })
    const bad = await t.request('GET', '/api/agents/pets/export?version=latest', { token: owner.token })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['query', 'version'])
    expect((await t.request('POST', '/api/agents', { token: owner.token, body: { name: 'unpublished', description: 'd', instructions: 'i' } })).status).toBe(
      201,
    )
    const none = await t.request('GET', '/api/agents/unpublished/export', { token: owner.token })
    expect(none.status).toBe(409)
    expect(none.body.detail).toContain('version=draft')
    expect((await exportBytes(t, owner.token, 'unpublished', 'draft')).status).toBe(200)
    expect((await t.request('GET', '/api/agents/pets/export')).status).toBe(401)
  })

  test("an application the exporter cannot see is 409 naming it (the viewer cannot see the owner's private application)", async () => {
    const res = await t.request('GET', '/api/agents/pets/export', { token: viewer.token })
    // The viewer uses the agent but cannot see pet-store (private to its uploader): the bundle cannot carry it for them.
    expect(res.status).toBe(409)
    expect(res.body.detail).toContain("'pet-store'")
  })
})

describe('POST /api/agents/import', () => {
  test('export → import on another server → export gives the same files, byte for byte', async () => {
    const first = filesOf((await exportBytes(t, owner.token, 'pets')).bytes)
    const other = await startTestServer()
    try {
      const { adminToken } = await other.provision()
      const res = await importBundle(other, adminToken, (await exportBytes(t, owner.token, 'pets')).bytes)
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ name: 'pets', live_version: 1, has_unpublished_changes: false, role: 'owner' })
      expect(res.body.imported).toMatchObject({ agent: 'pets', action: 'create', version: 1, skills: ['pet-care', 'adoption'] })
      expect(res.body.imported.applications).toEqual([
        {
          bundle_api_name: 'pet-store',
          api_name: 'pet-store',
          action: 'create',
          sha256: sha256(first['applications/pet-store/openapi.json']!),
          operations_count: 4,
        },
      ])
      const second = filesOf((await exportBytes(other, adminToken, 'pets')).bytes)
      expect(withoutManifest(second)).toEqual(withoutManifest(first))
      expect(JSON.parse(second['manifest.json']!).files).toEqual(JSON.parse(first['manifest.json']!).files)
      // The imported workflow runs: the gate waits for a human.
      const workflowId = JSON.parse(second['agent.json']!).workflows[0]
      const run = await other.request('POST', `/api/workflows/pets/${workflowId}/run`, { token: adminToken, body: { input: { amount: 5 } } })
      expect(run.body.status).toBe('waiting_human')
      // The application came with its document: the same bytes are served back.
      const document = await other.request('GET', '/api/applications/pet-store/document', { token: adminToken })
      expect(document.body).toEqual(petstore())
    } finally {
      await other.close()
    }
  })

  test('a taken name: fail (default) is 409 and changes nothing; rename imports as name-2; name= imports under the given name', async () => {
    const bytes = (await exportBytes(t, owner.token, 'pets')).bytes
    const taken = await importBundle(t, owner.token, bytes)
    expect(taken.status).toBe(409)
    expect(taken.body.detail).toContain("An agent named 'pets' already exists")
    const renamed = await importBundle(t, owner.token, bytes, { on_conflict: 'rename' })
    expect(renamed.status).toBe(201)
    expect(renamed.body.name).toBe('pets-2')
    expect(renamed.body.imported.applications[0]).toMatchObject({ api_name: 'pet-store', action: 'reuse' })
    const named = await importBundle(t, owner.token, bytes, { name: 'Pet Helper' })
    expect(named.status).toBe(201)
    expect(named.body.name).toBe('pet-helper')
    // global_spec is for admins whether or not the bundle's applications are new (here pet-store would be reused).
    expect((await importBundle(t, owner.token, bytes, { on_conflict: 'rename', global_spec: 'true' })).status).toBe(403)
    const badName = await importBundle(t, owner.token, bytes, { name: '!!!' })
    expect(badName.status).toBe(422)
    expect(badName.body.detail[0].loc).toEqual(['body', 'name'])
  })

  test('replace publishes the bundle as the next version of the agent, history kept, skill ids kept; identical content publishes nothing', async () => {
    const before = await t.request('GET', '/api/agents/pets/skills', { token: owner.token })
    const v1 = (await exportBytes(t, owner.token, 'pets')).bytes
    expect((await t.request('PATCH', '/api/agents/pets', { token: owner.token, body: { instructions: 'Changed.' } })).status).toBe(200)
    expect((await t.request('POST', '/api/agents/pets/publish', { token: owner.token, body: {} })).status).toBe(201)
    const replaced = await importBundle(t, owner.token, v1, { on_conflict: 'replace' })
    expect(replaced.status).toBe(201)
    expect(replaced.body).toMatchObject({ name: 'pets', live_version: 3, instructions: 'Help with pets.', has_unpublished_changes: false })
    expect(replaced.body.imported).toMatchObject({ action: 'replace', version: 3 })
    const versions = await t.request('GET', '/api/agents/pets/versions', { token: owner.token })
    expect(versions.body.map((v: { version: number }) => v.version)).toEqual([3, 2, 1])
    const after = await t.request('GET', '/api/agents/pets/skills', { token: owner.token })
    expect(after.body.map((s: { id: string }) => s.id)).toEqual(before.body.map((s: { id: string }) => s.id))
    const again = await importBundle(t, owner.token, v1, { on_conflict: 'replace' })
    expect(again.status).toBe(201)
    expect(again.body.imported.version).toBeNull()
    expect(again.body.live_version).toBe(3)
  })

  test('replace by a viewer is 403; by someone who cannot see the agent it is only a taken name (409)', async () => {
    const bytes = (await exportBytes(t, owner.token, 'pets')).bytes
    const byViewer = await importBundle(t, viewer.token, bytes, { on_conflict: 'replace' })
    expect(byViewer.status).toBe(403)
    const byOutsider = await importBundle(t, outsider.token, bytes, { on_conflict: 'replace' })
    expect(byOutsider.status).toBe(409)
  })

  test('an application of that name with another document is imported under a suffixed name, reported; a member gets it private; global_spec is for admins', async () => {
    const other = await startTestServer()
    try {
      const { adminToken } = await other.provision()
      const member = await other.createUser(adminToken, { email: 'member@example.com' })
      const changed = { ...petstore(), info: { ...petstore().info, description: 'Another pet store' } }
      expect((await uploadSpec(other, adminToken, changed)).status).toBe(201)
      const bytes = (await exportBytes(t, owner.token, 'pets')).bytes
      const asMemberGlobal = await importBundle(other, member.token, bytes, { global_spec: 'true' })
      expect(asMemberGlobal.status).toBe(403)
      const res = await importBundle(other, member.token, bytes)
      expect(res.status).toBe(201)
      expect(res.body.imported.applications[0]).toMatchObject({ bundle_api_name: 'pet-store', api_name: 'pet-store-2', action: 'create' })
      expect(res.body.applications).toEqual([{ api_name: 'pet-store-2', operation_ids: ['listPets'] }])
      const app = await other.request('GET', '/api/applications/pet-store-2', { token: member.token })
      expect(app.body.global_spec).toBe(false)
      // A second import of the same bundle reuses what the first one created.
      const again = await importBundle(other, member.token, bytes, { on_conflict: 'rename' })
      expect(again.body.imported.applications[0]).toMatchObject({ api_name: 'pet-store-2', action: 'reuse' })
    } finally {
      await other.close()
    }
  })

  test('dry_run=true answers 200 with the plan and keeps nothing', async () => {
    const bytes = (await exportBytes(t, owner.token, 'pets')).bytes
    const agentsBefore = (await t.request('GET', '/api/agents', { token: admin })).body.length
    const auditBefore = (await t.request('GET', '/api/audit', { token: admin })).body
    const res = await importBundle(t, owner.token, bytes, { name: 'dry-pets' }, '?dry_run=true')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ dry_run: true, plan: { agent: 'dry-pets', action: 'create', version: 1 } })
    expect((await t.request('GET', '/api/agents', { token: admin })).body.length).toBe(agentsBefore)
    expect((await t.request('GET', '/api/agents/dry-pets', { token: owner.token })).status).toBe(404)
    expect((await t.request('GET', '/api/audit', { token: admin })).body).toEqual(auditBefore)
  })

  test('a failure late in the import (an operation the new application lacks, found after it was stored) leaves nothing behind', async () => {
    const other = await startTestServer()
    try {
      const { adminToken } = await other.provision()
      const files = filesOf((await exportBytes(t, owner.token, 'pets')).bytes)
      const agent = JSON.parse(files['agent.json']!)
      agent.applications = [{ api_name: 'pet-store', operation_ids: ['listPets', 'noSuchOperation'] }]
      const { craftBundle } = await import('./craft-bundle.ts')
      const res = await importBundle(other, adminToken, craftBundle({ ...files, 'agent.json': JSON.stringify(agent) }, { agent: 'pets' }))
      expect(res.status).toBe(422)
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], ctx: { path: 'agent.json', loc: ['applications', 0, 'operation_ids', 1] } })
      expect((await other.request('GET', '/api/agents', { token: adminToken })).body).toEqual([])
      expect((await other.request('GET', '/api/applications', { token: adminToken })).body).toEqual([])
      const audit = (await other.request('GET', '/api/audit', { token: adminToken })).body
      expect(audit.map((entry: { action: string }) => entry.action).filter((action: string) => /application|agent/.test(action))).toEqual([])
    } finally {
      await other.close()
    }
  })
})
