// Importing API descriptions (POST /api/spec_from_file/): formats and versions, operations and their input schemas,
// scopes, names and revisions, and every way an upload can be wrong (CONTRACT §12).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { stringify as toYaml } from 'yaml'
import { startWithPeople, type People } from '../helpers/people.ts'
import { petstore, uploadSpec } from './helpers.ts'

let p: People
beforeAll(async () => {
  p = await startWithPeople()
})
afterAll(() => p.t.close())

let counter = 0
/** A fresh petstore under a unique name, so tests do not depend on each other. */
const freshName = () => `pets-${++counter}`

describe('formats and versions', () => {
  test('OpenAPI 3.0 JSON: 201 with the contract fields, operations in document order, scopes and schemes', async () => {
    const name = freshName()
    const res = await uploadSpec(p.t, p.owner.token, petstore(), { api_name: name })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      api_name: name,
      application_id: name,
      title: 'Pet Store',
      version: '1.2.0',
      openapi_version: '3.0.3',
      operations_count: 4,
      scopes: ['read:pets', 'write:pets'],
      security_schemes: [
        { name: 'api_key', type: 'apiKey', in: 'header', param_name: 'X-API-Key' },
        { name: 'basic', type: 'http', scheme: 'basic' },
        { name: 'oauth', type: 'oauth2' },
      ],
      global_spec: false,
      shared_security_info: false,
      create_mcp: false,
      mcp_url: null,
      warnings: [],
      revision: 1,
    })
    const ops = await p.t.request('GET', `/api/applications/${name}/operations`, { token: p.owner.token })
    expect(ops.body.map((op: any) => [op.operation_id, op.method, op.path])).toEqual([
      ['listPets', 'GET', '/pets'],
      ['createPet', 'POST', '/pets'],
      ['get_pets_petId', 'GET', '/pets/{petId}'],
      ['deletePet', 'DELETE', '/pets/{petId}'],
    ])
  })

  test('input schemas: parameters by name, clashing names prefixed by location, the body under `body`, recursion through $defs', async () => {
    const name = freshName()
    await uploadSpec(p.t, p.owner.token, petstore(), { api_name: name })
    const get = (id: string) => p.t.request('GET', `/api/applications/${name}/operations/${id}`, { token: p.owner.token })
    const clash = (await get('get_pets_petId')).body.input_schema
    expect(clash).toEqual({
      type: 'object',
      properties: { path_petId: { type: 'string' }, query_petId: { type: 'boolean', description: 'clashes with the path parameter' } },
      required: ['path_petId'],
      additionalProperties: false,
    })
    const create = (await get('createPet')).body
    expect(create.scopes).toEqual(['write:pets'])
    expect(create.input_schema.required).toEqual(['body'])
    // Pet refers to itself: it is defined once in $defs, never expanded; readOnly id is not asked for; nullable is a type union.
    const pet = create.input_schema.$defs.Pet
    expect(pet.properties.parent).toEqual({ $ref: '#/$defs/Pet' })
    expect(pet.properties.id).toBeUndefined()
    expect(pet.required).toEqual(['name'])
    expect(pet.properties.nickname.type).toEqual(['string', 'null'])
    expect(pet.properties.size).toEqual({ type: ['string', 'null'], enum: ['s', 'm', null] })
    // OpenAPI 3.0's boolean exclusiveMinimum is 2020-12's number.
    expect((await get('listPets')).body.input_schema.properties.limit).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 100 })
    expect(pet.properties.kind.oneOf).toHaveLength(2)
    expect(JSON.stringify(create.input_schema)).not.toContain('discriminator')
    expect(create.input_schema.properties.body.allOf[0]).toEqual({ $ref: '#/$defs/Pet' })
  })

  test('YAML is read like JSON', async () => {
    const name = freshName()
    const res = await uploadSpec(p.t, p.owner.token, toYaml(petstore()), { api_name: name }, 'spec.yaml')
    expect(res.status).toBe(201)
    expect(res.body.operations_count).toBe(4)
  })

  test('Swagger 2.0 is converted: servers from host and basePath, a file upload becomes a base64 body field, scopes from flows', async () => {
    const swagger = {
      swagger: '2.0',
      info: { title: 'Files API', version: '2' },
      host: 'files.example.com',
      basePath: '/v2',
      schemes: ['https'],
      securityDefinitions: {
        key: { type: 'apiKey', in: 'query', name: 'key' },
        oauth: { type: 'oauth2', flow: 'implicit', authorizationUrl: 'https://x.example.com', scopes: { 'files:write': 'Upload' } },
      },
      security: [{ key: [] }],
      paths: {
        '/files': {
          post: {
            operationId: 'upload',
            consumes: ['multipart/form-data'],
            parameters: [
              { name: 'file', in: 'formData', type: 'file', required: true },
              { name: 'note', in: 'formData', type: 'string' },
            ],
            security: [{ oauth: ['files:write'] }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
    }
    const res = await uploadSpec(p.t, p.admin, swagger, { api_name: freshName() })
    expect(res.status).toBe(201)
    expect(res.body.openapi_version).toBe('2.0')
    expect(res.body.scopes).toEqual(['files:write'])
    expect(res.body.security_schemes).toContainEqual({ name: 'key', type: 'apiKey', in: 'query', param_name: 'key' })
    const app = await p.t.request('GET', `/api/applications/${res.body.api_name}`, { token: p.admin })
    expect(app.body.server_url).toBe('https://files.example.com/v2')
    const op = await p.t.request('GET', `/api/applications/${res.body.api_name}/operations/upload`, { token: p.admin })
    expect(op.body.input_schema.properties.body.properties.file).toMatchObject({ type: 'string', contentEncoding: 'base64' })
  })

  test('the api_name is the kebab-case of info.title unless given', async () => {
    const doc = { ...petstore(), info: { title: 'Acme Billing API (v3)', version: '3' } }
    const res = await uploadSpec(p.t, p.owner.token, doc)
    expect(res.status).toBe(201)
    expect(res.body.api_name).toBe('acme-billing-api-v3')
  })
})

describe('operation ids', () => {
  test('kept when valid, else derived from method and path; collisions get a suffix; the same on every re-import', async () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 'Ids', version: '1' },
      paths: {
        '/a': { get: { operationId: 'repos/get', responses: {} }, post: { operationId: 'same', responses: {} } },
        '/b': { get: { operationId: 'same', responses: {} }, put: { operationId: 'x'.repeat(65), responses: {} } },
        '/c/{id}': { get: { responses: {} } },
        [`/${'long-segment/'.repeat(8)}end`]: { get: { responses: {} } },
      },
    }
    const name = freshName()
    const first = await uploadSpec(p.t, p.owner.token, doc, { api_name: name })
    expect(first.status).toBe(201)
    const ids = async () => (await p.t.request('GET', `/api/applications/${name}/operations`, { token: p.owner.token })).body.map((op: any) => op.operation_id)
    const before = await ids()
    expect(before.slice(0, 5)).toEqual(['get_a', 'same', 'same_2', 'put_b', 'get_c_id'])
    expect(before[5]).toMatch(/^get_long_segment_[a-z_]+_[0-9a-f]{8}$/)
    for (const id of before) expect(id).toMatch(/^[A-Za-z0-9_.-]{1,64}$/)
    expect(first.body.warnings.map((w: any) => w.message).join('\n')).toContain('same_2')
    expect((await uploadSpec(p.t, p.owner.token, doc, { api_name: name, replace: 'true' })).status).toBe(201)
    expect(await ids()).toEqual(before)
  })

  test('thousands of operations import, list and filter by tag', async () => {
    const paths: Record<string, unknown> = {}
    for (let i = 0; i < 2000; i++)
      paths[`/items/${i}/{id}`] = {
        get: {
          operationId: `item${i}`,
          tags: [i % 2 ? 'odd' : 'even'],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {},
        },
      }
    const name = freshName()
    const res = await uploadSpec(p.t, p.owner.token, { openapi: '3.0.0', info: { title: 'Big', version: '1' }, paths }, { api_name: name })
    expect(res.status).toBe(201)
    expect(res.body.operations_count).toBe(2000)
    const odd = await p.t.request('GET', `/api/applications/${name}/operations?tag=odd&limit=3&offset=1`, { token: p.owner.token })
    expect(odd.body.map((op: any) => op.operation_id)).toEqual(['item3', 'item5', 'item7'])
  })
})

