// The OpenAPI 3.1.0 document and the interactive reference, generated from the validating schemas and served from the binary.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
beforeAll(async () => (t = await startTestServer()))
afterAll(() => t.close())

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
    expect(setup.responses['422'].content['application/json'].schema.$ref).toBe('#/components/schemas/HTTPValidationError')
  })

  test('lists every foundation endpoint with its path parameters in OpenAPI form', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    for (const path of ['/api/health', '/api/health/live', '/api/health/ready', '/api/tenant/setup', '/api/org/apply_license', '/api/org/license', '/api/auth/login', '/api/auth/me', '/api/auth/password', '/api/auth/tokens', '/api/auth/tokens/{id}', '/api/users', '/api/users/{id}']) {
      expect(body.paths).toHaveProperty([path])
    }
    expect(body.paths['/api/openapi.json']).toBeUndefined()
    expect(body.paths['/api/health'].get.security).toEqual([])
    expect(body.paths['/api/users'].get.security).toEqual([{ bearer: [] }])
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
