// MCP Apps in the console's chat, in Chromium against a test server (UI templates come from a tool set plugged into the
// chat's external-tools port, as an external MCP server's would): the template drawn in a sandboxed iframe on its own
// page and policy, the JSON-RPC handshake (ui/initialize, initialized, the tool's input and result, size changes), and
// what the view cannot reach (the console's storage, its cookies, the API).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Browser, chromium, type Page } from 'playwright-core'
import { CHROMIUM, hasChromium } from '../e2e/harness.ts'
import { VIEW_TEMPLATE } from './app-template.ts'
import { weatherSet } from './weather-tools.ts'
import { type ChatWorld, startChatWorld } from './world.ts'

describe.skipIf(!hasChromium)('a tool result drawn as an MCP Apps view', () => {
  let w: ChatWorld
  let listener: ReturnType<typeof Bun.serve>
  let base: string
  let browser: Browser
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    w = await startChatWorld()
    w.t.server.modules.chat.service.plugExternalTools(async () => weatherSet('live', VIEW_TEMPLATE, [], { connectDomains: ['https://api.weather.example'] }))
    listener = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request, server) => w.t.server.fetch(request, server as never) })
    base = `http://127.0.0.1:${listener.port}`
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (error) => pageErrors.push(String(error)))
    await page.goto(`${base}/login`)
    await page.getByLabel('E-mail').fill('owner@example.com')
    await page.getByLabel('Password').fill('a long enough password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    listener?.stop(true)
    await w?.stop()
  })

  test('the view gets the tool’s input and result, resizes itself, and is shut off from the console', async () => {
    await page.goto(`${base}/chat`)
    await page.getByLabel('Message').fill('weather__forecast {"city": "Lyon"}')
    await page.getByRole('button', { name: 'Send' }).click()
    const iframe = page.getByTestId('mcp-app')
    await iframe.waitFor()
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts')
    expect(await iframe.getAttribute('src')).toBe('/console/mcp-app-sandbox?connect=https%3A%2F%2Fapi.weather.example')
    const view = page.frameLocator('iframe[data-testid="mcp-app"]')
    await view.getByText('Lyon: 21 degrees').waitFor()
    expect(await view.locator('#input').textContent()).toBe('city: Lyon')
    expect(await view.locator('#title').textContent()).toBe('Forecast in agentbox (inline)')
    // The probes run after the handshake; wait for their verdict.
    await view.locator('#title[data-probes]').waitFor()
    expect(await view.locator('#title').getAttribute('data-probes')).toBe('storage:blocked cookie:blocked fetch:blocked')
    // The view reported its height (its content, past the initial 160 px).
    expect(Number.parseInt((await iframe.evaluate((e) => (e as HTMLElement).style.height)) ?? '0', 10)).toBeGreaterThan(160)
    // The tool call itself stays collapsed, its arguments and result one click away.
    const call = page.getByTestId('tool-call')
    expect(await call.locator('details').getAttribute('open')).toBeNull()
    await call.getByText('weather__forecast').click()
    expect(await call.getByTestId('tool-result').textContent()).toContain('"temp": 21')
    // Reopened from the thread, the result is drawn again with its view.
    await page.reload()
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('button', { name: /weather__forecast/ })
      .click()
    await page.frameLocator('iframe[data-testid="mcp-app"]').getByText('Lyon: 21 degrees').waitFor()
    expect(pageErrors).toEqual([])
  }, 30_000)

  test('the sandbox page: its own policy, widened only by well-formed declared origins', async () => {
    const res = await fetch(
      `${base}/console/mcp-app-sandbox?connect=${encodeURIComponent('https://api.weather.example,javascript:alert(1),https://x.example; script-src *')}`,
    )
    expect(res.status).toBe(200)
    const policy = res.headers.get('content-security-policy')!
    expect(policy).toContain('connect-src https://api.weather.example;')
    expect(policy).toContain("default-src 'none'")
    expect(policy).toContain("frame-ancestors 'self'")
    expect(policy).not.toContain('javascript')
    expect(policy).not.toContain('script-src *')
    expect(res.headers.get('x-frame-options')).toBeNull()
    const bare = await fetch(`${base}/console/mcp-app-sandbox`)
    expect(bare.headers.get('content-security-policy')).toContain("connect-src 'none'")
  })
})
