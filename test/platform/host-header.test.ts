// A 1–3 character Host header must not shift routing (issue 14, item 13): Elysia reads the path from a fixed URL offset.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let token: string
beforeAll(async () => {
  t = await startTestServer()
  token = (await t.provision()).adminToken
})
afterAll(() => t.close())

const send = (url: string, init: RequestInit = {}) =>
  t.server.fetch(new Request(url, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } }))

describe('short Host headers', () => {
  test.each(['x', 'ab', 'abc', 'x:1'])('Host %p: a prefixed path is 404, the real path is served', async (host) => {
    expect((await send(`http://${host}/zz/api/auth/me`)).status).toBe(404)
    expect((await send(`http://${host}/z/api/auth/me`)).status).toBe(404)
    const me = await send(`http://${host}/api/auth/me`)
    expect(me.status).toBe(200)
    expect((await me.json()).email).toBe(ADMIN.email)
  })

  test('https with a short host and a request with a body are re-addressed intact', async () => {
    expect((await send('https://x/zzz/api/auth/me')).status).toBe(404)
    const login = await send('http://x/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
    })
    expect(login.status).toBe(200)
    expect(login.headers.get('x-request-id')).toBeTruthy()
  })
})
