// Authentication comes before the body: a request to a route that needs credentials, without valid ones, gets the
// guard's 401 (its body and WWW-Authenticate as before) and the server never reads what it sent. Proved by bodies that
// never end and count what was pulled from them, and over a real socket by a request whose declared 7 MiB never
// arrive. With credentials the body is read as before, and the principal is looked up once a request.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { connect } from 'node:net'
import { authGuard } from '../../src/platform/auth/guard.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { beforeBodyChecksOf, type RouteBeforeBody } from '../../src/platform/http/before-body.ts'
import { notAuthenticated } from '../../src/platform/http/http-error.ts'
import { DATABASE_UNAVAILABLE } from '../../src/platform/db/unavailable.ts'
import { httpPlatform } from '../../src/platform/http/http-platform.ts'
import { CapturedLog, startTestServer, type TestServer } from '../helpers/server.ts'

const MiB = 1024 * 1024
const CHUNK = new Uint8Array(64 * 1024).fill(0x61)

/** A body that never ends: every pull hands out 64 KiB and counts it. Nothing is pulled until someone reads. */
function endlessBody(): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        pulled += CHUNK.byteLength
        controller.enqueue(CHUNK)
      },
    },
    { highWaterMark: 0 },
  )
  return { stream, pulled: () => pulled }
}

let t: TestServer
let adminToken: string
let memberToken: string
let base: string

beforeAll(async () => {
  t = await startTestServer({ env: { AGENTBOX_PORT: '0', AGENTBOX_HOST: '127.0.0.1' } })
  ;({ adminToken } = await t.provision())
  memberToken = (await t.createUser(adminToken, { email: 'member@example.com', password: 'member password 1' })).token
  base = `127.0.0.1:${t.server.start()}`
})
afterAll(() => t.close())

const TEMPLATE_CREATE = '/api/ui-templates/pets/operations/listPets'

/** What the guard answers today, seen on a request without a body (GET: authenticated in transform, as always). */
async function guardAnswer(token?: string) {
  const res = await t.request('GET', TEMPLATE_CREATE, { token })
  return { status: res.status, body: res.body, challenge: res.headers.get('www-authenticate') }
}

async function sendEndless(method: string, path: string, headers: Record<string, string>, token?: string) {
  const body = endlessBody()
  const res = await t.request(method, path, { token, rawBody: body.stream, headers })
  return { status: res.status, body: res.body, challenge: res.headers.get('www-authenticate'), pulled: body.pulled() }
}

