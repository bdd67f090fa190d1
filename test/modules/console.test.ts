// Serving the web console from source: the page, its assets and content types, the SPA fallback, and /api/* staying JSON.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CONSOLE_PATHS } from '../../src/modules/console/routes.ts'
import { PAGES } from '../../src/web/frame.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
const get = (path: string) => t.server.fetch(new Request(`http://localhost${path}`))

beforeAll(async () => {
  t = await startTestServer()
  await t.provision()
})
afterAll(() => t.close())

describe('the console once provisioned', () => {
  test('/ serves the app page (sign-in), with no external URL and no inline script', async () => {
    const res = await get('/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-store')
    const html = await res.text()
    expect(html).toMatch(/<script type="module" src="\/console\/app\.js\?v=[0-9a-f]{12}"><\/script>/)
    expect(html).toMatch(/<link rel="stylesheet" href="\/console\/app\.css\?v=[0-9a-f]{12}">/)
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i)
  })

  test('app.js and app.css are served with their content types, cacheable, and load nothing from outside', async () => {
    const js = await get('/console/app.js')
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(js.headers.get('cache-control')).toContain('immutable')
    const code = await js.text()
    expect(code.length).toBeGreaterThan(1000)
    expect(code).not.toMatch(/(src|href)\s*=\s*["'`]https?:/)
    const css = await get('/console/app.css')
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8')
    const sheet = await css.text()
    expect(sheet).toContain(':root')
    expect(sheet).not.toMatch(/@import|url\(/)
  })

  test("every page of the console's navigation is a console path (a reload of /gpt-apps was a 404)", () => {
    for (const page of PAGES) expect(CONSOLE_PATHS as readonly string[], page.path).toContain(page.path)
  })

  test('every console path (and below it) gets the app page, so reloads and links work', async () => {
    for (const path of [...CONSOLE_PATHS, '/login', '/tasks/some-id']) {
      const res = await get(path)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toContain('text/html')
    }
  })

  test('/setup sends a provisioned instance to /', async () => {
    const res = await get('/setup')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/')
  })

  test('unknown /api/* paths and unknown top-level paths stay JSON 404s, never the app page', async () => {
    for (const path of ['/api/nope', '/api/overview', '/nope', '/console/other.js']) {
      const res = await get(path)
      expect(res.status, path).toBe(404)
      expect(res.headers.get('content-type')).toContain('application/json')
      expect(await res.json()).toEqual({ detail: 'Not Found' })
    }
  })
})

describe('the console before setup', () => {
  test('console paths send an unprovisioned instance to the wizard', async () => {
    const fresh = await startTestServer()
    try {
      for (const path of ['/', '/overview', '/login']) {
        const res = await fresh.server.fetch(new Request(`http://localhost${path}`))
        expect(res.status, path).toBe(302)
        expect(res.headers.get('location')).toBe('/setup')
      }
      expect((await fresh.server.fetch(new Request('http://localhost/setup?token=x'))).status).toBe(200)
    } finally {
      await fresh.close()
    }
  })
})
