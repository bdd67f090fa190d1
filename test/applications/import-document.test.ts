// The uploaded API description is kept per revision (issue 27 #6): GET /api/applications/{api_name}/document answers
// the current one as uploaded, in its media type, to whoever sees the application; an import can run inside a
// caller's transaction and lands or rolls back with it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import { writeAudit } from '../../src/platform/audit.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { KEPT_DOCUMENT_REVISIONS } from '../../src/modules/applications/source-document.ts'
import { startWithPeople, type People } from '../helpers/people.ts'
import { petstore, uploadSpec } from './helpers.ts'

let p: People
beforeAll(async () => {
  p = await startWithPeople()
})
afterAll(() => p.t.close())

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex')
const getDocument = (api: string, token: string, headers: Record<string, string> = {}) =>
  p.t.request('GET', `/api/applications/${api}/document`, { token, headers })

/** Uploads `text` as a file named `filename` of media type `type`, as a browser or curl would. */
async function uploadRaw(token: string, text: string, filename: string, type: string, fields: Record<string, string>) {
  const form = new FormData()
  form.append('file', new File([text], filename, { type }))
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const encoded = new Response(form)
  const contentType = encoded.headers.get('content-type')!
  const bytes = new Uint8Array(await encoded.arrayBuffer())
  return p.t.request('POST', '/api/spec_from_file/', {
    token,
    rawBody: bytes,
    headers: { 'content-type': contentType, 'content-length': String(bytes.byteLength) },
  })
}

const YAML = `openapi: 3.0.3
info:
  title: Yaml Pets   # a comment survives, as uploaded
  version: "1"
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
`

