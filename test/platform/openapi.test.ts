// The OpenAPI 3.1.0 document and the interactive reference, generated from the validating schemas and served from the binary.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { buildOpenApiDocument, type RouteDescription } from '../../src/platform/http/openapi-document.ts'
import { VERSION } from '../../src/version.ts'
import { lintWithRedocly } from '../helpers/redocly.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
beforeAll(async () => (t = await startTestServer()))
afterAll(() => t.close())

const documentText = async (server: TestServer) => (await server.server.fetch(new Request('http://localhost/api/openapi.json'))).text()

/** Every schema object in the document with its JSON pointer. */
function* schemas(node: unknown, pointer = ''): Generator<[string, Record<string, any>]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemas(item, `${pointer}/${i}`)
  } else if (node && typeof node === 'object') {
    yield [pointer, node as Record<string, any>]
    for (const [key, value] of Object.entries(node))
      if (key !== 'enum' && key !== 'default' && key !== 'const') yield* schemas(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
  }
}

describe('GET /api/openapi.json', () => {
  test('is public OpenAPI 3.1.0 with API version 1.0.0 and a bearer scheme', async () => {
    const res = await t.request('GET', '/api/openapi.json')
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe('3.1.0')
    expect(res.body.info.version).toBe('1.0.0')
    expect(res.body.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }))
  })

  test('request bodies carry the same schema that validates them', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    const setup = body.paths['/api/tenant/setup'].post
    const schema = setup.requestBody.content['application/json'].schema
    expect(schema.required.sort()).toEqual(['admin_email', 'admin_name', 'admin_password', 'license_token'])
    expect(schema.properties.admin_password.minLength).toBe(12)
    expect(schema.properties.admin_email.format).toBe('email')
    expect(setup.responses['422'].$ref).toBe('#/components/responses/ValidationFailed')
    expect(body.components.responses.ValidationFailed.content['application/json'].schema.$ref).toBe('#/components/schemas/HTTPValidationError')
  })

  test('lists every foundation endpoint with its path parameters in OpenAPI form', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    for (const path of [
      '/api/health',
      '/api/health/live',
      '/api/health/ready',
      '/api/tenant/setup',
      '/api/org/apply_license',
      '/api/org/license',
      '/api/auth/login',
      '/api/auth/me',
      '/api/auth/password',
      '/api/auth/tokens',
      '/api/auth/tokens/{id}',
      '/api/users',
      '/api/users/{id}',
    ]) {
      expect(body.paths).toHaveProperty([path])
    }
    expect(body.paths['/api/openapi.json']).toBeUndefined()
    expect(body.paths['/api/health'].get.security).toEqual([])
    expect(body.paths['/api/users'].get.security).toEqual([{ bearer: [] }])
  })
})

