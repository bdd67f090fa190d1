// The console's icon (issue 26, item 7): /favicon.ico and /favicon.svg answer on a fresh instance and a provisioned one,
// and the console page names both. test/e2e/history-console.test.ts fetches them from the compiled binary.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
beforeAll(async () => (t = await startTestServer()))
afterAll(() => t.close())

const get = (path: string) => t.server.fetch(new Request(`http://localhost${path}`))
const WEB = join(import.meta.dir, '..', '..', 'src', 'web')

async function expectIcons() {
  const ico = await get('/favicon.ico')
  expect(ico.status).toBe(200)
  expect(ico.headers.get('content-type')).toBe('image/x-icon')
  expect(ico.headers.get('cache-control')).toBe('public, max-age=86400')
  expect(new Uint8Array(await ico.arrayBuffer())).toEqual(new Uint8Array(readFileSync(join(WEB, 'favicon.ico'))))
  const svg = await get('/favicon.svg')
  expect(svg.status).toBe(200)
  expect(svg.headers.get('content-type')).toBe('image/svg+xml')
  expect(await svg.text()).toBe(readFileSync(join(WEB, 'favicon.svg'), 'utf8'))
}

test('before setup the icons answer (the wizard shows them), and after', async () => {
  await expectIcons()
  await t.provision()
  await expectIcons()
})

test('the console page and the API reference name both icons', async () => {
  for (const path of ['/overview', '/history', '/api/docs']) {
    const html = await (await get(path)).text()
    expect(html).toContain('<link rel="icon" href="/favicon.ico" sizes="48x48">')
    expect(html).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">')
  }
})

test('the ICO holds 16, 32 and 48 px images', () => {
  const ico = readFileSync(join(WEB, 'favicon.ico'))
  expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, 3])
  expect([0, 1, 2].map((i) => ico.readUInt8(6 + 16 * i))).toEqual([16, 32, 48])
})
