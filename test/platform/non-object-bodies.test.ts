// Every JSON body of the API is an object (issue 14, item 19): 42, true, "x", [] or null is a 422 on ["body"] on every route.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let routes: { method: string; path: string }[]
beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
  const document = (await t.request('GET', '/api/openapi.json')).body as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>
  }
  // The API's routes; the OAuth endpoints (/oauth/…) answer RFC 6749 errors instead (test/oauth), and the GPT actions
  // (/api/gpt_public/…) take a GPT's key, checked before the body is read: an admin's token is a 401 there, unread.
  const apiPaths = Object.entries(document.paths).filter(([path]) => path.startsWith('/api/') && !path.startsWith('/api/gpt_public/'))
  routes = apiPaths.flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.requestBody?.content?.['application/json'])
      .map(([method, _]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x') })),
  )
})
afterAll(() => t.close())

describe('non-object JSON bodies', () => {
  test('the document has JSON body routes to walk', () => {
    expect(routes.length).toBeGreaterThan(15)
    expect(routes).toContainEqual({ method: 'PUT', path: '/api/org/settings' })
    expect(routes).toContainEqual({ method: 'POST', path: '/api/workflows/x/x/run' })
  })

  test.each(['42', 'true', '"x"', '[]', 'null', '[{"name":"a"}]'])('body %s is refused with 422 on every route, before anything runs', async (raw) => {
    const answers = await Promise.all(
      routes.map(async ({ method, path }) => {
        const res = await t.request(method, path, { token: adminToken, rawBody: raw, headers: { 'content-type': 'application/json' } })
        return { route: `${method} ${path}`, status: res.status, loc: res.body?.detail?.[0]?.loc, type: res.body?.detail?.[0]?.type }
      }),
    )
    for (const answer of answers) expect(answer).toEqual({ route: answer.route, status: 422, loc: ['body'], type: 'model_type' })
    // PUT /api/org/settings with `true` used to answer 200 as "no changes".
    expect((await t.request('GET', '/api/audit', { token: adminToken })).body.filter((e: { action: string }) => e.action.includes('settings'))).toEqual([])
  })
})
