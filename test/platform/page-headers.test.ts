// The console and the API reference tell browsers what they may load and that they may not be framed (issue 14, item 15).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
})
afterAll(() => t.close())

const get = (path: string) => t.server.fetch(new Request(`http://localhost${path}`))
const directives = (res: Response) =>
  new Map(
    (res.headers.get('content-security-policy') ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  )

describe('page security headers', () => {
  test.each(['/', '/overview', '/settings/tokens', '/api/docs'])('%s: CSP without inline scripts, never framed, no referrer, nosniff', async (path) => {
    const res = await get(path)
    expect(res.status).toBe(200)
    const csp = directives(res)
    expect(csp.get('frame-ancestors')).toEqual(["'none'"])
    expect(csp.get('script-src')).toEqual(["'self'"])
    expect(csp.get('default-src')).toEqual(["'self'"])
    expect(csp.get('object-src')).toEqual(["'none'"])
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('referrer-policy')).toBe('no-referrer')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // The policy refuses inline scripts, so the page must not have any.
    const html = await res.text()
    for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? []) expect(tag).toMatch(/^<script\b[^>]*\bsrc="[^"]+"[^>]*><\/script>$/)
  })

  test('the reference page loads its start-up script from a file that starts Swagger UI on our document', async () => {
    const res = await get('/api/docs/init.js')
    expect(res.headers.get('content-type')).toStartWith('text/javascript')
    expect(await res.text()).toContain("url: '/api/openapi.json'")
  })

  test('API answers carry nosniff too, errors included', async () => {
    const me = await t.request('GET', '/api/auth/me', { token: adminToken })
    expect(me.headers.get('x-content-type-options')).toBe('nosniff')
    const missing = await t.request('GET', '/api/nothing-here')
    expect(missing.status).toBe(404)
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff')
  })
})
