// Responses validate against the published OpenAPI document (issue 14, item 20): the checker every test's requests go through, and the cases it was built for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ConformanceChecker, ConformanceError, conformanceChecker } from '../helpers/conformance.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ 'content-type': 'application/json', ...headers }),
  text: JSON.stringify(body),
})

describe('the checker', () => {
  const checker = new ConformanceChecker({
    openapi: '3.1.0',
    paths: {
      '/things/{id}': {
        get: {
          responses: {
            '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            '401': { $ref: '#/components/responses/Unauthorized' },
          },
        },
        delete: { responses: { '204': { description: 'No Content' } } },
      },
      '/things/special': { get: { responses: { '200': { description: 'OK', content: { 'application/json': { schema: { const: 'special' } } } } } } },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id', 'ran'],
          properties: { id: { type: 'string' }, ran: { type: ['string', 'null'], enum: ['yes', 'no', null] }, at: { type: 'string', format: 'date-time' } },
        },
        ErrorDetail: { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } },
      },
      responses: {
        Unauthorized: {
          description: 'Not authenticated',
          headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDetail' } } },
        },
      },
    },
  })

  test('accepts a body that matches, null where the schema allows it', () => {
    expect(checker.problems('GET', '/things/1', json(200, { id: '1', ran: null, at: '2026-01-01T00:00:00.000Z' }))).toEqual([])
  })

  test('names every field that breaks the schema, formats included', () => {
    const problems = checker.problems('GET', '/things/1', json(200, { id: 1, ran: 'maybe', at: 'yesterday' }))
    expect(problems.join('\n')).toContain('body/id must be string')
    expect(problems.join('\n')).toContain('body/ran must be equal to one of the allowed values')
    expect(problems.join('\n')).toContain('body/at must match format "date-time"')
  })

  test('refuses an undocumented status, a missing documented header, a body on a no-content response and a wrong content type', () => {
    expect(checker.problems('GET', '/things/1', json(409, { detail: 'x' }))[0]).toContain('status 409 is not documented for GET /things/{id}')
    expect(checker.problems('GET', '/things/1', json(401, { detail: 'Not authenticated' }))).toEqual([
      'status 401 lacks its documented WWW-Authenticate header',
    ])
    expect(checker.problems('GET', '/things/1', json(401, { detail: 'Not authenticated' }, { 'www-authenticate': 'Bearer' }))).toEqual([])
    expect(checker.problems('DELETE', '/things/1', json(204, { gone: true }))[0]).toContain('documented without a body')
    expect(checker.problems('GET', '/things/1', { status: 200, headers: new Headers({ 'content-type': 'text/plain' }), text: '{}' })[0]).toContain(
      'should be application/json',
    )
  })

  test('a static segment wins over a parameter, as in the router', () => {
    expect(checker.problems('GET', '/things/special', json(200, 'special'))).toEqual([])
  })

  test('a method the path does not document must be 405 with Allow', () => {
    expect(checker.problems('PUT', '/things/1', json(404, { detail: 'Not Found' }))[0]).toContain('not 405')
    expect(checker.problems('PUT', '/things/1', json(405, { detail: 'Method Not Allowed' }, { allow: 'DELETE, GET, HEAD' }))).toEqual([])
    expect(checker.problems('PUT', '/things/1', json(405, { detail: 'Method Not Allowed' }, { allow: 'GET' }))).toEqual(['405 Allow header "GET" lacks DELETE'])
  })

  test('paths the document does not describe and server failures are left to the tests', () => {
    expect(checker.problems('GET', '/console/app.js', { status: 200, headers: new Headers(), text: 'js' })).toEqual([])
    expect(checker.problems('GET', '/things/1', json(500, { detail: 'Internal Server Error' }))).toEqual([])
  })
})

describe('against the real server', () => {
  let t: TestServer
  let adminToken: string
  let member: { id: string; token: string }
  beforeAll(async () => {
    t = await startTestServer()
    ;({ adminToken } = await t.provision())
    member = await t.createUser(adminToken, { email: 'member@example.com' })
  })
  afterAll(() => t.close())

  const documentText = async () => (await t.server.app.handle(new Request('http://localhost/api/openapi.json'))).text()

  test('a task that never ran (last_run_status, last_run_at and next_run null) matches the published Task schema', async () => {
    const created = await t.request('POST', '/api/task', { token: member.token, body: { name: 'Never run', prompt: 'p' } })
    expect(created.body).toMatchObject({ last_run_status: null, last_run_at: null, next_run: null })
    const got = await t.server.fetch(new Request(`http://localhost/api/task/${created.body.id}`, { headers: { authorization: `Bearer ${member.token}` } }))
    const checker = conformanceChecker(await documentText())
    expect(checker.problems('GET', `/api/task/${created.body.id}`, { status: got.status, headers: got.headers, text: await got.text() })).toEqual([])
  })

  test('startTestServer().request checks every response: a reply that breaks the document fails the test that made it', async () => {
    const server = t.server as { fetch: (request: Request) => Promise<Response> }
    const fetch = server.fetch
    server.fetch = async (request) => {
      const response = await fetch(request)
      return new Response(JSON.stringify({ ...(await response.json()), last_run_status: 'skipped' }), response)
    }
    try {
      const created = await t.request('POST', '/api/task', { token: member.token, body: { name: 'Broken', prompt: 'p' } }).catch((error) => error)
      expect(created).toBeInstanceOf(ConformanceError)
      expect(created.message).toContain('POST /api/task → 201 does not conform to /api/openapi.json')
      expect(created.message).toContain('body/last_run_status must be equal to one of the allowed values')
    } finally {
      server.fetch = fetch
    }
  })

  test('every documented operation, called anonymously, by a member and by an admin with made-up ids and empty bodies, answers as documented', async () => {
    const document = JSON.parse(await documentText())
    let calls = 0
    for (const [template, item] of Object.entries<Record<string, { requestBody?: unknown }>>(document.paths)) {
      const path = template.replace(/\{[^}]+\}/g, 'made-up-id')
      for (const [method, operation] of Object.entries(item)) {
        // The setup token is gone once provisioned; logging in and the throttle are their own tests' business.
        if (path === '/api/auth/login') continue
        for (const token of [undefined, member.token, adminToken]) {
          // request() throws a ConformanceError for any answer the document does not describe.
          await t.request(method.toUpperCase(), path, { token, ...(operation.requestBody ? { body: {} } : {}) })
          calls++
        }
      }
    }
    expect(calls).toBeGreaterThan(150)
  })
})
