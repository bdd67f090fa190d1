// A trailing slash must not widen an action (issue 25, item 10): `DELETE /api/auth/tokens/` (an empty token id) used to
// revoke every token of the caller. Every route that acts on a collection with the same method as on one of its items
// refuses the trailing slash; this file finds them all, so a new one cannot slip in.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
beforeAll(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
})
afterAll(() => t.close())

const works = async (token: string) => (await t.request('GET', '/api/auth/me', { token })).status === 200
const newPat = async (name: string) => (await t.request('POST', '/api/auth/tokens', { token: adminToken, body: { name } })).body.token as string

describe('DELETE /api/auth/tokens/', () => {
  test('is 404 and revokes nothing; without the slash it still revokes them all', async () => {
    const pats = [await newPat('a'), await newPat('b')]
    const slash = await t.request('DELETE', '/api/auth/tokens/', { token: adminToken })
    expect(slash.status).toBe(404)
    expect(slash.body).toEqual({ detail: 'Not Found' })
    for (const pat of pats) expect(await works(pat)).toBe(true)
    // Anonymous callers still get 401 first, as on every guarded route.
    expect((await t.request('DELETE', '/api/auth/tokens/')).status).toBe(401)
    expect((await t.request('DELETE', '/api/auth/tokens', { token: adminToken })).body.revoked).toBeGreaterThanOrEqual(2)
    for (const pat of pats) expect(await works(pat)).toBe(false)
  })

  test('an empty id elsewhere in a path matches nothing', async () => {
    const id = (await t.request('GET', '/api/auth/me', { token: adminToken })).body.id
    const pat = await newPat('c')
    expect((await t.request('DELETE', '/api/users//tokens', { token: adminToken })).status).toBe(404)
    expect(await works(pat)).toBe(true)
    expect((await t.request('GET', `/api/users/${id}/tokens/`, { token: adminToken })).status).toBe(200)
  })
})

describe('every collection route whose items take the same method', () => {
  test('refuses the trailing slash when the method changes something', async () => {
    const routes = (t.server.app.routes as { method: string; path: string }[]).map(({ method, path }) => ({ method, path }))
    const ambiguous = routes.filter(
      (route) =>
        ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method) &&
        routes.some((item) => item.method === route.method && new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/:[^/]+$`).test(item.path)),
    )
    expect(ambiguous.map((route) => `${route.method} ${route.path}`)).toEqual(['DELETE /api/auth/tokens', 'POST /api/ui-templates/vcs/sync/:api_name'])
    for (const route of ambiguous) {
      const path = route.path.replace(/:[^/]+/g, 'x')
      expect((await t.request(route.method, `${path}/`, { token: adminToken, body: route.method === 'DELETE' ? undefined : {} })).status).toBe(404)
    }
  })
})
