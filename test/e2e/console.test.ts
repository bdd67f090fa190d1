// The web console in a real browser (Debian's Chromium via playwright-core) against the compiled binary: setup wizard,
// sign-in, overview, approving a waiting run, the usage chart; screenshots go to test-results/console/.
import type { Subprocess } from 'bun'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { issueTestLicense } from '../helpers/license.ts'

const CHROMIUM = '/usr/bin/chromium'
const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`e2e: ${CHROMIUM} is missing (apt-get install chromium); the browser suite is skipped`)

const ROOT = resolve(import.meta.dir, '../..')
const SHOTS = join(ROOT, 'test-results', 'console')
const SETUP_TOKEN = 'e2e-setup-token-0123456789abcdef'
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' }
// Chromium's own background traffic is refused on closed networks; these flags keep it quiet and the launch fast.
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

const tmp = mkdtempSync(join(tmpdir(), 'agentbox-e2e-'))
let proc: Subprocess<'ignore', 'pipe', 'pipe'> | undefined
let base = ''
let browser: Browser
let context: BrowserContext
let page: Page
const pageErrors: string[] = []

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function api(method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const json = await res.json().catch(() => null)
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

const shot = (name: string, target: Page = page) => target.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

describe.skipIf(!hasChromium)('web console in Chromium, against the compiled binary', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    const bin = join(tmp, 'agentbox')
    const build = Bun.spawnSync([process.execPath, 'scripts/build.ts'], { cwd: ROOT, env: { ...process.env, AGENTBOX_BUILD_OUTFILE: bin }, stdout: 'pipe', stderr: 'pipe' })
    if (build.exitCode !== 0) throw new Error(`build failed:\n${build.stdout}\n${build.stderr}`)
    const port = freePort()
    base = `http://127.0.0.1:${port}`
    proc = Bun.spawn([bin, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', join(tmp, 'data')], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' },
      stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
    })
    for (let i = 0; i < 300; i++) {
      if (await fetch(`${base}/api/health/live`).then((r) => r.ok, () => false)) break
      await Bun.sleep(20)
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    context.setDefaultTimeout(10_000)
    page = await context.newPage()
    page.on('pageerror', (error) => pageErrors.push(String(error)))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    proc?.kill('SIGKILL')
    await proc?.exited
    rmSync(tmp, { recursive: true, force: true })
  }, 30_000)

  test('/ sends an unprovisioned instance to the wizard; a bad licence shows the server reason, a good one the org token once', async () => {
    await page.goto(`${base}/`)
    expect(new URL(page.url()).pathname).toBe('/setup')
    await page.goto(`${base}/setup?token=${SETUP_TOKEN}`)
    await page.getByLabel('Licence').fill('not-a-licence')
    await page.getByLabel('Admin e-mail').fill(ADMIN.email)
    await page.getByLabel('Admin name').fill(ADMIN.name)
    await page.getByLabel('Admin password').fill(ADMIN.password)
    await page.getByLabel('Confirm password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Finish setup' }).click()
    const reason = page.locator('#license_token-error')
    await reason.filter({ hasText: /\S/ }).waitFor()
    expect(await reason.textContent()).toMatch(/licen[cs]e/i)
    expect(await page.getByLabel('Licence').getAttribute('aria-invalid')).toBe('true')
    await shot('01-setup-bad-licence')

    await page.getByLabel('Licence').fill(issueTestLicense({ seats: 10 }))
    await page.getByRole('button', { name: 'Finish setup' }).click()
    const token = page.getByLabel('Organisation token')
    await token.waitFor()
    expect(await token.inputValue()).toMatch(/^abx_org_/)
    await page.getByText('it will not be shown again').waitFor()
    expect(await page.getByRole('button', { name: 'Copy token' }).isVisible()).toBe(true)
    await shot('02-setup-done')
    await page.getByRole('button', { name: 'Continue to sign in' }).click()
    await page.getByRole('heading', { name: 'Sign in to Agentbox' }).waitFor()
  }, 30_000)

  test('sign-in shows the server error on a wrong password, then the overview with the licence and the test banner', async () => {
    await page.goto(`${base}/`)
    await page.getByLabel('E-mail').fill(ADMIN.email)
    await page.getByLabel('Password').fill('wrong password!!')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Invalid credentials' }).waitFor()
    await shot('03-sign-in-wrong-password')
    await page.getByLabel('Password').fill(ADMIN.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    await page.getByText('1 / 10').waitFor()
    await page.getByText(/Test licence/).waitFor()
    expect(new URL(page.url()).pathname).toBe('/overview')
    await shot('04-overview')
  }, 30_000)

  test('a run waiting at an approval gate is approved, with edits, from the approvals page', async () => {
    const { access_token: token } = await api('POST', '/api/auth/login', { email: ADMIN.email, password: ADMIN.password })
    await api('POST', '/api/agents', { name: 'refund-bot', description: 'Refunds', instructions: 'Handle refunds' }, token)
    const definition = {
      nodes: [
        { id: 'prep', type: 'agentbox.set', params: { values: { amount: '{{ $json.amount }}', note: 'refund' } } },
        { id: 'gate', type: 'agentbox.approval', params: { message: 'Refund {{ $json.amount }}?' } },
        { id: 'out', type: 'agentbox.output', params: { value: '{{ $json }}' } },
      ],
      connections: [{ from: 'prep', to: 'gate' }, { from: 'gate', port: 'approved', to: 'out' }],
    }
    const flow = await api('POST', '/api/workflows/refund-bot', { name: 'refund', definition }, token)
    await api('POST', '/api/agents/refund-bot/publish', {}, token)
    const run = await api('POST', `/api/workflows/refund-bot/${flow.id}/run`, { input: { amount: 5 } }, token)
    expect(run.status).toBe('waiting_human')

    await page.getByRole('link', { name: 'Approvals' }).click()
    await page.getByText('Refund 5?').waitFor()
    expect(await page.getByRole('figure', { name: 'Gate data' }).textContent()).toContain('"amount": 5')
    await shot('05-approvals-waiting')
    await page.getByLabel(/Edits to apply/).fill('{"amount": 4}')
    await page.getByRole('button', { name: 'Approve' }).click()
    const result = page.getByRole('status').filter({ hasText: 'refund-bot · refund: succeeded' })
    await result.waitFor()
    expect(await result.textContent()).toContain('"amount": 4')
    await page.getByText('Nothing is waiting for your approval.').waitFor()
    await shot('06-approvals-approved')
    expect((await api('GET', `/api/workflows/refund-bot/runs/${run.run_id}`, undefined, token)).status).toBe('succeeded')
  }, 30_000)

  test('the usage page draws the interaction summary as a chart', async () => {
    const { access_token: token } = await api('POST', '/api/auth/login', { email: ADMIN.email, password: ADMIN.password })
    for (const [server, n] of [['github', 3], ['jira', 2]] as const) {
      for (let i = 0; i < n; i++) await api('POST', '/api/interaction/record-mcp-tool', { tool_name: 'search', mcp_server_name: server, duration_seconds: 0.1 }, token)
    }
    await page.getByRole('link', { name: 'Usage' }).click()
    const bars = page.locator('figure.chart svg rect')
    await bars.first().waitFor()
    expect(await bars.count()).toBe(2)
    expect(await page.locator('.legend li').allTextContents()).toEqual(['github', 'jira'])
    await shot('07-usage-daily')
    await page.getByLabel('Period', { exact: true }).selectOption('monthly')
    await page.locator('figure.chart svg rect').first().waitFor()
    await shot('08-usage-monthly')
  }, 30_000)

  test('the overview and the approvals page stay usable at phone width (375 px)', async () => {
    // Same tab (the session lives in sessionStorage, per tab), narrowed to a phone's width.
    await page.setViewportSize({ width: 375, height: 800 })
    try {
      for (const [path, heading, name] of [['/overview', 'Overview', '09-overview-phone'], ['/approvals', 'Approvals', '10-approvals-phone']] as const) {
        await page.goto(`${base}${path}`)
        await page.getByRole('heading', { name: heading }).waitFor()
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        expect(overflow).toBeLessThanOrEqual(0)
        await shot(name)
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 })
    }
  }, 30_000)

  test('no uncaught errors on any page', () => {
    expect(pageErrors).toEqual([])
  })
})
