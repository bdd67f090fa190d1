// The database tests run on: SQLite in each test's data dir (default), or, with AGENTBOX_TEST_DATABASE_URL set to a
// PostgreSQL server (`postgres://user@127.0.0.1:5432/postgres`), a fresh database per data dir, copied from a migrated
// template ahead of need and dropped when the test server closes. Plus a few neutral SQL helpers for tests that look at rows.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CompiledQuery, type Kysely } from 'kysely'
import pg from 'pg'
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import type { DatabaseKind, DatabaseTarget } from '../../src/platform/db/target.ts'

/** The server the PostgreSQL run uses (its databases are made and dropped by this file), or null for SQLite. */
export const TEST_DATABASE_URL = process.env.AGENTBOX_TEST_DATABASE_URL || null
export const TEST_DATABASE_KIND: DatabaseKind = TEST_DATABASE_URL ? 'postgres' : 'sqlite'
export const ON_POSTGRES = TEST_DATABASE_KIND === 'postgres'

const PREFIX = 'agentbox_test_'
const SOURCES = new URL('../../src/platform/db/', import.meta.url).pathname

/** A template per version of the migrations (and of the dialect layer that shapes them): an edit makes a new one. */
function templateName(): string {
  const hash = createHash('sha256')
  for (const dir of [join(SOURCES, 'migrations'), SOURCES]) {
    for (const file of readdirSync(dir).sort()) if (file.endsWith('.ts')) hash.update(file).update(readFileSync(join(dir, file)))
  }
  return `${PREFIX}template_${hash.digest('hex').slice(0, 12)}`
}

const urlOf = (database: string) => {
  const url = new URL(TEST_DATABASE_URL!)
  url.pathname = `/${database}`
  return url.toString()
}

let admin: Promise<pg.Client> | null = null
/** One connection to the server's own database for CREATE/DROP DATABASE (they cannot run in a transaction). */
function adminClient(): Promise<pg.Client> {
  admin ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL!, application_name: 'agentbox-tests' })
    await client.connect()
    // The process may end with the connection open; it must not keep the event loop alive.
    ;(client as unknown as { connection: { stream: { unref?: () => void } } }).connection.stream.unref?.()
    await sweepAbandoned(client)
    return client
  })()
  return admin
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Databases of earlier runs whose process is gone (killed before its tests closed their servers). */
async function sweepAbandoned(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE '${PREFIX}p%'`)
  for (const { datname } of rows) {
    const pid = Number(/^agentbox_test_p(\d+)_/.exec(datname)?.[1])
    if (Number.isInteger(pid) && !isAlive(pid)) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
  }
}

let adminQueue: Promise<unknown> = Promise.resolve()
/** A statement on the admin connection, after those already sent (pg deprecates queueing them on the client itself). */
function adminQuery<Row extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: unknown[]): Promise<pg.QueryResult<Row>> {
  const result = adminQueue.then(async () => (await adminClient()).query<Row>(text, values))
  adminQueue = result.catch(() => {})
  return result
}

let template: Promise<string> | null = null
/** The migrated template, made once per set of migrations (under an advisory lock: test processes may run side by side). */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = templateName()
    await adminQuery('SELECT pg_advisory_lock(hashtext($1))', [name])
    try {
      const exists = await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])
      if (exists.rowCount === 0) {
        const building = `${name}_building`
        await adminQuery(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`)
        await adminQuery(`CREATE DATABASE "${building}" TEMPLATE template0 ENCODING 'UTF8'`)
        const handle = openDatabase({ kind: 'postgres', url: urlOf(building) })
        try {
          await migrateToLatest(handle, '/nonexistent', Date.now())
        } finally {
          await handle.close()
        }
        await adminQuery(`ALTER DATABASE "${building}" RENAME TO "${name}"`)
      }
    } finally {
      await adminQuery('SELECT pg_advisory_unlock(hashtext($1))', [name])
    }
    return name
  })()
  return template
}

