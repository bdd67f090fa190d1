// The 401 challenge is the route's choice (issue 15, item 2): MCP endpoints answer `Bearer resource_metadata="…"`
// so that clients can discover how to sign in; every other route keeps the plain `Bearer`.
import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { authGuard } from '../../src/platform/auth/guard.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { forbidden } from '../../src/platform/errors.ts'
import { notAuthenticated } from '../../src/platform/http/http-error.ts'
import { httpPlatform } from '../../src/platform/http/http-platform.ts'
import { CapturedLog } from '../helpers/server.ts'

const member: Principal = { userId: 'u1', email: 'm@example.com', name: 'M', role: 'member', kind: 'person', via: 'access_token', tokenId: null }

// The guard under test with the one authenticator rule that matters here: "good" is a member, anything else is a 401.
const guard = authGuard({
  authenticate: (authorization) => {
    if (authorization === 'Bearer good') return member
    if (authorization === 'Bearer boom') throw forbidden('not a 401')
    throw notAuthenticated()
  },
  licenseLapsed: () => false,
  synchronous: true,
})

const app = new Elysia()
  .use(httpPlatform({ logger: new CapturedLog(), limits: { json: 1024, upload: 1024 } }))
  .use(guard)
  .get('/plain', ({ principal }) => ({ who: principal.userId }), { auth: 'member' })
  .get('/mcp', ({ principal }) => ({ who: principal.userId }), {
    auth: {
      role: 'member',
      challenge: (request: Request) => `Bearer resource_metadata="${new URL(request.url).origin}/.well-known/oauth-protected-resource/mcp"`,
    },
  })
  .get('/fixed', () => ({}), { auth: { role: 'member', challenge: 'Bearer realm="agentbox"' } })

const get = (path: string, authorization?: string) => app.handle(new Request(`http://box.example${path}`, { headers: authorization ? { authorization } : {} }))

describe('the 401 challenge per route', () => {
  test('routes without one answer the plain Bearer challenge', async () => {
    const res = await get('/plain')
    expect(res.status).toBe(401)
    expect(res.headers.get('www-authenticate')).toBe('Bearer')
    expect(await res.json()).toEqual({ detail: 'Not authenticated' })
  })

  test("a route's challenge replaces it, computed from the request when it is a function", async () => {
    const mcp = await get('/mcp', 'Bearer wrong')
    expect(mcp.status).toBe(401)
    expect(mcp.headers.get('www-authenticate')).toBe('Bearer resource_metadata="http://box.example/.well-known/oauth-protected-resource/mcp"')
    expect(await mcp.json()).toEqual({ detail: 'Not authenticated' })
    expect((await get('/fixed')).headers.get('www-authenticate')).toBe('Bearer realm="agentbox"')
  })

  test('an accepted token and other errors are untouched', async () => {
    expect(await (await get('/mcp', 'Bearer good')).json()).toEqual({ who: 'u1' })
    const refused = await get('/mcp', 'Bearer boom')
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toBeNull()
  })
})