describe('scopes', () => {
  test('declared and required scopes, sorted, with schemes and operations; [] when none; 404 when not visible', async () => {
    const name = freshName()
    const doc = petstore()
    ;(doc.paths['/pets'].get as any).security = [{ oidc: ['profile'] }, { oauth: ['read:pets'] }]
    ;(doc.components.securitySchemes as any).oidc = { type: 'openIdConnect', openIdConnectUrl: 'https://id.example.com/.well-known/openid-configuration' }
    await uploadSpec(p.t, p.owner.token, doc, { api_name: name })
    const scopes = await p.t.request('GET', `/api/spec/${name}/available_scopes`, { token: p.owner.token })
    expect(scopes.status).toBe(200)
    expect(scopes.body).toEqual([
      { scope: 'profile', description: '', security_schemes: ['oidc'], operations: ['listPets'] },
      { scope: 'read:pets', description: 'Read pets', security_schemes: ['oauth'], operations: ['listPets'] },
      { scope: 'write:pets', description: 'Change pets', security_schemes: ['oauth'], operations: ['createPet'] },
    ])
    expect((await p.t.request('GET', `/api/spec/${name}/available_scopes`, { token: p.outsider.token })).status).toBe(404)
    const plain = freshName()
    await uploadSpec(p.t, p.owner.token, { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: {} }, { api_name: plain })
    expect((await p.t.request('GET', `/api/spec/${plain}/available_scopes`, { token: p.owner.token })).body).toEqual([])
    expect((await p.t.request('GET', '/api/spec/nope/available_scopes', { token: p.owner.token })).status).toBe(404)
  })
})