describe('without valid credentials the body is never read', () => {
  const tokens: Record<string, () => string | undefined> = {
    missing: () => undefined,
    malformed: () => 'not-a-token',
    'a made-up API token': () => 'abx_pat_0000000000000000000000000000000000000000',
    "a GPT key's shape (the wrong kind of API token)": () => 'abx_gpt_0000000000000000000000000000000000000000',
  }
  for (const [name, token] of Object.entries(tokens)) {
    test(`${name}: a 7 MiB template body gets the guard's 401, unread`, async () => {
      const answer = await sendEndless('POST', TEMPLATE_CREATE, { 'content-type': 'application/json' }, token())
      expect(answer.pulled).toBe(0)
      const { pulled: _, ...seen } = answer
      expect(seen).toEqual(await guardAnswer(token()))
      expect(seen).toEqual({ status: 401, body: { detail: 'Not authenticated' }, challenge: 'Bearer' })
    })
  }

  test('an expired access token and a revoked API token: 401 as before, unread', async () => {
    const created = await t.request('POST', '/api/auth/tokens', { token: memberToken, body: { name: 'soon revoked' } })
    expect(created.status).toBe(201)
    expect((await t.request('DELETE', `/api/auth/tokens/${created.body.id}`, { token: memberToken })).status).toBe(200)
    const revoked = await sendEndless('POST', '/api/user/settings/update', { 'content-type': 'application/json' }, created.body.token)
    expect(revoked).toEqual({ ...(await guardAnswer(created.body.token)), pulled: 0 })
    expect(revoked.status).toBe(401)

    const shortLived = await t.login('member@example.com', 'member password 1')
    t.clock.advance(13 * 60 * 60 * 1000)
    const expired = await sendEndless('POST', '/api/user/settings/update', { 'content-type': 'application/json' }, shortLived)
    expect(expired).toEqual({ ...(await guardAnswer(shortLived)), pulled: 0 })
    expect(expired.status).toBe(401)
    memberToken = await t.login('member@example.com', 'member password 1')
  })

  test('a 32 MiB API description upload (multipart, its length declared) gets 401 unread', async () => {
    const answer = await sendEndless('POST', '/api/spec_from_file/', {
      'content-type': 'multipart/form-data; boundary=xyz',
      'content-length': String(32 * MiB),
    })
    expect(answer).toEqual({ status: 401, body: { detail: 'Not authenticated' }, challenge: 'Bearer', pulled: 0 })
  })

  test('an agent bundle upload (10 MiB) and either spelling of a path (trailing slash or not) get 401 unread', async () => {
    const multipart = (size: number) => ({ 'content-type': 'multipart/form-data; boundary=xyz', 'content-length': String(size) })
    const answers = [
      await sendEndless('POST', '/api/agents/import', multipart(10 * MiB)),
      await sendEndless('POST', '/api/agents/import/', multipart(10 * MiB)),
      await sendEndless('POST', '/api/spec_from_file', multipart(32 * MiB)),
      await sendEndless('POST', `${TEMPLATE_CREATE}/`, { 'content-type': 'application/json' }),
    ]
    for (const answer of answers) expect(answer).toEqual({ status: 401, body: { detail: 'Not authenticated' }, challenge: 'Bearer', pulled: 0 })
  })

  test('a member sending a body to an admin route gets 403 unread', async () => {
    const answer = await sendEndless('PUT', '/api/org/settings', { 'content-type': 'application/json' }, memberToken)
    expect(answer).toMatchObject({ status: 403, pulled: 0 })
  })

  test('a GPT action without a key gets the key check’s 401 unread (the same as on its GET route)', async () => {
    const answer = await sendEndless('POST', '/api/gpt_public/app_execute_action', { 'content-type': 'application/json' })
    const listed = await t.request('GET', '/api/gpt_public/apps_list')
    expect(answer).toEqual({ status: 401, body: listed.body, challenge: listed.headers.get('www-authenticate'), pulled: 0 })
  })

  test('MCP (which reads its own body after its own authentication) keeps its 401 with the discovery challenge, unread', async () => {
    const answer = await sendEndless('POST', '/mcp/gateway', { 'content-type': 'application/json' })
    expect(answer.status).toBe(401)
    expect(answer.challenge).toContain('resource_metadata=')
    expect(answer.pulled).toBe(0)
  })

  test('over a real socket: the 401 arrives while the declared 7 MiB body has not been sent', async () => {
    const [host, port] = base.split(':') as [string, string]
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host, port: Number(port) }, () => {
        socket.write(`POST ${TEMPLATE_CREATE} HTTP/1.1\r\nHost: ${base}\r\nContent-Type: application/json\r\nContent-Length: ${7 * MiB}\r\n\r\n{"html":"`)
      })
      let received = ''
      socket.on('data', (data) => {
        received += data.toString('latin1')
        const headEnd = received.indexOf('\r\n\r\n')
        const length = /content-length: (\d+)/i.exec(received)?.[1]
        if (headEnd !== -1 && length !== undefined && received.length >= headEnd + 4 + Number(length)) {
          socket.destroy()
          resolve(received)
        }
      })
      socket.on('error', reject)
    })
    expect(response.startsWith('HTTP/1.1 401')).toBe(true)
    expect(response).toMatch(/www-authenticate: Bearer\r\n/i)
    expect(response.endsWith('{"detail":"Not authenticated"}')).toBe(true)
  })
})

describe('with valid credentials the body is read as before', () => {
  test('the same endless body is read up to the 7 MiB cap and refused with 413', async () => {
    const answer = await sendEndless('POST', TEMPLATE_CREATE, { 'content-type': 'application/json' }, memberToken)
    expect(answer.status).toBe(413)
    expect(answer.body).toEqual({ detail: 'Request body too large' })
    expect(answer.pulled).toBeGreaterThan(7 * MiB)
  })

  test('a JSON body reaches the route: validated, then answered', async () => {
    const malformed = await t.request('POST', '/api/user/settings/update', {
      token: memberToken,
      rawBody: '{"a":',
      headers: { 'content-type': 'application/json' },
    })
    expect(malformed.status).toBe(422)
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' })
    const saved = await t.request('POST', '/api/user/settings/update', { token: memberToken, body: {} })
    expect(saved.status).toBe(200)
  })
})

