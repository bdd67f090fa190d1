// Starts the real server on a temp data dir (real SQLite file) and drives it through its fetch handler, with a hand-moved clock.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import type { Logger } from '../../src/platform/log.ts'
import { createServer, type AgentboxServer, type ServerOverrides } from '../../src/server.ts'
import { CONFORMANCE_ENABLED, ConformanceError, conformanceChecker, type ConformanceChecker } from './conformance.ts'
import { dropTestDatabase, testDatabaseEnv, testSql, type TestSql } from './database.ts'
import { issueTestLicense, type TestLicenseOptions } from './license.ts'

export const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' } as const

/** Collects log lines so tests can assert what was (and was not) logged. */
export class CapturedLog implements Logger {
  readonly lines: Record<string, unknown>[] = []
  #push = (level: string) => (msg: string, fields?: Record<string, unknown>) => void this.lines.push({ level, msg, ...fields })
  debug = this.#push('debug')
  info = this.#push('info')
  warn = this.#push('warn')
  error = this.#push('error')
  isEnabled = () => true
}

export interface RequestOptions {
  body?: unknown
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string | Uint8Array | ReadableStream
  token?: string
  headers?: Record<string, string>
  /** The socket peer address the server sees (default: none, which the server reads as 'unknown'). */
  clientAddress?: string
}

export interface JsonResponse<T = any> {
  status: number
  headers: Headers
  body: T
}

export interface TestServer {
  server: AgentboxServer
  clock: ManualClock
  log: CapturedLog
  dataDir: string
  /** Plain SQL on the server's database (SQLite or PostgreSQL, whichever the run uses), `?` placeholders. */
  sql: TestSql
  /** Waits the server asked for (the login throttle's delays), in ms; recorded and skipped, the clock moves instead. */
  sleeps: number[]
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<JsonResponse<T>>
  /** Provisions the tenant with a test licence; returns the org token and a signed-in admin token. */
  provision(license?: TestLicenseOptions): Promise<{ orgToken: string; adminToken: string }>
  login(email: string, password: string): Promise<string>
  /** Creates a user through the API as `adminToken` and returns its id and an access token. */
  createUser(adminToken: string, user: { email: string; role?: 'admin' | 'member'; name?: string; password?: string }): Promise<{ id: string; token: string }>
  /** Closes the server and opens a new one on the same data dir, like a restart. */
  restart(): Promise<void>
  close(): Promise<void>
}