describe('the document is deterministic (issue 14, item 21)', () => {
  test('byte-identical before and after many routes ran, on a restarted server, and rebuilt from the compiled routes', async () => {
    const fresh = await startTestServer()
    try {
      const before = await documentText(fresh)
      const { adminToken } = await fresh.provision()
      const member = await fresh.createUser(adminToken, { email: 'member@example.com' })
      // Elysia compiles a route on its first request and writes `additionalProperties: false` into its schemas then.
      const calls: [string, string, unknown?][] = [
        ['POST', '/api/agents', { name: 'bot', description: 'd', instructions: 'i' }],
        ['GET', '/api/agents'],
        ['GET', '/api/agents/bot'],
        ['PATCH', '/api/agents/bot', { description: 'e' }],
        ['POST', '/api/agents/bot/publish', {}],
        ['GET', '/api/agents/bot/versions?limit=5'],
        ['POST', '/api/task', { name: 'n', prompt: 'p' }],
        ['GET', '/api/tasks?limit=5&offset=0'],
        ['PUT', '/api/org/settings', { workflow_retention_days: 30 }],
        ['GET', '/api/org/settings'],
        ['POST', '/api/context-type', { name: 'ct' }],
        ['POST', '/api/user/settings/update', { language: 'en' }],
        ['POST', '/api/interaction/summary', { start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-31T00:00:00Z', granularity: 'day' }],
        ['GET', '/api/audit?limit=5'],
      ]
      for (const [method, path, body] of calls) await fresh.request(method, path, { token: member.token, body })
      for (const [method, path, body] of calls) await fresh.request(method, path, { token: adminToken, body })
      expect(await documentText(fresh)).toBe(before)
      expect(JSON.stringify(buildOpenApiDocument(fresh.server.app.routes as RouteDescription[], VERSION))).toBe(before)
      await fresh.restart()
      expect(await documentText(fresh)).toBe(before)
    } finally {
      await fresh.close()
    }
  })
})

describe('the document is valid OpenAPI 3.1 (issue 14, item 21)', () => {
  test('no `nullable` (a 3.0 keyword): null is a type, and a nullable enum lists null', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    for (const [pointer, node] of schemas(body)) expect({ pointer, nullable: node.nullable }).toEqual({ pointer, nullable: undefined })
    const task = body.paths['/api/task/{task_id}'].get.responses['200'].content['application/json'].schema
    expect(task.properties.last_run_status).toEqual({ type: ['string', 'null'], enum: ['running', 'succeeded', 'failed', null] })
    expect(task.properties.next_run).toMatchObject({ type: ['string', 'null'], format: 'date-time' })
  })

  test('every default validates against its own schema, and integers are integers', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    const ajv = new Ajv2020({ strict: false })
    addFormats(ajv)
    for (const [pointer, node] of schemas(body)) {
      if (!('default' in node)) continue
      const { default: value, ...schema } = node
      expect({ pointer, valid: ajv.validate(schema, value) }).toEqual({ pointer, valid: true })
    }
    const retention = body.paths['/api/org/settings'].put.requestBody.content['application/json'].schema.properties.workflow_retention_days
    expect(retention).toMatchObject({ type: 'integer', minimum: 1, maximum: 3650 })
    expect(body.paths['/api/tasks'].get.parameters.find((p: any) => p.name === 'limit').schema.type).toBe('integer')
  })

  test('a 204 has no content, and every operation has a success response', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    let noContent = 0
    for (const [path, item] of Object.entries<any>(body.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        expect({ path, method, success: Object.keys(operation.responses).some((status) => status.startsWith('2')) }).toEqual({ path, method, success: true })
        if (operation.responses['204']) {
          noContent++
          expect(operation.responses['204']).toEqual({ description: 'No Content' })
        }
      }
    }
    expect(noContent).toBeGreaterThanOrEqual(6)
  })

  test('request bodies keep no additionalProperties: false, since unknown fields are dropped, not refused', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    for (const [pointer, node] of schemas(body))
      expect({ pointer, additionalProperties: node.additionalProperties === false }).toEqual({ pointer, additionalProperties: false })
  })

  test('errors are documented by auth, parameters and body, with the CONTRACT §0 shapes', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    const statuses = (path: string, method: string) => Object.keys(body.paths[path][method].responses)
    // Admin-only, mutating: 401, 402, 403 and the body's 411, 413, 422.
    expect(statuses('/api/users', 'post')).toEqual(['201', '401', '402', '403', '409', '411', '413', '422'])
    // A member read with a path parameter: 401, 404, 422.
    expect(statuses('/api/task/{task_id}', 'get')).toEqual(['200', '401', '404', '422'])
    // An action allowed after the licence lapsed has no 402.
    expect(statuses('/api/auth/tokens/{id}', 'delete')).not.toContain('402')
    // Public and input-free: nothing but its answers.
    expect(statuses('/api/health', 'get')).toEqual(['200', '503'])
    // Declared by the route: the login throttle and bad credentials.
    const login = body.paths['/api/auth/login'].post.responses
    expect(login['429']).toMatchObject({
      headers: { 'Retry-After': expect.any(Object) },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDetail' } } },
    })
    expect(login['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorDetail')
    expect(body.components.responses.Unauthorized.headers).toHaveProperty(['WWW-Authenticate'])
    expect(body.components.schemas.ErrorDetail).toEqual(
      expect.objectContaining({ required: ['detail'], properties: { detail: expect.objectContaining({ type: 'string' }) } }),
    )
    expect(body.components.schemas.HTTPValidationError.properties.detail.items.$ref).toBe('#/components/schemas/ValidationError')
  })

  test('lints clean with Redocly CLI (recommended-strict, redocly.yaml), offline', async () => {
    const lint = lintWithRedocly(await documentText(t))
    expect(lint.problems).toEqual([])
    expect(lint.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 })
    expect(lint.exitCode).toBe(0)
  }, 30_000)
})

describe('a wrong method on an existing path (issue 14, item 21)', () => {
  test('is 405 with Allow and {"detail":"Method Not Allowed"}; an unknown path stays 404', async () => {
    const put = await t.request('PUT', '/api/auth/login', { body: {} })
    expect(put.status).toBe(405)
    expect(put.headers.get('allow')).toBe('POST')
    expect(put.body).toEqual({ detail: 'Method Not Allowed' })
    const post = await t.request('POST', '/api/task/some-id')
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH')
    expect(post.headers.get('x-request-id')).toBeTruthy()
    expect((await t.request('DELETE', '/api/openapi.json')).headers.get('allow')).toBe('GET, HEAD')
    const unknown = await t.request('POST', '/api/no-such-thing')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ detail: 'Not Found' })
  })
})

describe('GET /api/docs', () => {
  test('serves Swagger UI whose assets come from the server itself, not a CDN', async () => {
    const page = await t.request('GET', '/api/docs')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(page.body).not.toMatch(/(src|href)="https?:/)
    const bundle = await t.server.fetch(new Request('http://localhost/api/docs/swagger-ui-bundle.js'))
    expect(bundle.status).toBe(200)
    expect((await bundle.text()).length).toBeGreaterThan(100_000)
    const css = await t.server.fetch(new Request('http://localhost/api/docs/swagger-ui.css'))
    expect(css.status).toBe(200)
  })
})
