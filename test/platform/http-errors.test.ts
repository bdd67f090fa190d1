// The error contract of CONTRACT §0, end to end through the real server: 422 shapes, json_invalid, 404, 413, 500, request ids.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia, t as schema } from 'elysia'
import { httpPlatform } from '../../src/platform/http/http-platform.ts'
import { withRequestTracking } from '../../src/platform/http/request-tracking.ts'
import { CapturedLog, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string

beforeAll(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
})
afterAll(() => t.close())

describe('422 validation errors', () => {
  test('every failing field is reported once, with pydantic type names and a loc starting with body', async () => {
    const res = await t.request('POST', '/api/users', { token: adminToken, body: { email: 'not-an-email', name: 7, role: 'owner' } })
    expect(res.status).toBe(422)
    const byField = Object.fromEntries(res.body.detail.map((d: any) => [d.loc.join('.'), d]))
    expect(Object.keys(byField).sort()).toEqual(['body.email', 'body.name', 'body.password', 'body.role'])
    expect(byField['body.email'].type).toBe('value_error')
    expect(byField['body.name'].type).toBe('string_type')
    expect(byField['body.name'].input).toBe(7)
    expect(byField['body.password'].type).toBe('missing')
    expect(byField['body.role'].type).toBe('literal_error')
    expect(byField['body.role'].msg).toBe("Input should be 'admin' or 'member'")
  })

  test('a missing body is one "missing" entry at ["body"]', async () => {
    const res = await t.request('POST', '/api/users', { token: adminToken })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([{ loc: ['body'], msg: 'Field required', type: 'missing' }])
  })

  test('a JSON array where an object is expected is a type error at the root', async () => {
    const res = await t.request('POST', '/api/users', { token: adminToken, body: [1, 2] })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['body'])
    expect(res.body.detail[0].type).toBe('model_type')
  })

  test('strings over maxLength are string_too_long and under minLength string_too_short', async () => {
    const res = await t.request('POST', '/api/users', {
      token: adminToken,
      body: { email: 'x@example.com', name: 'n'.repeat(201), password: 'short', role: 'member' },
    })
    expect(res.status).toBe(422)
    const types = Object.fromEntries(res.body.detail.map((d: any) => [d.loc[1], d.type]))
    expect(types).toEqual({ name: 'string_too_long', password: 'string_too_short' })
  })

  test('password inputs are never echoed back', async () => {
    const res = await t.request('POST', '/api/users', { token: adminToken, body: { email: 'x@example.com', name: 'X', password: 'short', role: 'member' } })
    const entry = res.body.detail.find((d: any) => d.loc[1] === 'password')
    expect(entry).toBeDefined()
    expect('input' in entry).toBe(false)
  })

  test('a mistyped nested value is refused, not reshaped into a valid one; unknown fields are dropped', async () => {
    const notObject = await t.request('POST', '/api/user/settings/update', { token: adminToken, body: { personal_context: [] } })
    expect(notObject.status).toBe(422)
    expect(notObject.body.detail[0]).toMatchObject({ loc: ['body', 'personal_context'], type: 'model_type' })
    const notArray = await t.request('POST', '/api/user/settings/update', { token: adminToken, body: { prompt_presets: 'x' } })
    expect(notArray.status).toBe(422)
    expect(notArray.body.detail[0]).toMatchObject({ loc: ['body', 'prompt_presets'], type: 'list_type' })
    const extra = await t.request('POST', '/api/auth/tokens', { token: adminToken, body: { name: 'ci', surprise: { nested: true } } })
    expect(extra.status).toBe(201)
    expect(extra.body.surprise).toBeUndefined()
  })

  test('wrong types in a boolean field are bool_type', async () => {
    const me = await t.request('GET', '/api/users', { token: adminToken })
    const res = await t.request('PATCH', `/api/users/${me.body[0].id}`, { token: adminToken, body: { active: 'yes' } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([{ loc: ['body', 'active'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'yes' }])
  })
})

describe('query parameters', () => {
  test('a numeric query value out of bounds names its parameter in loc', async () => {
    const app = new Elysia().use(httpPlatform({ logger: new CapturedLog(), limits: { json: 1024, upload: 2048 } })).get('/items', ({ query }) => query, {
      query: schema.Object({ limit: schema.Optional(schema.Numeric({ minimum: 1, maximum: 100 })), q: schema.Optional(schema.String()) }),
    })
    const low = await app.handle(new Request('http://localhost/items?q=x&limit=0'))
    expect(low.status).toBe(422)
    expect(((await low.json()) as any).detail).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ])
    const text = await app.handle(new Request('http://localhost/items?limit=lots'))
    expect(((await text.json()) as any).detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'float_type' })
  })
})