describe('GET /api/applications/{api_name}/document', () => {
  test('answers the JSON exactly as uploaded, with its media type, file name and SHA-256', async () => {
    const text = `${JSON.stringify(petstore(), null, 3)}\n`
    expect((await uploadRaw(p.owner.token, text, 'petstore.json', 'application/json', { api_name: 'pets' })).status).toBe(201)
    const response = await p.t.server.fetch(
      new Request('http://localhost/api/applications/pets/document', { headers: { authorization: `Bearer ${p.owner.token}` } }),
    )
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(text)
    // As the client sent it (Bun's FormData adds the charset).
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(response.headers.get('etag')).toBe(`"${sha256(text)}"`)
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="petstore.json"; filename*=UTF-8''petstore.json`)
    expect(response.headers.get('content-encoding')).toBeNull()
  })

  test('YAML keeps its comments and its declared type; an unspecific type is inferred from the content', async () => {
    expect((await uploadRaw(p.owner.token, YAML, 'pets.yaml', 'text/yaml', { api_name: 'yaml-declared' })).status).toBe(201)
    const declared = await getDocument('yaml-declared', p.owner.token)
    expect(declared.body).toBe(YAML)
    expect(declared.headers.get('content-type')).toBe('text/yaml')
    expect((await uploadRaw(p.owner.token, YAML, 'pets', 'application/octet-stream', { api_name: 'yaml-inferred' })).status).toBe(201)
    expect((await getDocument('yaml-inferred', p.owner.token)).headers.get('content-type')).toBe('application/yaml')
    const json = JSON.stringify(petstore())
    expect((await uploadRaw(p.owner.token, `\n  ${json}`, 'spec', '', { api_name: 'json-inferred' })).status).toBe(201)
    const inferred = await getDocument('json-inferred', p.owner.token)
    expect(inferred.headers.get('content-type')).toBe('application/json')
    expect(inferred.headers.get('content-disposition')).toBe(`inline; filename="spec"; filename*=UTF-8''spec`)
  })

  test('a client that accepts gzip gets the stored bytes, gzip-encoded', async () => {
    const response = await p.t.server.fetch(
      new Request('http://localhost/api/applications/yaml-declared/document', {
        headers: { authorization: `Bearer ${p.owner.token}`, 'accept-encoding': 'br, gzip;q=0.8' },
      }),
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect(response.headers.get('vary')).toBe('Accept-Encoding')
    const compressed = new Uint8Array(await response.arrayBuffer())
    expect(compressed.byteLength).toBeLessThan(Buffer.byteLength(YAML) + 64)
    expect(gunzipSync(compressed).toString('utf8')).toBe(YAML)
  })

  test('a file name with a path, quotes and non-ASCII characters is sent back safely in both forms', async () => {
    // The client percent-encodes the quotes in the multipart header (as browsers do): that is the name as uploaded.
    expect((await uploadRaw(p.owner.token, YAML, 'C:\\dir\\Ünïcode "api".yaml', 'application/yaml', { api_name: 'odd-name' })).status).toBe(201)
    const disposition = (await getDocument('odd-name', p.owner.token)).headers.get('content-disposition')
    expect(disposition).toBe(`inline; filename="_n_code %22api%22.yaml"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%2522api%2522.yaml`)
  })

  test('whoever sees the application reads it; others and unknown names get 404', async () => {
    expect((await getDocument('pets', p.admin)).status).toBe(200)
    const hidden = await getDocument('pets', p.viewer.token)
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({ detail: 'Application not found' })
    expect((await getDocument('no-such-api', p.owner.token)).status).toBe(404)
    expect((await p.t.request('GET', '/api/applications/pets/document')).status).toBe(401)
    expect((await uploadSpec(p.t, p.admin, petstore(), { api_name: 'global-pets', global_spec: 'true' })).status).toBe(201)
    expect((await getDocument('global-pets', p.viewer.token)).status).toBe(200)
  })

  test('a re-import keeps a document per revision and answers the new one; only the last ten revisions are kept', async () => {
    for (let version = 2; version <= 12; version++) {
      const document = { ...petstore(), info: { title: 'Pet Store', version: String(version) } }
      expect((await uploadSpec(p.t, p.owner.token, document, { api_name: 'pets', replace: 'true' })).status).toBe(201)
    }
    expect((await getDocument('pets', p.owner.token)).body.info.version).toBe('12')
    const revisions = (await p.t.sql.all(
      "SELECT revision FROM application_documents WHERE application_id = (SELECT id FROM applications WHERE api_name = 'pets') ORDER BY revision",
    )) as { revision: number }[]
    expect(revisions.map((row) => row.revision)).toEqual(Array.from({ length: KEPT_DOCUMENT_REVISIONS }, (_, i) => 12 - KEPT_DOCUMENT_REVISIONS + 1 + i))
    const audit = await p.t.request('GET', '/api/audit?action=application.replace', { token: p.admin })
    expect(audit.body[0].details.document_sha256).toMatch(/^[0-9a-f]{64}$/)
  })

  test('a document that cannot be imported leaves nothing; deleting the application deletes its documents', async () => {
    const before = ((await p.t.sql.get('SELECT count(*) AS n FROM application_documents')) as { n: number }).n
    const invalid = await uploadRaw(p.owner.token, '{"openapi": "3.0.3"}', 'broken.json', 'application/json', { api_name: 'broken' })
    expect(invalid.status).toBe(422)
    expect(((await p.t.sql.get('SELECT count(*) AS n FROM application_documents')) as { n: number }).n).toBe(before)
    expect((await p.t.request('DELETE', '/api/applications/pets', { token: p.owner.token })).status).toBe(204)
    const left = (await p.t.sql.get('SELECT count(*) AS n FROM application_documents')) as { n: number }
    expect(left.n).toBe(before - KEPT_DOCUMENT_REVISIONS)
  })

  test('a 6 MiB description round-trips byte for byte', async () => {
    // Vendor extensions are carried as uploaded and ignored by the import: size without thousands of operations.
    const document = { ...petstore(), 'x-filler': Array.from({ length: 100_000 }, (_, i) => `${sha256(String(i))} thing ${i}`) }
    const text = JSON.stringify(document)
    expect(text.length).toBeGreaterThan(6 * 1024 * 1024)
    expect((await uploadRaw(p.owner.token, text, 'big.json', 'application/json', { api_name: 'big' })).status).toBe(201)
    const answer = await getDocument('big', p.owner.token)
    expect(answer.headers.get('etag')).toBe(`"${sha256(text)}"`)
    expect(sha256(JSON.stringify(answer.body))).toBe(sha256(text))
    const stored = (await p.t.sql.get('SELECT size, length(content) AS compressed FROM application_documents WHERE sha256 = ?', sha256(text))) as {
      size: number
      compressed: number
    }
    expect(stored.size).toBe(Buffer.byteLength(text))
    expect(stored.compressed).toBeLessThan(stored.size * 0.6)
  })
})

describe("an import inside the caller's transaction", () => {
  const principal = (): Principal => ({
    userId: p.owner.id,
    email: 'owner@example.com',
    name: 'owner',
    role: 'member',
    kind: 'person',
    via: 'access_token',
    tokenId: null,
  })
  const input = (api_name: string) => ({ document: new File([JSON.stringify(petstore())], 'bundle/petstore.json', { type: 'application/json' }), api_name })

  test('rolls back with it: no application, operations, document or audit entry', async () => {
    const { db } = p.t.server.database
    const service = p.t.server.modules.applications.service
    const prepared = await service.prepareImport(principal(), input('in-bundle'))
    const failed = db.transaction().execute(async (trx) => {
      const { application } = await service.importApplication(trx, principal(), prepared)
      expect(application.api_name).toBe('in-bundle')
      throw new Error('the bundle failed later')
    })
    await expect(failed).rejects.toThrow('the bundle failed later')
    expect((await p.t.request('GET', '/api/applications/in-bundle', { token: p.owner.token })).status).toBe(404)
    for (const table of ['application_operations', 'application_documents'])
      expect(await p.t.sql.get(`SELECT count(*) AS n FROM ${table} WHERE application_id NOT IN (SELECT id FROM applications)`)).toEqual({
        n: 0,
      })
    const audit = await p.t.request('GET', '/api/audit?action=application.import', { token: p.admin })
    expect(audit.body.some((entry: any) => entry.target_id === 'in-bundle')).toBe(false)
  })

  test("commits with it, next to the caller's own writes; the application is served at once", async () => {
    const { db } = p.t.server.database
    const service = p.t.server.modules.applications.service
    await db.transaction().execute(async (trx) => {
      // Not prepared: importApplication prepares it itself while the transaction waits.
      await service.importApplication(trx, principal(), input('in-bundle'))
      await writeAudit(trx, p.t.clock, { actor_id: p.owner.id, action: 'bundle.import', target_type: 'agent', target_id: 'bundled', details: {} })
    })
    const audit = await p.t.request('GET', '/api/audit', { token: p.admin })
    expect(audit.body.slice(0, 2).map((entry: any) => [entry.action, entry.target_id])).toEqual([
      ['bundle.import', 'bundled'],
      ['application.import', 'in-bundle'],
    ])
    const answer = await p.t.request('GET', '/api/applications/in-bundle/document', { token: p.owner.token })
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-disposition')).toContain('filename="petstore.json"')
    expect((await p.t.request('GET', '/api/applications/in-bundle/operations', { token: p.owner.token })).body.length).toBe(4)
  })
})