let counter = 0
const byDataDir = new Map<string, string>()
const nextName = () => `${PREFIX}p${process.pid}_${++counter}`

/**
 * Copies of the template made ahead: a test server takes one that is ready and another is started in its place, so
 * the copy (a directory of some 800 files, ~30 ms on tmpfs, ~300 ms on a busy ext4) is made by the PostgreSQL server
 * while tests run, not while a test waits. A failed copy fails the test that takes it.
 */
const COPIES_AHEAD = 2
const ready: Promise<string>[] = []

async function copyOfTemplate(): Promise<string> {
  const name = nextName()
  const source = await migratedTemplate()
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${source}"`)
  return name
}

function takeCopy(): Promise<string> {
  const copy = ready.shift() ?? copyOfTemplate()
  while (ready.length < COPIES_AHEAD) {
    const next = copyOfTemplate()
    // Reported by the test that takes it, not as an unhandled rejection while it waits here.
    next.catch(() => {})
    ready.push(next)
  }
  return copy
}

/**
 * The database a server on `dataDir` runs on: its SQLite file, or on PostgreSQL a database made for that data dir on
 * first use (migrated already) and the same one on later calls, as a restarted server finds its file again.
 */
export async function testDatabaseFor(dataDir: string): Promise<DatabaseTarget> {
  if (!TEST_DATABASE_URL) return { kind: 'sqlite', path: join(dataDir, 'agentbox.db') }
  let url = byDataDir.get(dataDir)
  if (url === undefined) {
    url = urlOf(await takeCopy())
    byDataDir.set(dataDir, url)
  }
  return { kind: 'postgres', url }
}

