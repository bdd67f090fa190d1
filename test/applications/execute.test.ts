// Executing operations (CONTRACT §12): the request built from the document, the caller's credential applied, the
// upstream's answer in the envelope, recorded as api_action; dry runs; upstream failures. The upstream is a real
// server on 127.0.0.1, opened with AGENTBOX_OUTBOUND_ALLOW.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startWithPeople, type People } from '../helpers/people.ts'
import { uploadSpec } from './helpers.ts'

interface Seen {
  method: string
  url: string
  headers: Record<string, string>
  body: string
}
const seen: Seen[] = []
let upstream: ReturnType<typeof Bun.serve>
let other: ReturnType<typeof Bun.serve>
let p: People

function echoApi(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Echo API', version: '1' },
    servers: [{ url: serverUrl }],
    security: [{ key: [] }],
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' }, qkey: { type: 'apiKey', in: 'query', name: 'api_key' } } },
    paths: {
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
            { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object', additionalProperties: { type: 'string' } } },
            { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 50 } },
          ],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } } } },
            },
          },
        },
        put: {
          operationId: 'putItem',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, count: { type: 'integer' } } } },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/form': {
        post: {
          operationId: 'postForm',
          security: [],
          requestBody: {
            content: {
              'application/x-www-form-urlencoded': {
                schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } } } },
              },
            },
          },
          responses: { '204': { description: 'done' } },
        },
      },
      '/status/{code}': {
        get: {
          operationId: 'status',
          security: [],
          parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: { default: { description: 'any' } },
        },
      },
      '/redirect': {
        get: {
          operationId: 'redirect',
          parameters: [{ name: 'to', in: 'query', required: true, schema: { type: 'string' } }],
          responses: { '302': { description: 'moved' } },
        },
      },
      '/huge': { get: { operationId: 'huge', security: [], responses: { '200': { description: 'endless' } } } },
      '/query-key': { get: { operationId: 'queryKey', security: [{ qkey: [] }], responses: { '200': { description: 'ok' } } } },
    },
  }
}

function record(request: Request, body: string): void {
  const url = new URL(request.url)
  seen.push({ method: request.method, url: `${url.pathname}${url.search}`, headers: Object.fromEntries(request.headers), body })
}

beforeAll(async () => {
  other = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      record(request, await request.text())
      return Response.json({ other: true })
    },
  })
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      url.pathname = url.pathname.replace(/^\/base/, '')
      record(request, await request.text())
      if (url.pathname.startsWith('/status/'))
        return new Response(JSON.stringify({ error: 'nope' }), {
          status: Number(url.pathname.slice(8)),
          headers: { 'content-type': 'application/json', 'set-cookie': 'a=b', 'x-ratelimit-remaining': '9' },
        })
      if (url.pathname === '/redirect') return new Response(null, { status: 302, headers: { location: url.searchParams.get('to')! } })
      if (url.pathname === '/huge') {
        const chunk = new Uint8Array(64 * 1024).fill(120)
        return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }), { headers: { 'content-type': 'text/plain' } })
      }
      if (url.pathname === '/form') return new Response(null, { status: 204 })
      return Response.json({ id: decodeURIComponent(url.pathname.split('/')[2] ?? ''), n: 1 }, { headers: { link: '<https://x>; rel="next"' } })
    },
  })
  p = await startWithPeople({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  expect((await uploadSpec(p.t, p.admin, echoApi(`http://127.0.0.1:${upstream.port}/base`), { api_name: 'echo', global_spec: 'true' })).status).toBe(201)
  await p.t.request('PUT', '/api/applications/echo/credentials', { token: p.owner.token, body: { scheme: 'key', api_key: 'owner-key' } })
  await p.t.request('PUT', '/api/applications/echo/credentials', { token: p.owner.token, body: { scheme: 'qkey', api_key: 'query-secret' } })
})
afterAll(async () => {
  await p.t.close()
  upstream.stop(true)
  other.stop(true)
})

const execute = (operation: string, body: unknown, token = p.owner.token) =>
  p.t.request('POST', `/api/applications/echo/operations/${operation}/execute`, { token, body })
const lastSeen = () => seen.at(-1)!

describe('the request is built from the document', () => {
  test('path values percent-encoded into their segment, query styles, headers, and the credential last', async () => {
    const res = await execute('getItem', { arguments: { id: 'a/../b c', tags: ['x', 'y'], filter: { state: 'open' }, 'X-Trace': 't-1' } })
    expect(res.status).toBe(200)
    expect(lastSeen().url).toBe('/base/items/a%2F..%2Fb%20c?tags=x&tags=y&filter%5Bstate%5D=open')
    expect(lastSeen().headers['x-trace']).toBe('t-1')
    expect(lastSeen().headers['x-api-key']).toBe('owner-key')
    expect(lastSeen().headers.authorization).toBeUndefined()
    expect(res.body).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json;charset=utf-8', link: '<https://x>; rel="next"', date: expect.any(String) },
      body: { id: 'a/../b c', n: 1 },
      truncated: false,
      duration_ms: expect.any(Number),
      interaction_id: expect.any(String),
      dry_run: false,
    })
  })

  test('"." and ".." cannot be path values (they would climb out of the template)', async () => {
    for (const id of ['..', '.']) {
      const res = await execute('getItem', { arguments: { id } })
      expect(res.status).toBe(422)
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'arguments', 'id'], type: 'value_error' })
    }
  })

  test('a JSON body and a form body', async () => {
    expect((await execute('putItem', { arguments: { id: '7', body: { name: 'n', count: 2 } } })).status).toBe(200)
    expect(lastSeen()).toMatchObject({ method: 'PUT', url: '/base/items/7', body: '{"name":"n","count":2}' })
    expect(lastSeen().headers['content-type']).toBe('application/json')
    const form = await execute('postForm', { arguments: { body: { a: 'x y', b: ['1', '2'] } } })
    expect(form.body).toMatchObject({ status: 204, body: null })
    expect(lastSeen().body).toBe('a=x+y&b=1&b=2')
    expect(lastSeen().headers['x-api-key']).toBeUndefined()
  })

  test("the caller's own request headers and token never reach the upstream", async () => {
    await p.t.request('POST', '/api/applications/echo/operations/status/execute', {
      token: p.owner.token,
      body: { arguments: { code: 200 } },
      headers: { 'x-custom': 'mine', cookie: 'session=abc' },
    })
    expect(lastSeen().headers['x-custom']).toBeUndefined()
    expect(lastSeen().headers.cookie).toBeUndefined()
    expect(lastSeen().headers.authorization).toBeUndefined()
  })
})

