// Uploads in the OpenAPI document (issue 26, item 3): every route the server takes multipart/form-data on is described
// as multipart/form-data with its files as `format: binary`, every other body as JSON, checked against the real server;
// and the conformance helper's request check, which holds every accepted request of the suite to the document.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MCP_PATH } from '../../src/modules/mcp/routes.ts'
import { OAUTH_OWN_BODY } from '../../src/modules/oauth/request-body.ts'
import { ConformanceChecker } from '../helpers/conformance.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
beforeAll(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
})
afterAll(() => t.close())

const BODY_METHODS = ['post', 'put', 'patch'] as const

async function multipartBody(form: FormData): Promise<{ bytes: Uint8Array; contentType: string }> {
  const encoded = new Response(form)
  // Read before the body: Bun forgets a FormData response's content-type once the body is consumed.
  const contentType = encoded.headers.get('content-type')!
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), contentType }
}

/** A multipart request straight to the server (no conformance check: some of these are meant to be refused). */
async function sendMultipart(method: string, path: string, form: FormData, token?: string) {
  const { bytes, contentType } = await multipartBody(form)
  const headers: Record<string, string> = { 'content-type': contentType, 'content-length': String(bytes.byteLength) }
  if (token) headers.authorization = `Bearer ${token}`
  const response = await t.server.fetch(
    new Request(`http://localhost${path}`, { method: method.toUpperCase(), headers, body: bytes as Uint8Array<ArrayBuffer> }),
  )
  return { status: response.status, body: (await response.json().catch(() => null)) as any }
}

const REFUSED_AS_FORM = {
  loc: ['body'],
  msg: 'JSON decode error',
  type: 'json_invalid',
  ctx: { error: 'This endpoint takes a JSON body; multipart/form-data is for file uploads' },
}

describe('the document says multipart/form-data exactly where the server takes it', () => {
  test('every operation with a body, sent a form: refused as not JSON unless the document says multipart/form-data', async () => {
    const { body: document } = await t.request('GET', '/api/openapi.json')
    const multipart: string[] = []
    let operations = 0
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      // The MCP endpoints and OAuth's token, revoke and register read their own bodies (JSON-RPC; OAuth forms): below.
      // The GPT actions take a GPT's key, checked before the body is read; their body is parsed like any JSON route's.
      const concrete = path.replace(/\{[^}]+\}/g, 'probe')
      if (MCP_PATH.test(concrete) || OAUTH_OWN_BODY.test(concrete) || path.startsWith('/api/gpt_public/')) continue
      for (const method of BODY_METHODS) {
        const operation = item[method]
        if (!operation) continue
        operations++
        const form = new FormData()
        form.append('file', new File(['{}'], 'probe.json', { type: 'application/json' }))
        form.append('name', 'probe')
        // Credentials come before the body: the admin's token gets every form as far as the body parser.
        const res = await sendMultipart(method, concrete, form, adminToken)
        const content = Object.keys(operation.requestBody?.content ?? {})
        if (content.includes('multipart/form-data')) {
          multipart.push(`${method.toUpperCase()} ${path}`)
          // Taken as a form: whatever the route then says of it, it is not refused as not JSON.
          expect({ path, method, status: res.status, detail: res.body?.detail }).not.toEqual({ path, method, status: 422, detail: [REFUSED_AS_FORM] })
          expect(res.status).not.toBe(401)
        } else {
          expect({ path, method, status: res.status, detail: res.body?.detail }).toEqual({ path, method, status: 422, detail: [REFUSED_AS_FORM] })
        }
      }
    }
    expect(operations).toBeGreaterThan(30)
    expect(multipart).toEqual(['POST /api/spec_from_file/', 'POST /api/agents/import'])
  })

  test('the endpoints that read their own bodies take no multipart form either', async () => {
    const form = new FormData()
    form.append('grant_type', 'authorization_code')
    form.append('code', 'x')
    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/register']) {
      const res = await sendMultipart('post', path, form)
      expect({ path, refused: res.status >= 400 && res.status < 500 }).toEqual({ path, refused: true })
    }
  })

  test('the upload is described as a form: the file as binary, the other fields with their types, nothing of Elysia left', async () => {
    const { body: document } = await t.request('GET', '/api/openapi.json')
    const requestBody = document.paths['/api/spec_from_file/'].post.requestBody
    expect(Object.keys(requestBody.content)).toEqual(['multipart/form-data'])
    expect(requestBody.required).toBe(true)
    const schema = requestBody.content['multipart/form-data'].schema
    expect(schema.type).toBe('object')
    expect(schema.required).toEqual(['file'])
    expect(schema.properties.file).toEqual({ type: 'string', format: 'binary', description: expect.stringContaining('OpenAPI 3.0 or 3.1') })
    expect(schema.properties.api_name).toMatchObject({ type: 'string', maxLength: 200 })
    for (const flag of ['replace', 'global_spec', 'shared_security_info', 'create_mcp']) expect(schema.properties[flag].type).toBe('boolean')
    // The bundle import is the other form: its file, a name, on_conflict as an enum and global_spec as a boolean.
    const bundle = document.paths['/api/agents/import'].post.requestBody.content['multipart/form-data'].schema
    expect(bundle.required).toEqual(['file'])
    expect(bundle.properties.file).toMatchObject({ type: 'string', format: 'binary' })
    expect(bundle.properties.global_spec.type).toBe('boolean')
    // No other request body in the document carries a file (responses may: a stored document is answered as uploaded).
    const requestBodies = Object.values(document.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.requestBody ?? null))
    const binaries = JSON.stringify(requestBodies).match(/"format":"binary"/g) ?? []
    expect(binaries).toHaveLength(2)
  })

  test('an upload through the documented form succeeds, with and without the trailing slash', async () => {
    for (const [path, title] of [
      ['/api/spec_from_file/', 'Form One'],
      ['/api/spec_from_file', 'Form Two'],
    ] as const) {
      const form = new FormData()
      form.append('file', new File([JSON.stringify({ openapi: '3.0.3', info: { title, version: '1' }, paths: {} })], 'spec.json', { type: 'application/json' }))
      form.append('create_mcp', 'false')
      const { bytes, contentType } = await multipartBody(form)
      const res = await t.request('POST', path, {
        token: adminToken,
        rawBody: bytes,
        headers: { 'content-type': contentType, 'content-length': String(bytes.byteLength) },
      })
      expect(res.status).toBe(201)
      expect(res.body.title).toBe(title)
    }
  })

  test('a JSON body on the upload route is a 422 at the file, not an import', async () => {
    const res = await t.request('POST', '/api/spec_from_file/', { token: adminToken, body: { file: '{"openapi":"3.0.3"}' } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['body', 'file'])
  })

  test('a form on a JSON route changes nothing, even with every field the route needs', async () => {
    const form = new FormData()
    form.append('name', 'From a form')
    form.append('summary', 'sent as multipart')
    const res = await sendMultipart('post', '/api/context-type', form, adminToken)
    expect(res).toEqual({ status: 422, body: { detail: [REFUSED_AS_FORM] } })
    expect((await t.request('GET', '/api/context-type', { token: adminToken })).body).toEqual([])
  })
})

