// The compiled binary and Chromium for the browser tests: launchServer (an unprovisioned instance), launchBrowser, and
// startConsole (both, provisioned and signed in as the admin: one area of the console per test file). The binary is
// built once per test process and shared by every file.
import { dropTestDatabase, testDatabaseEnv } from '../helpers/database.ts'
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { issueTestLicense } from '../helpers/license.ts'
import { removeAtEnd } from '../helpers/remove-at-end.ts'

export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
const ROOT = resolve(import.meta.dir, '../..')
export const SHOTS = join(ROOT, 'test-results', 'console')
export const SETUP_TOKEN = 'e2e-setup-token-0123456789abcdef'
export const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' }
// Chromium's own background traffic is refused on closed networks; these flags keep it quiet and the launch fast.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

let built: Promise<string> | undefined
/** The binary, built into a temp dir once per process (never dist/, so a concurrent build cannot swap it). */
function binary(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentbox-e2e-bin-'))
    // ~150 MB a test process: left behind, a day of runs filled the disk until the servers' writes failed.
    removeAtEnd(dir)
    const bin = join(dir, 'agentbox')
    const build = Bun.spawn([process.execPath, 'scripts/build.ts'], {
      cwd: ROOT,
      env: { ...process.env, AGENTBOX_BUILD_OUTFILE: bin },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    if ((await build.exited) !== 0) throw new Error(`build failed:\n${await new Response(build.stderr).text()}`)
    return bin
  })()
  return built
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

export interface RunningInstance {
  /** http://127.0.0.1:<port> */
  readonly base: string
  /** A private temp dir: the data dir is `data/` in it; tests may put files there. */
  readonly dir: string
  stop(): Promise<void>
}

/**
 * The binary serving a fresh, unprovisioned data dir (setup token SETUP_TOKEN), once it answers. `env` adds to a bare
 * environment: without AGENTBOX_LICENSE_MODE the server runs in production mode, as a copied binary does.
 */
export async function launchServer(env: Record<string, string> = { AGENTBOX_LICENSE_MODE: 'test' }): Promise<RunningInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'agentbox-e2e-'))
  const port = freePort()
  const base = `http://127.0.0.1:${port}`
  // The suite's database: AGENTBOX_DATABASE_URL of a fresh PostgreSQL database on that run, else the data dir's file.
  const database = await testDatabaseEnv(join(dir, 'data'))
  const proc: Subprocess<'ignore', 'pipe', 'pipe'> = Bun.spawn(
    [await binary(), 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', join(dir, 'data')],
    {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn', ...database, ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  // Read for as long as it runs: a pipe nobody reads fills (64 KiB) and the server then blocks on its next log line,
  // mid-request. The last 64 KiB are written beside the screenshots when it stops, to see what it said.
  const output = { text: '' }
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) output.text = (output.text + decoder.decode(chunk, { stream: true })).slice(-65_536)
  }
  void drain(proc.stdout)
  void drain(proc.stderr)
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${base}/api/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    await Bun.sleep(20)
  }
  return {
    base,
    dir,
    async stop() {
      proc.kill('SIGKILL')
      await proc.exited
      if (output.text !== '') {
        mkdirSync(SHOTS, { recursive: true })
        writeFileSync(join(SHOTS, `server-${port}.log`), output.text)
      }
      rmSync(dir, { recursive: true, force: true })
      await dropTestDatabase(join(dir, 'data'))
    },
  }
}

/** Headless Chromium with one 1280 × 800 page whose uncaught errors are collected. */
export async function launchBrowser(): Promise<{ browser: Browser; context: BrowserContext; page: Page; pageErrors: string[] }> {
  mkdirSync(SHOTS, { recursive: true })
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS })
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  // 30 s, not 10: in several full runs on PostgreSQL a console test (once two in a row) waited 10 s for an answer that
  // came later (cause not found; the servers now log requests slower than 2 s as warnings, kept beside the screenshots).
  context.setDefaultTimeout(30_000)
  const page = await context.newPage()
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(String(error)))
  return { browser, context, page, pageErrors }
}

export interface ConsoleSession {
  readonly base: string
  readonly page: Page
  /** The admin's access token, for arranging data through the API. */
  readonly adminToken: string
  /** Errors the page threw (a test should end with none). */
  readonly pageErrors: string[]
  api(method: string, path: string, body?: unknown, token?: string): Promise<any>
  /** A member with this e-mail (password 'a long enough password') and their access token. */
  createMember(email: string): Promise<{ id: string; token: string }>
  /** Signs the browser in as `email` (the admin by default). */
  signIn(email?: string, password?: string): Promise<void>
  shot(name: string): Promise<void>
  stop(): Promise<void>
}

/**
 * A fresh instance (its own data dir) provisioned with a 10-seat test licence, and a page signed in as the admin.
 * `env` adds to the server's environment (AGENTBOX_OUTBOUND_ALLOW for a local git server).
 */
export async function startConsole(env: Record<string, string> = {}): Promise<ConsoleSession> {
  const instance = await launchServer({ AGENTBOX_LICENSE_MODE: 'test', ...env })
  const { base } = instance
  const api = async (method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (token) headers.authorization = `Bearer ${token}`
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const json = await res.json().catch(() => null)
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }
  await api(
    'POST',
    '/api/tenant/setup',
    { license_token: issueTestLicense({ seats: 10, days: 400 }), admin_email: ADMIN.email, admin_name: ADMIN.name, admin_password: ADMIN.password },
    SETUP_TOKEN,
  )
  const adminToken = (await api('POST', '/api/auth/login', { email: ADMIN.email, password: ADMIN.password })).access_token as string
  const { browser, page, pageErrors } = await launchBrowser()
  const session: ConsoleSession = {
    base,
    page,
    adminToken,
    pageErrors,
    api,
    async createMember(email) {
      const user = await api('POST', '/api/users', { email, name: email.split('@')[0], password: 'a long enough password', role: 'member' }, adminToken)
      const token = (await api('POST', '/api/auth/login', { email, password: 'a long enough password' })).access_token as string
      return { id: user.id, token }
    },
    async signIn(email = ADMIN.email, password = email === ADMIN.email ? ADMIN.password : 'a long enough password') {
      // Signed out first: the tab's token and the console session's refresh cookie (which would sign the page back in).
      await page.evaluate(() => sessionStorage.clear()).catch(() => undefined)
      await page.context().clearCookies({ name: 'agentbox_refresh' })
      await page.goto(`${base}/login`)
      await page.getByLabel('E-mail').fill(email)
      await page.getByLabel('Password').fill(password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('heading', { name: 'Overview' }).waitFor()
    },
    shot: async (name) => void (await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })),
    async stop() {
      await browser.close()
      await instance.stop()
    },
  }
  await session.signIn()
  return session
}

/**
 * Follows the console's main navigation to a page by its link's name: the link on the navigation's row, or the one
 * under More (Menu on a phone) when the row does not show it.
 */
export async function followNav(page: Page, title: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' })
  const link = nav.getByRole('link', { name: title, exact: true })
  if (!(await link.isVisible())) await nav.getByRole('button', { name: /^(More|Menu)\b/ }).click()
  await link.click()
}