describe('bad uploads get a clear answer and create nothing', () => {
  const invalid = async (document: unknown, filename = 'spec.json') => {
    const before = (await p.t.request('GET', '/api/applications', { token: p.admin })).body.length
    const res = await uploadSpec(p.t, p.admin, document, { api_name: freshName() }, filename)
    expect(res.status).toBe(422)
    expect(res.body.detail).toHaveLength(1)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'spec_invalid' })
    expect((await p.t.request('GET', '/api/applications', { token: p.admin })).body.length).toBe(before)
    return res.body.detail[0]
  }

  test('not a spec, truncated YAML or JSON, an unknown version, an empty file', async () => {
    expect((await invalid({ hello: 'world' })).msg).toContain('no "openapi" or "swagger"')
    expect((await invalid('openapi: 3.0.0\ninfo:\n  title: "unterminated\n', 'x.yaml')).msg).toContain('not valid YAML')
    expect((await invalid('{"openapi": "3.0.0", "info": {"title": ', 'x.json')).msg).toContain('not valid JSON')
    expect(await invalid({ openapi: '4.0.0', info: { title: 't', version: '1' }, paths: {} })).toMatchObject({ ctx: { pointer: '/openapi' } })
    expect(await invalid({ openapi: '3.0.0', paths: {} })).toMatchObject({ ctx: { pointer: '/info' } })
    expect((await invalid('   ', 'x.yaml')).msg).toBe('The file is empty')
    expect((await invalid('[1, 2]')).msg).toContain('top level is not an object')
  })

  test('external references are refused with their pointer, and nothing is fetched', async () => {
    const doc = petstore()
    ;(doc.components.schemas as any).Remote = { $ref: 'http://127.0.0.1:1/evil.json#/Pet' }
    expect(await invalid(doc)).toMatchObject({ ctx: { pointer: '/components/schemas/Remote/$ref' } })
    ;(doc.components.schemas as any).Remote = { $ref: 'other.yaml#/Pet' }
    expect((await invalid(doc)).msg).toContain('External reference')
  })

  test('a dangling internal reference and a broken parameter import with warnings', async () => {
    const doc = petstore()
    ;(doc.paths['/pets'].get.parameters as any[]).push({ $ref: '#/components/parameters/Missing' }, { in: 'query' })
    ;(doc.components.schemas.Pet.properties as any).ghost = { $ref: '#/components/schemas/Ghost' }
    const res = await uploadSpec(p.t, p.owner.token, doc, { api_name: freshName() })
    expect(res.status).toBe(201)
    const messages = res.body.warnings.map((w: any) => w.message).join('\n')
    expect(messages).toContain('#/components/schemas/Ghost does not resolve')
    expect(messages).toContain('without a name')
  })

  test('deeply nested JSON and an alias bomb are refused, not crashed on', async () => {
    expect((await invalid(`${'{"a":'.repeat(300)}1${'}'.repeat(300)}`)).msg).toContain('nests deeper')
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n')
    expect((await invalid(bomb, 'bomb.yaml')).msg).toContain('not valid YAML')
  })

  test('a file over 32 MiB is a 413 before it is read; a missing file is a 422', async () => {
    const res = await p.t.request('POST', '/api/spec_from_file/', {
      token: p.admin,
      rawBody: 'x',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(32 * 1024 * 1024 + 1) },
    })
    expect(res.status).toBe(413)
    // The same route without its trailing slash has the same cap: a 20 MiB declaration is not refused for size there.
    const noSlash = await p.t.request('POST', '/api/spec_from_file', {
      token: p.admin,
      rawBody: 'x',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(20 * 1024 * 1024) },
    })
    expect(noSlash.status).not.toBe(413)
    const form = new FormData()
    form.append('api_name', 'nofile')
    const encoded = new Response(form)
    const type = encoded.headers.get('content-type')!
    const bytes = new Uint8Array(await encoded.arrayBuffer())
    const missing = await p.t.request('POST', '/api/spec_from_file/', {
      token: p.admin,
      rawBody: bytes,
      headers: { 'content-type': type, 'content-length': String(bytes.length) },
    })
    expect(missing.status).toBe(422)
    expect(missing.body.detail[0].loc).toEqual(['body', 'file'])
  })

  test('an invalid api_name is a 422 on api_name; a taken one is a 409 unless replace', async () => {
    const bad = await uploadSpec(p.t, p.owner.token, petstore(), { api_name: 'bad/name' })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['body', 'api_name'])
    const name = freshName()
    expect((await uploadSpec(p.t, p.owner.token, petstore(), { api_name: name })).status).toBe(201)
    const taken = await uploadSpec(p.t, p.owner.token, petstore(), { api_name: name })
    expect(taken.status).toBe(409)
    expect(taken.body.detail).toContain('replace=true')
  })

  test('without a token: 401', async () => {
    expect((await uploadSpec(p.t, '', petstore())).status).toBe(401)
  })
})