/** An empty PostgreSQL database (not migrated), for tests of migrations themselves; dropped with dropTestDatabase. */
export async function emptyTestDatabase(dataDir: string): Promise<DatabaseTarget> {
  if (!TEST_DATABASE_URL) return { kind: 'sqlite', path: join(dataDir, 'agentbox.db') }
  const name = nextName()
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`)
  const url = urlOf(name)
  byDataDir.set(dataDir, url)
  return { kind: 'postgres', url }
}

/** Lets `otherDataDir` run on the database of `dataDir` (PostgreSQL: several instances on one database; SQLite: no-op). */
export function shareTestDatabase(dataDir: string, otherDataDir: string): void {
  const url = byDataDir.get(dataDir)
  if (url !== undefined) byDataDir.set(otherDataDir, url)
}

/** The environment a server process needs for `dataDir` (AGENTBOX_DATABASE_URL on PostgreSQL, nothing on SQLite). */
export async function testDatabaseEnv(dataDir: string): Promise<Record<string, string>> {
  const target = await testDatabaseFor(dataDir)
  return target.kind === 'postgres' ? { AGENTBOX_DATABASE_URL: target.url } : {}
}

/**
 * Drops the PostgreSQL database made for `dataDir` (no-op on SQLite, whose file goes with the directory). The drop is
 * queued on the admin connection and not waited for: nothing uses the database any more, and the next test need not
 * wait. Databases a process leaves behind (it ended first) are swept by the next run, their process being gone.
 */
export async function dropTestDatabase(dataDir: string): Promise<void> {
  const url = byDataDir.get(dataDir)
  if (url === undefined) return
  byDataDir.delete(dataDir)
  const name = new URL(url).pathname.slice(1)
  adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {})
}

/** Opens a handle on the test database of `dataDir` (migrated on PostgreSQL; on SQLite the file as it is). */
export async function openTestDatabase(dataDir: string): Promise<DatabaseHandle> {
  return openDatabase(await testDatabaseFor(dataDir))
}

/** `?` placeholders → PostgreSQL's `$1, $2, …` (test SQL has no `?` inside its literals). */
const placeholders = (kind: DatabaseKind, text: string) => {
  if (kind === 'sqlite') return text
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

/** Plain SQL on a server's database for tests that look at (or poke) rows: the same text on both databases. */
export interface TestSql {
  all<Row = Record<string, unknown>>(text: string, ...parameters: unknown[]): Promise<Row[]>
  get<Row = Record<string, unknown>>(text: string, ...parameters: unknown[]): Promise<Row | null>
  run(text: string, ...parameters: unknown[]): Promise<void>
  /** `count(*)` of a table, optionally with a WHERE clause. */
  count(table: string, where?: string, ...parameters: unknown[]): Promise<number>
}

export function testSql(db: Kysely<any> | (() => Kysely<any>), kind: DatabaseKind = TEST_DATABASE_KIND): TestSql {
  const current = () => (typeof db === 'function' ? db() : db)
  const all = async <Row>(text: string, ...parameters: unknown[]) =>
    (await current().executeQuery<Row>(CompiledQuery.raw(placeholders(kind, text), parameters))).rows as Row[]
  return {
    all,
    async get<Row>(text: string, ...parameters: unknown[]) {
      return ((await all<Row>(text, ...parameters))[0] ?? null) as Row | null
    },
    async run(text: string, ...parameters: unknown[]) {
      await all(text, ...parameters)
    },
    async count(table: string, where?: string, ...parameters: unknown[]) {
      const rows = await all<{ n: number }>(`SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ''}`, ...parameters)
      return Number(rows[0]!.n)
    },
  }
}

/** Closes the read connection(s) under a running server, as a database that stopped answering would leave them. */
export async function closeReadConnection(handle: DatabaseHandle): Promise<void> {
  if (handle.kind === 'sqlite') handle.reader.close()
  else await handle.readPool.end()
}

/**
 * A read-only connection of its own to the database of `dataDir`, beside a server that runs on it (a spawned process's,
 * or a test server's): SQLite's file opened read-only, or a PostgreSQL client.
 */
export async function openTestReader(dataDir: string): Promise<TestSql & { close(): Promise<void> }> {
  const target = await testDatabaseFor(dataDir)
  if (target.kind === 'sqlite') {
    const { Database } = await import('bun:sqlite')
    const db = new Database(target.path, { readonly: true })
    const all = async <Row>(text: string, ...parameters: unknown[]) => db.query(text).all(...(parameters as never[])) as Row[]
    return {
      all,
      get: async <Row>(text: string, ...parameters: unknown[]) => ((await all<Row>(text, ...parameters))[0] ?? null) as Row | null,
      run: async (text: string, ...parameters: unknown[]) => void db.query(text).run(...(parameters as never[])),
      count: async (table: string, where?: string, ...parameters: unknown[]) =>
        Number((await all<{ n: number }>(`SELECT count(*) AS n FROM ${table}${where ? ` WHERE ${where}` : ''}`, ...parameters))[0]!.n),
      close: async () => db.close(),
    }
  }
  const handle = openDatabase(target)
  return { ...testSql(handle.db, 'postgres'), close: () => handle.close() }
}

/**
 * Whether `text` is stored anywhere in the database of `dataDir`, for tests of what must never be stored in clear: on
 * SQLite the file and its WAL, free pages included (checkpointed first); on PostgreSQL, which keeps no file in the
 * data dir, every text and bytea column of every table.
 */
export async function databaseHolds(sql: TestSql, dataDir: string, text: string): Promise<boolean> {
  if (!ON_POSTGRES) {
    await sql.run('PRAGMA wal_checkpoint(TRUNCATE)')
    const { existsSync } = await import('node:fs')
    return ['agentbox.db', 'agentbox.db-wal'].map((name) => join(dataDir, name)).some((file) => existsSync(file) && readFileSync(file).includes(text))
  }
  const columns = await sql.all<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type IN ('text', 'bytea') ORDER BY table_name, column_name`,
  )
  for (const { table_name, column_name, data_type } of columns) {
    const column = `"${column_name}"`
    const found = data_type === 'bytea' ? `position(convert_to(?, 'UTF8') in ${column}) > 0` : `position(? in ${column}) > 0`
    if ((await sql.count(`"${table_name}"`, found, text)) > 0) return true
  }
  return false
}