describe('arguments and credentials are checked before anything is sent', () => {
  test('arguments of the wrong type: 422 with every problem under ["body","arguments",…]; nothing sent, nothing recorded', async () => {
    const count = seen.length
    const res = await execute('putItem', { arguments: { id: 5, body: { count: 'x' }, extra: true } })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((issue: any) => [issue.loc, issue.type])).toEqual(
      expect.arrayContaining([
        [['body', 'arguments', 'id'], 'string_type'],
        [['body', 'arguments', 'body', 'name'], 'missing'],
        [['body', 'arguments', 'body', 'count'], 'int_type'],
        [['body', 'arguments', 'extra'], 'extra_forbidden'],
      ]),
    )
    expect((await execute('getItem', { arguments: { id: '1', limit: 51 } })).body.detail[0]).toMatchObject({
      loc: ['body', 'arguments', 'limit'],
      type: 'less_than_equal',
    })
    expect((await execute('getItem', { arguments: [] })).status).toBe(422)
    expect(seen.length).toBe(count)
  })

  test('no credential for the scheme: 400 naming it; unknown operation or application: 404', async () => {
    const res = await execute('getItem', { arguments: { id: '1' } }, p.viewer.token)
    expect(res.status).toBe(400)
    expect(res.body.detail).toContain('"key"')
    expect((await execute('nope', {})).status).toBe(404)
    expect((await p.t.request('POST', '/api/applications/nope/operations/x/execute', { token: p.owner.token, body: {} })).status).toBe(404)
  })

  test('dry run: the sample from the document, without credentials, network or a record', async () => {
    const count = seen.length
    const res = await execute('getItem', { arguments: { id: '1' }, dry_run: true }, p.viewer.token)
    expect(res.body).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { id: 'string', n: 0 },
      truncated: false,
      duration_ms: 0,
      interaction_id: null,
      dry_run: true,
    })
    expect(seen.length).toBe(count)
  })
})

describe('the upstream answer', () => {
  test('an upstream error status is passed through in the envelope with safe headers only', async () => {
    const res = await execute('status', { arguments: { code: 503 } })
    expect(res.status).toBe(200)
    expect(res.body.status).toBe(503)
    expect(res.body.body).toEqual({ error: 'nope' })
    expect(res.body.headers['x-ratelimit-remaining']).toBe('9')
    expect(res.body.headers['set-cookie']).toBeUndefined()
  })

  test('an endless answer is cut at 5 MiB with truncated: true', async () => {
    const res = await execute('huge', {})
    expect(res.body.truncated).toBe(true)
    expect(res.body.body.length).toBe(5 * 1024 * 1024)
  })

  test('a query-parameter key is applied and not logged', async () => {
    await execute('queryKey', {})
    expect(lastSeen().url).toBe('/base/query-key?api_key=query-secret')
    expect(p.t.log.lines.map((line) => JSON.stringify(line)).join('\n')).not.toContain('query-secret')
  })

  test('a redirect to another origin drops the credential; one to a forbidden address is a 502', async () => {
    const res = await execute('redirect', { arguments: { to: `http://127.0.0.1:${other.port}/landing` } })
    expect(res.body.body).toEqual({ other: true })
    expect(lastSeen().url).toBe('/landing')
    expect(lastSeen().headers['x-api-key']).toBeUndefined()
    const forbidden = await execute('redirect', { arguments: { to: 'http://169.254.169.254/latest/meta-data/' } })
    expect(forbidden.status).toBe(502)
    expect(forbidden.body).toEqual({ detail: 'Destination not allowed' })
  })

  test('calls are recorded as api_action with the title and operation, and the summary counts them', async () => {
    const before = await p.t.request('POST', '/api/interaction/summary', { token: p.owner.token, body: {} })
    await execute('status', { arguments: { code: 200 } })
    const after = await p.t.request('POST', '/api/interaction/summary', { token: p.owner.token, body: {} })
    expect(JSON.stringify(after.body)).not.toEqual(JSON.stringify(before.body))
    const row = (await p.t.sql.get("SELECT kind, api_title, action, arguments FROM interactions WHERE action = 'status' ORDER BY id DESC LIMIT 1")) as any
    expect(row).toEqual({ kind: 'api_action', api_title: 'Echo API', action: 'status', arguments: '{"code":200}' })
  })
})
