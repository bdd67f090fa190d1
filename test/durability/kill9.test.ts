// kill -9 during concurrent writes (server run from source): the database stays intact and every acknowledged write survives.
import { ON_POSTGRES } from '../helpers/database.ts'
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { issueTestLicense } from '../helpers/license.ts'
import { callJson, launchServer, sleep, stopAllServers, stopServer, type RunningServer } from '../helpers/process.ts'

const tmp = mkdtempSync(join(tmpdir(), 'agentbox-kill9-'))
const DATA = join(tmp, 'data')
const DB = join(DATA, 'agentbox.db')
const SETUP_TOKEN = 'kill9-fixed-setup-token-0123456789'
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' }
const WRITERS = 8

const launch = () => launchServer({ dataDir: DATA, env: { AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' } })
const kill9 = (server: RunningServer) => stopServer(server, 'SIGKILL')
const call = (server: RunningServer, method: string, path: string, token?: string, body?: unknown) => callJson(server, method, path, token, body)

/** Runs `fn` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]!)
    }),
  )
}

// ---- state shared by the rounds: everything the server ever acknowledged ---------------------------------------
let server: RunningServer
let adminToken = ''
const ackedUsers = new Map<string, string>() // email → id
const ackedTokens: string[] = []

beforeAll(async () => {
  server = await launch()
  const license_token = issueTestLicense({ seats: 100_000 })
  const setup = await call(server, 'POST', '/api/tenant/setup', SETUP_TOKEN, {
    license_token,
    admin_email: ADMIN.email,
    admin_name: ADMIN.name,
    admin_password: ADMIN.password,
  })
  if (setup.status !== 200) throw new Error(`setup failed: ${setup.status} ${JSON.stringify(setup.body)}`)
  const login = await call(server, 'POST', '/api/auth/login', undefined, { email: ADMIN.email, password: ADMIN.password })
  adminToken = login.body.access_token
})

afterAll(async () => {
  await stopAllServers()
  rmSync(tmp, { recursive: true, force: true })
})

/**
 * Steps performed:
 * 1. WRITERS loops write as fast as they are answered (even loops: a user then an API token; odd loops: API tokens),
 *    recording each write only once its 2xx arrived;
 * 2. SIGKILL after `killAfterMs`, with requests in flight; the loops end on their connection errors;
 * 3. the crash state is checked on a copy of the files (integrity_check), then the server restarts on the data dir;
 * 4. integrity_check on the live file, and every write acknowledged in this and earlier rounds is read back.
 */
async function round(label: string, killAfterMs: number) {
  let stopped = false
  let inFlight = 0
  let seq = 0
  const refused: string[] = []
  const before = { users: ackedUsers.size, tokens: ackedTokens.length }
  const write = async (path: string, body: unknown) => {
    inFlight++
    try {
      const res = await call(server, 'POST', path, adminToken, body)
      if (res.status === 201) return res.body
      refused.push(`${path} ${res.status} ${JSON.stringify(res.body)}`)
      return null
    } finally {
      inFlight--
    }
  }
  const writer = async (w: number) => {
    try {
      while (!stopped) {
        const n = seq++
        if (w % 2 === 0) {
          const email = `${label}-w${w}-${n}@example.com`
          const user = await write('/api/users', { email, name: `User ${n}`, password: 'a long enough password', role: 'member' })
          if (user) ackedUsers.set(email, user.id)
        }
        const token = await write('/api/auth/tokens', { name: `${label}-w${w}-${n}` })
        if (token) ackedTokens.push(token.token)
      }
    } catch {
      // the connection died with the server: this request was never acknowledged
    }
  }
  const loops = Array.from({ length: WRITERS }, (_, w) => writer(w))
  await sleep(killAfterMs)
  const inFlightAtKill = inFlight
  await kill9(server)
  stopped = true
  await Promise.all(loops)
  expect(server.proc.signalCode).toBe('SIGKILL')
  expect(inFlightAtKill).toBeGreaterThan(0)
  expect(refused).toEqual([])

  // SQLite: the crash state itself, before any restart: copy the database and its WAL aside and let SQLite recover the
  // copy. (On PostgreSQL the server is the database's keeper: the writes acknowledged before the kill are checked below.)
  if (!ON_POSTGRES) {
    const scratch = join(tmp, `crash-${label}`)
    mkdirSync(scratch)
    for (const suffix of ['', '-wal']) if (existsSync(DB + suffix)) copyFileSync(DB + suffix, join(scratch, 'agentbox.db' + suffix))
    const crashCopy = new Database(join(scratch, 'agentbox.db'))
    try {
      expect(crashCopy.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    } finally {
      crashCopy.close()
    }
  }

  server = await launch()
  if (!ON_POSTGRES) {
    const ro = new Database(DB, { readonly: true })
    try {
      expect(ro.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
      expect(ro.query('PRAGMA foreign_key_check').all()).toEqual([])
    } finally {
      ro.close()
    }
  }
  const health = await call(server, 'GET', '/api/health')
  expect(health.status).toBe(200)
  expect(health.body.provisioned).toBe(true)

  const users = await call(server, 'GET', '/api/users', adminToken)
  expect(users.status).toBe(200)
  const stored = new Map<string, string>(users.body.map((u: { email: string; id: string }) => [u.email, u.id]))
  const lostUsers = [...ackedUsers].filter(([email, id]) => stored.get(email) !== id).map(([email]) => email)
  expect(lostUsers).toEqual([])

  const lostTokens: string[] = []
  await pool(ackedTokens, 16, async (token) => {
    const me = await call(server, 'GET', '/api/auth/me', token)
    if (me.status !== 200 || me.body.email !== ADMIN.email) lostTokens.push(`${token.slice(-4)} → ${me.status}`)
  })
  expect(lostTokens).toEqual([])
  console.log(
    `kill9 ${label}: killed at ${killAfterMs} ms with ${inFlightAtKill} in flight; acknowledged this round ${ackedUsers.size - before.users} users, ` +
      `${ackedTokens.length - before.tokens} tokens; verified ${ackedUsers.size} users and ${ackedTokens.length} tokens in total`,
  )
}

describe('kill -9 mid-write, restart on the same data dir', () => {
  test('killed 1.5 s into a burst: integrity ok, every acknowledged user and token survives', async () => {
    await round('late', 1500)
    expect(ackedUsers.size).toBeGreaterThan(0)
    expect(ackedTokens.length).toBeGreaterThan(0)
  }, 30_000)

  test('killed right after a burst starts (30 ms): integrity ok, every acknowledged write survives', async () => {
    await round('early', 30)
  }, 30_000)

  test('killed 900 ms in, while password hashes and inserts overlap: integrity ok, nothing acknowledged is lost', async () => {
    await round('mid', 900)
  }, 30_000)

  test('after three crashes the instance still takes writes and sign-ins', async () => {
    const email = 'after-crashes@example.com'
    const created = await call(server, 'POST', '/api/users', adminToken, { email, name: 'Survivor', password: 'a long enough password', role: 'member' })
    expect(created.status).toBe(201)
    const login = await call(server, 'POST', '/api/auth/login', undefined, { email, password: 'a long enough password' })
    expect(login.status).toBe(200)
    expect((await call(server, 'GET', '/api/auth/me', login.body.access_token)).body.email).toBe(email)
  })
})