describe("the conformance helper checks accepted requests against the document (every test's requests)", () => {
  const document = (content: Record<string, unknown>) => ({
    openapi: '3.1.0',
    paths: { '/api/things': { post: { requestBody: { content }, responses: { '201': { description: 'Created' } } } } },
  })
  const jsonSchema = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, count: { type: 'integer' } } }
  const formSchema = { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' }, note: { type: 'string' } } }

  test('a form the document calls JSON is a problem, as is JSON the document calls a form', () => {
    const asJson = new ConformanceChecker(document({ 'application/json': { schema: jsonSchema } }))
    const form = new FormData()
    form.append('name', 'x')
    expect(asJson.requestProblems('POST', '/api/things', { contentType: 'multipart/form-data; boundary=x', body: form }, 201)).toEqual([
      'POST /api/things accepted a multipart/form-data body, but the document describes it as application/json: clients would send the wrong kind of body',
    ])
    const asForm = new ConformanceChecker(document({ 'multipart/form-data': { schema: formSchema } }))
    expect(asForm.requestProblems('POST', '/api/things', { contentType: 'application/json', body: { file: 'x' } }, 201)).toHaveLength(1)
  })

  test('the body must fit the schema: JSON by the schema, a form by its required fields and which ones are files', () => {
    const asJson = new ConformanceChecker(document({ 'application/json': { schema: jsonSchema } }))
    expect(asJson.requestProblems('POST', '/api/things', { contentType: 'application/json', body: { name: 'a', count: 2 } }, 201)).toEqual([])
    expect(asJson.requestProblems('POST', '/api/things', { contentType: 'application/json', body: { count: 'two' } }, 201)).toHaveLength(2)
    // Refused requests are the server's business, not the document's.
    expect(asJson.requestProblems('POST', '/api/things', { contentType: 'application/json', body: { count: 'two' } }, 422)).toEqual([])

    const asForm = new ConformanceChecker(document({ 'multipart/form-data': { schema: formSchema } }))
    const good = new FormData()
    good.append('file', new File(['x'], 'x.txt'))
    good.append('note', 'n')
    expect(asForm.requestProblems('POST', '/api/things', { contentType: 'multipart/form-data; boundary=x', body: good }, 201)).toEqual([])
    const bad = new FormData()
    bad.append('note', new File(['x'], 'x.txt'))
    expect(asForm.requestProblems('POST', '/api/things', { contentType: 'multipart/form-data; boundary=x', body: bad }, 201)).toEqual([
      'form field file is required by the document but was not sent',
      'form field note is not a file in the document, but a file was accepted',
    ])
  })
})