describe('one principal lookup a request', () => {
  const member: Principal = { userId: 'u1', email: 'm@example.com', name: 'M', role: 'member', kind: 'person', via: 'access_token', tokenId: null }
  for (const synchronous of [true, false]) {
    test(`${synchronous ? 'synchronous (SQLite)' : 'asynchronous (PostgreSQL)'} authentication: once with a body, once without`, async () => {
      let lookups = 0
      const authenticate = (authorization: string | null) => {
        lookups++
        if (authorization !== 'Bearer good') throw notAuthenticated()
        return synchronous ? member : Promise.resolve(member)
      }
      const guard = authGuard({ authenticate, licenseLapsed: () => false, synchronous })
      let routes: readonly RouteBeforeBody[] = []
      const app = new Elysia()
        .use(httpPlatform({ logger: new CapturedLog(), limits: { json: 1024, upload: 1024, beforeBody: beforeBodyChecksOf(() => routes) } }))
        .use(guard)
        .post('/echo/:id', ({ principal, body }) => ({ who: principal.userId, body }), { auth: 'member' })
        .get('/echo/:id', ({ principal }) => ({ who: principal.userId }), { auth: 'member' })
      routes = app.routes
      const post = (authorization: string) =>
        app.handle(new Request('http://localhost/echo/1', { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"a":1}' }))
      expect(await (await post('Bearer good')).json()).toEqual({ who: 'u1', body: { a: 1 } })
      expect(lookups).toBe(1)
      expect((await post('Bearer bad')).status).toBe(401)
      expect(lookups).toBe(2)
      expect(await (await app.handle(new Request('http://localhost/echo/1', { headers: { authorization: 'Bearer good' } }))).json()).toEqual({ who: 'u1' })
      expect(lookups).toBe(3)
    })
  }
})

describe('a check that fails without an answer of its own is not a parse error', () => {
  // PostgreSQL gone while a request with a body is authenticated: the outage's 503, as for a request without a body,
  // not the 422 "JSON decode error" Elysia makes of anything thrown while parsing; a bug is a logged 500.
  for (const synchronous of [true, false]) {
    test(`${synchronous ? 'synchronous' : 'asynchronous'} authentication: an unreachable database is 503, a bug 500`, async () => {
      let failure: Error = new Error('unused')
      const authenticate = () => {
        if (synchronous) throw failure
        return Promise.reject(failure)
      }
      const log = new CapturedLog()
      const guard = authGuard({ authenticate, licenseLapsed: () => false, synchronous })
      let routes: readonly RouteBeforeBody[] = []
      const app = new Elysia()
        .use(httpPlatform({ logger: log, limits: { json: 1024, upload: 1024, beforeBody: beforeBodyChecksOf(() => routes) } }))
        .use(guard)
        .post('/echo', ({ body }) => body, { auth: 'member' })
        .get('/echo', () => ({}), { auth: 'member' })
      routes = app.routes
      const call = (method: 'GET' | 'POST') =>
        app.handle(
          new Request('http://localhost/echo', {
            method,
            headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
            ...(method === 'POST' && { body: '{"a":1}' }),
          }),
        )

      failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
      for (const method of ['POST', 'GET'] as const) {
        const res = await call(method)
        expect({ method, status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({ method, status: 503, retryAfter: '5' })
        expect(await res.json()).toEqual({ detail: DATABASE_UNAVAILABLE })
      }

      failure = new TypeError('a bug in a check')
      for (const method of ['POST', 'GET'] as const) {
        const res = await call(method)
        expect({ method, status: res.status }).toEqual({ method, status: 500 })
        expect(await res.json()).toEqual({ detail: 'Internal Server Error' })
      }
      expect(log.lines.filter((line) => line.msg === 'unhandled error')).toHaveLength(2)
    })
  }
})