describe('visibility, replace and changes', () => {
  test('a member may not make an application global (403); an admin may, and every member then sees it', async () => {
    expect((await uploadSpec(p.t, p.owner.token, petstore(), { api_name: freshName(), global_spec: 'true' })).status).toBe(403)
    const name = freshName()
    expect((await uploadSpec(p.t, p.admin, petstore(), { api_name: name, global_spec: 'true' })).status).toBe(201)
    expect((await p.t.request('GET', `/api/applications/${name}`, { token: p.outsider.token })).status).toBe(200)
    const mine = freshName()
    await uploadSpec(p.t, p.owner.token, petstore(), { api_name: mine })
    expect((await p.t.request('GET', `/api/applications/${mine}`, { token: p.outsider.token })).status).toBe(404)
    expect((await p.t.request('GET', `/api/applications/${mine}/operations`, { token: p.outsider.token })).status).toBe(404)
    expect((await p.t.request('GET', `/api/applications/${mine}`, { token: p.admin })).status).toBe(200)
    const listed = (await p.t.request('GET', '/api/applications', { token: p.outsider.token })).body.map((app: any) => app.api_name)
    expect(listed).toContain(name)
    expect(listed).not.toContain(mine)
  })

  test('replace: a new revision by the owner or an admin, flags kept unless sent; others get 403', async () => {
    const name = freshName()
    await uploadSpec(p.t, p.admin, petstore(), { api_name: name, global_spec: 'true', create_mcp: 'true' })
    const doc = petstore()
    delete (doc.paths as any)['/pets/{petId}']
    expect((await uploadSpec(p.t, p.owner.token, doc, { api_name: name, replace: 'true' })).status).toBe(403)
    const res = await uploadSpec(p.t, p.admin, doc, { api_name: name, replace: 'true' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ revision: 2, operations_count: 2, global_spec: true, create_mcp: true })
    expect(res.body.mcp_url).toBe(`http://localhost/app/${name}/mcp`)
    expect((await p.t.request('GET', `/api/applications/${name}/operations/deletePet`, { token: p.admin })).status).toBe(404)
  })

  test('PATCH: title, description, metadata.priority 1-10 with min_priority and q filters; base_url checked; owner or admin only', async () => {
    const name = freshName()
    await uploadSpec(p.t, p.owner.token, petstore(), { api_name: name })
    const patch = (body: unknown, token = p.owner.token) => p.t.request('PATCH', `/api/applications/${name}`, { token, body })
    const ok = await patch({ title: 'Pets (prod)', metadata: { priority: 8, team: 'ops' }, base_url: 'https://pets.example.com/api' })
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ title: 'Pets (prod)', metadata: { priority: 8, team: 'ops' }, base_url: 'https://pets.example.com/api' })
    for (const priority of [0, 11, 2.5, '5']) {
      const bad = await patch({ metadata: { priority } })
      expect(bad.status).toBe(422)
      expect(bad.body.detail[0].loc).toEqual(['body', 'metadata', 'priority'])
    }
    for (const base_url of [
      'ftp://x.example.com',
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/',
      'http://localhost:8080/',
      'http://user:pw@x.example.com/',
      'http://10.1.2.3/',
    ])
      expect(await patch({ base_url })).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'base_url'] }] } })
    expect((await patch({ title: 'x' }, p.outsider.token)).status).toBe(404)
    const listed = async (query: string, token = p.owner.token) =>
      (await p.t.request('GET', `/api/applications${query}`, { token })).body.map((app: any) => app.api_name)
    expect(await listed('?min_priority=8')).toEqual([name])
    expect(await listed('?min_priority=9')).toEqual([])
    expect(await listed('?q=PROD')).toEqual([name])
    expect((await p.t.request('GET', '/api/applications?min_priority=11', { token: p.owner.token })).status).toBe(422)
  })

  test('an admin opens a private address with outbound_allow; the base_url then saves', async () => {
    const name = freshName()
    await uploadSpec(p.t, p.owner.token, petstore(), { api_name: name })
    const bad = await p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { outbound_allow: ['10.0.0.0/33', 'ok.internal'] } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['body', 'outbound_allow', 0])
    const set = await p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { outbound_allow: ['10.0.0.0/8'] } })
    expect(set.body.outbound_allow).toEqual(['10.0.0.0/8'])
    expect((await p.t.request('PATCH', `/api/applications/${name}`, { token: p.owner.token, body: { base_url: 'http://10.1.2.3/' } })).status).toBe(200)
    await p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { outbound_allow: [] } })
  })

  test('DELETE: owner or admin (another member 403 once visible, 404 otherwise); the application and its operations are gone', async () => {
    const name = freshName()
    await uploadSpec(p.t, p.admin, petstore(), { api_name: name, global_spec: 'true' })
    expect((await p.t.request('DELETE', `/api/applications/${name}`, { token: p.owner.token })).status).toBe(403)
    expect((await p.t.request('DELETE', `/api/applications/${name}`, { token: p.admin })).status).toBe(204)
    expect((await p.t.request('GET', `/api/applications/${name}/operations`, { token: p.admin })).status).toBe(404)
    expect((await p.t.request('DELETE', `/api/applications/${name}`, { token: p.admin })).status).toBe(404)
    const audit = await p.t.request('GET', '/api/audit?action=application.delete', { token: p.admin })
    expect(audit.body.some((entry: any) => entry.target_id === name)).toBe(true)
  })
})