export interface StartOptions {
  dataDir?: string
  env?: Record<string, string>
  now?: string | number
  /** Check every response against /api/openapi.json (default: on unless AGENTBOX_TEST_CONFORMANCE=0). */
  conformance?: boolean
  /** How long stop() lets in-flight requests and task runs finish (default: the server's 10 s). */
  shutdownGraceMs?: number
  /** The outbound client's resolver and fetch (SSRF tests prove a refused call never reaches fetch). */
  outbound?: ServerOverrides['outbound']
  /** How long recorded rows wait to be counted into the rollups when nothing reads them (SQLite; the server's 250 ms). */
  rollupFoldDelayMs?: number
}

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'agentbox-test-'))
  const env = {
    AGENTBOX_DATA_DIR: dataDir,
    AGENTBOX_LICENSE_MODE: 'test',
    AGENTBOX_LOG_LEVEL: 'error',
    ...(await testDatabaseEnv(dataDir)),
    ...options.env,
  }
  const clock = new ManualClock(options.now ?? Date.now())
  const log = new CapturedLog()
  const sleeps: number[] = []
  const sleep = async (ms: number) => {
    sleeps.push(ms)
    clock.advance(ms)
  }
  const loaded = loadConfig(['serve'], env)
  const config = options.shutdownGraceMs === undefined ? loaded : { ...loaded, shutdownGraceMs: options.shutdownGraceMs }
  // argon2id at 1 MiB × 1 pass instead of 64 MiB × 2 (~1 ms instead of ~180 ms a hash): the suite hashes and verifies
  // hundreds of passwords. Real hashing all the same; test/compiled checks that servers store the production cost.
  const passwordCost = { memoryCost: 1024, timeCost: 1 }
  let server = await createServer(config, { clock, logger: log, sleep, passwordCost, outbound: options.outbound, rollupFoldDelayMs: options.rollupFoldDelayMs })
  let checker: ConformanceChecker | undefined
  const checkConformance = async (
    method: string,
    path: string,
    sent: { contentType: string | null; body: unknown },
    response: { status: number; headers: Headers; text: string },
  ) => {
    // app.handle, not fetch: the document is read without an access-log line, which some tests count.
    checker ??= conformanceChecker(await (await server.app.handle(new Request('http://localhost/api/openapi.json'))).text())
    const pathname = new URL(path, 'http://localhost').pathname
    const problems = [
      ...checker.problems(method.toUpperCase(), pathname, response),
      ...checker.requestProblems(method.toUpperCase(), pathname, sent, response.status),
    ]
    if (problems.length > 0) throw new ConformanceError(method, path, response.status, problems)
  }
  /** The body as the server read it, for the request check: the JSON value sent, or the form of a multipart body. */
  const sentBody = async (opts: RequestOptions, contentType: string | null): Promise<unknown> => {
    if (opts.rawBody === undefined) return opts.body
    if (contentType?.startsWith('multipart/form-data') && !(opts.rawBody instanceof ReadableStream)) {
      return new Response(opts.rawBody as BodyInit, { headers: { 'content-type': contentType } }).formData().catch(() => undefined)
    }
    if (typeof opts.rawBody !== 'string') return undefined
    try {
      return JSON.parse(opts.rawBody)
    } catch {
      return undefined
    }
  }

  const request: TestServer['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`
    let body: RequestInit['body']
    if (opts.rawBody !== undefined) body = opts.rawBody as RequestInit['body']
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    }
    const peer =
      opts.clientAddress === undefined
        ? undefined
        : ({ requestIP: () => ({ address: opts.clientAddress, family: 'IPv4', port: 0 }) } as unknown as Parameters<AgentboxServer['fetch']>[1])
    const response = await server.fetch(new Request(`http://localhost${path}`, { method, headers, body, duplex: 'half' } as RequestInit), peer)
    const text = await response.text()
    if (options.conformance ?? CONFORMANCE_ENABLED) {
      const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? null
      await checkConformance(
        method,
        path,
        { contentType, body: await sentBody(opts, contentType) },
        { status: response.status, headers: response.headers, text },
      )
    }
    let parsed: unknown = text
    try {
      parsed = text.length ? JSON.parse(text) : null
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as any }
  }

  const login = async (email: string, password: string) => {
    const res = await request('POST', '/api/auth/login', { body: { email, password } })
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body.access_token as string
  }

  const harness: TestServer = {
    get server() {
      return server
    },
    clock,
    log,
    dataDir,
    sql: testSql(() => server.database.db),
    sleeps,
    request,
    login,
    async provision(license = {}) {
      const res = await request('POST', '/api/tenant/setup', {
        token: server.setupToken!,
        body: {
          license_token: issueTestLicense({ nowMs: clock.now(), ...license }),
          admin_email: ADMIN.email,
          admin_name: ADMIN.name,
          admin_password: ADMIN.password,
        },
      })
      if (res.status !== 200) throw new Error(`setup failed: ${res.status} ${JSON.stringify(res.body)}`)
      return { orgToken: res.body.tenant_org_token, adminToken: await login(ADMIN.email, ADMIN.password) }
    },
    async createUser(adminToken, user) {
      const password = user.password ?? 'a long enough password'
      const res = await request('POST', '/api/users', {
        token: adminToken,
        body: { email: user.email, name: user.name ?? user.email.split('@')[0], password, role: user.role ?? 'member' },
      })
      if (res.status !== 201) throw new Error(`create user failed: ${res.status} ${JSON.stringify(res.body)}`)
      return { id: res.body.id, token: await login(user.email, password) }
    },
    async restart() {
      await server.stop()
      server = await createServer(config, { clock, logger: log, sleep, passwordCost, outbound: options.outbound, rollupFoldDelayMs: options.rollupFoldDelayMs })
      checker = undefined
    },
    async close() {
      await server.stop()
      if (!options.dataDir) {
        rmSync(dataDir, { recursive: true, force: true })
        await dropTestDatabase(dataDir)
      }
    },
  }
  return harness
}