describe('unparseable bodies', () => {
  test('malformed JSON answers 422 json_invalid', async () => {
    const res = await t.request('POST', '/api/auth/login', { rawBody: '{"email": "a@b.c", ', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid', msg: 'JSON decode error' })
  })

  test('malformed JSON sent with a form content type (curl -d) is also json_invalid', async () => {
    const res = await t.request('POST', '/api/auth/login', { rawBody: 'email=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].type).toBe('json_invalid')
  })

  test('JSON sent without a content type is parsed as JSON', async () => {
    const res = await t.request('POST', '/api/auth/login', { rawBody: JSON.stringify({ email: 'nobody@example.com', password: 'x' }) })
    expect(res.status).toBe(401)
  })

  test('invalid UTF-8 is json_invalid', async () => {
    const res = await t.request('POST', '/api/auth/login', {
      rawBody: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].type).toBe('json_invalid')
  })
})

describe('body size limits', () => {
  test('a declared body over 1 MiB answers 413 before being read', async () => {
    const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) })
    const res = await t.request('POST', '/api/auth/login', { rawBody: big, headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ detail: 'Request body too large' })
  })

  test('a chunked body without Content-Length is counted as it streams and refused past 1 MiB', async () => {
    const chunk = new Uint8Array(256 * 1024).fill(0x20)
    let sent = 0
    const stream = new ReadableStream({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const res = await t.request('POST', '/api/auth/login', { rawBody: stream, headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(413)
  })

  test('a multipart body must declare its length (411) and stay within 10 MiB (413)', async () => {
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('--x--')), c.close()) })
    const chunked = await t.request('POST', '/api/auth/login', { rawBody: stream, headers: { 'content-type': 'multipart/form-data; boundary=x' } })
    expect(chunked.status).toBe(411)
    expect(chunked.body).toEqual({ detail: 'Length Required' })
    const big = await t.request('POST', '/api/auth/login', {
      rawBody: '--x--',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(10 * 1024 * 1024 + 1) },
    })
    expect(big.status).toBe(413)
  })

  test('a body just under 1 MiB is accepted and validated', async () => {
    const body = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1000) })
    const res = await t.request('POST', '/api/auth/login', { rawBody: body.padEnd(1024 * 1024 - 1, ' '), headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(401)
  })
})

describe('unknown routes and request ids', () => {
  test('an unknown route answers 404 JSON', async () => {
    const res = await t.request('GET', '/api/does-not-exist')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(res.body).toEqual({ detail: 'Not Found' })
  })

  test('a given X-Request-Id is echoed on success and on error', async () => {
    const ok = await t.request('GET', '/api/health/live', { headers: { 'x-request-id': 'abc-123' } })
    expect(ok.headers.get('x-request-id')).toBe('abc-123')
    const missing = await t.request('GET', '/api/nope', { headers: { 'x-request-id': 'req.42' } })
    expect(missing.headers.get('x-request-id')).toBe('req.42')
  })

  test('a missing or unsafe X-Request-Id is replaced by a generated one', async () => {
    const res = await t.request('GET', '/api/health/live', { headers: { 'x-request-id': 'bad id\twith spaces' } })
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const none = await t.request('GET', '/api/health/live')
    expect(none.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('unexpected errors', () => {
  test('answer 500 with no detail of the failure, and log it with the request id', async () => {
    const log = new CapturedLog()
    const app = new Elysia().use(httpPlatform({ logger: log, limits: { json: 1024, upload: 2048 } })).get('/boom', () => {
      throw new Error('secret database path /var/lib/agentbox/agentbox.db')
    })
    const fetch = withRequestTracking((request) => app.handle(request), log)
    const res = await fetch(new Request('http://localhost/boom', { headers: { 'x-request-id': 'boom-1' } }))
    expect(res.headers.get('x-request-id')).toBe('boom-1')
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ detail: 'Internal Server Error' })
    expect(text).not.toContain('secret')
    const logged = log.lines.find((line) => line.msg === 'unhandled error')
    expect(logged).toMatchObject({ level: 'error', request_id: 'boom-1', error: 'secret database path /var/lib/agentbox/agentbox.db' })
    expect(String(logged!.stack)).toContain('Error')
  })

  test('a request answered later than the threshold is also a warning, with its path, status and time', async () => {
    const log = new CapturedLog()
    const app = new Elysia().use(httpPlatform({ logger: log, limits: { json: 1024, upload: 2048 } })).get('/ok', () => 'ok')
    // Threshold 0: every request is "slow", so the test waits on nothing.
    const fetch = withRequestTracking((request) => app.handle(request), log, undefined, 0)
    await fetch(new Request('http://localhost/ok?x=1', { headers: { 'x-request-id': 'slow-1' } }))
    const slow = log.lines.find((line) => line.msg === 'slow request')
    expect(slow).toMatchObject({ level: 'warn', request_id: 'slow-1', method: 'GET', path: '/ok', status: 200 })
    expect(typeof slow!.ms).toBe('number')
    // The default threshold (2 s) is far above a request answered at once.
    const quick = new CapturedLog()
    await withRequestTracking((request) => app.handle(request), quick)(new Request('http://localhost/ok'))
    expect(quick.lines.filter((line) => line.msg === 'slow request')).toEqual([])
  })

  test('the access log records the status the client saw', async () => {
    const log = new CapturedLog()
    const app = new Elysia().use(httpPlatform({ logger: log, limits: { json: 1024, upload: 2048 } })).get('/ok', () => 'ok')
    const fetch = withRequestTracking((request) => app.handle(request), log)
    await fetch(new Request('http://localhost/missing?x=1'))
    await fetch(new Request('http://localhost/ok'))
    const statuses = log.lines.filter((l) => l.msg === 'request').map((l) => [l.path, l.status])
    expect(statuses).toEqual([
      ['/missing', 404],
      ['/ok', 200],
    ])
  })
})
