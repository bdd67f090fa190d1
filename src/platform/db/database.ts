// Opens the instance database: SQLite in the data directory (one writer connection behind Kysely, one read-only
// connection for hot-path lookups), or PostgreSQL (a one-connection writer pool behind Kysely, a small read pool).
import { Database as Sqlite } from 'bun:sqlite'
import { type CompiledQuery, Kysely } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import type pg from 'pg'
import { ChangeTracker, createPool, decodeRows, encodeParameters, hashOf, TrackedPostgresDialect } from './postgres.ts'
import type { Database } from './schema.ts'
import { type CheckpointResult, startCheckpointer } from './checkpointer.ts'
import type { DatabaseKind, DatabaseTarget } from './target.ts'
import { registerSqliteWriter } from './write-transaction.ts'

/**
 * PocketBase's pragmas, in its order: busy_timeout must come first so that switching to WAL waits
 * instead of failing when another process holds the file. WAL + synchronous=NORMAL survives kill -9
 * (a committed transaction is in the WAL before COMMIT returns); only a power loss can drop the last commits.
 */
const WRITER_PRAGMAS = [
  'PRAGMA busy_timeout = 10000',
  'PRAGMA journal_mode = WAL',
  'PRAGMA journal_size_limit = 200000000',
  'PRAGMA synchronous = NORMAL',
  'PRAGMA foreign_keys = ON',
  'PRAGMA temp_store = MEMORY',
  // 8 MB: past it a transaction's pages spill into the WAL as it goes, so the COMMIT of a large import writes at most
  // ~8 MB on the request thread (~11 ms measured; 32 MB took ~50 ms). Reads past it come from the OS's page cache.
  'PRAGMA cache_size = -8000',
  // Checkpoints run in a worker of their own (checkpointer.ts); the writer only appends to the WAL.
  'PRAGMA wal_autocheckpoint = 0',
]

/** SQLite's default, restored on the writer if the checkpointer fails. */
const AUTOMATIC_CHECKPOINT_PAGES = 1000

/** Connections of the PostgreSQL read pool: auth lookups and the health probe, which never wait for the writer. */
const POSTGRES_READERS = 4

const PING_TIMEOUT_MS = 2000

/** A read of committed rows on the read connection: synchronous on SQLite (no await on the hot path), a promise on PostgreSQL. */
export type ReadStatement<Row> = (parameters: readonly unknown[]) => Row | null | Promise<Row | null>

interface HandleBase {
  readonly kind: DatabaseKind
  /** Every write and most reads: Kysely over the single writer connection (queries and transactions run one at a time). */
  readonly db: Kysely<Database>
  /** What a worker needs to open its own read connection to the same database. */
  readonly target: DatabaseTarget
  /**
   * A stamp that moves whenever the writer changes a row, or null while the writer has a write or a transaction in
   * progress: its changes are not committed yet, so nothing read now may be kept past the commit. This connection is
   * the instance's only writer, so a cache that is dropped when the stamp moves and filled only while the stamp stood
   * still never serves a row older than the last commit. (Writes by another instance do not move it.)
   */
  changeStamp(): number | null
  /**
   * A statement on the read connection, which sees only committed rows and never waits for the writer. `query` is
   * compiled by Kysely for this database's dialect; its parameters are supplied per run.
   */
  readStatement<Row>(query: CompiledQuery): ReadStatement<Row>
  /** `SELECT 1` on the read connection; throws when the database cannot be reached. */
  ping(): void | Promise<void>
  close(): Promise<void>
}

export interface SqliteHandle extends HandleBase {
  readonly kind: 'sqlite'
  /** The writer connection itself, for VACUUM INTO and pragmas. */
  readonly writer: Sqlite
  /**
   * A second, read-only connection. It sees only committed data and never waits for Kysely's mutex,
   * so per-request auth lookups and the health probe stay fast while a long transaction runs.
   */
  readonly reader: Sqlite
  readonly path: string
  /**
   * A PASSIVE checkpoint now, in the checkpointer's worker (it also runs one whenever something was committed, every
   * 200 ms). Rejects when the checkpointer is not running; the writer then checkpoints automatically.
   */
  checkpointNow(): Promise<CheckpointResult>
}

export interface PostgresHandle extends HandleBase {
  readonly kind: 'postgres'
  /** The writer pool (one connection): what Kysely runs on. */
  readonly pool: pg.Pool
  /** Read-only connections for lookups that must not wait behind the writer. */
  readonly readPool: pg.Pool
}

export type DatabaseHandle = SqliteHandle | PostgresHandle

export interface OpenOptions {
  /** Where connection errors of an idle PostgreSQL connection are reported (the next query reconnects). */
  readonly onConnectionError?: (error: Error) => void
  /** Where a failure of the SQLite checkpointer is reported (the writer's automatic checkpoints are then back on). */
  readonly onCheckpointerFailure?: (reason: string) => void
  /** How often the SQLite checkpointer looks for new commits (CHECKPOINT_INTERVAL_MS unless a test says otherwise). */
  readonly checkpointIntervalMs?: number
}

export function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): DatabaseHandle {
  return target.kind === 'sqlite' ? openSqlite(target.path, options) : openPostgres(target.url, options)
}

function openSqlite(path: string, options: OpenOptions): SqliteHandle {
  const writer = new Sqlite(path, { create: true, readwrite: true, strict: true })
  for (const pragma of WRITER_PRAGMAS) writer.run(pragma)
  const reader = new Sqlite(path, { readonly: true, strict: true })
  reader.run('PRAGMA busy_timeout = 1000')

  // kysely-bun-sqlite calls prepare() for every query; handing it bun:sqlite's cached query() instead
  // skips re-preparing identical SQL (~35 % per query, measured). Statements are never finalized by the dialect.
  const cachedStatements = { prepare: (sql: string) => writer.query(sql), close: () => writer.close() } as unknown as Sqlite
  const db = new Kysely<Database>({ dialect: new BunSqliteDialect({ database: cachedStatements }) })
  // Changes of transactions that said they touch nothing a cache reads (write-transaction.ts): kept out of the stamp.
  let unstamped = 0
  registerSqliteWriter(db, {
    connection: writer,
    unstamp: (changes) => {
      unstamped += changes
    },
  })

  const totalChanges = writer.query<{ n: number }, []>('SELECT total_changes() AS n')

  let closed = false
  const checkpointer = startCheckpointer(
    path,
    (reason) => {
      if (!closed) writer.run(`PRAGMA wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`)
      options.onCheckpointerFailure?.(reason)
    },
    options.checkpointIntervalMs,
  )
  return {
    kind: 'sqlite',
    db,
    target: { kind: 'sqlite', path },
    writer,
    reader,
    path,
    changeStamp: () => (writer.inTransaction ? null : totalChanges.get()!.n - unstamped),
    readStatement<Row>(query: CompiledQuery): ReadStatement<Row> {
      // bun:sqlite caches the prepared statement on the connection: compiled once, prepared once.
      // biome-ignore lint/suspicious/noExplicitAny: bind parameters of any compiled query
      const statement = reader.query<Row, any[]>(query.sql)
      return (parameters) => statement.get(...(parameters as unknown[])) as Row | null
    },
    ping() {
      reader.query('SELECT 1 AS ok').get()
    },
    checkpointNow: () => checkpointer.checkpointNow(),
    async close() {
      if (closed) return
      closed = true
      try {
        writer.run('PRAGMA optimize')
      } catch {
        // optimize is advisory; a close must not fail because of it
      }
      reader.close()
      await db.destroy()
      // Last: the worker's final checkpoint sees every commit and leaves the WAL empty.
      await checkpointer.close()
    },
  }
}

function openPostgres(url: string, options: OpenOptions): PostgresHandle {
  const onError = options.onConnectionError ?? (() => {})
  // One writer connection, as SQLite has: the services were written for transactions that run one at a time.
  const pool = createPool(url, { max: 1, applicationName: 'agentbox', onError })
  const readPool = createPool(url, { max: POSTGRES_READERS, readOnly: true, applicationName: 'agentbox-read', onError })
  const tracker = new ChangeTracker()
  const db = new Kysely<Database>({ dialect: new TrackedPostgresDialect(pool, tracker) })

  let closed = false
  return {
    kind: 'postgres',
    db,
    target: { kind: 'postgres', url },
    pool,
    readPool,
    changeStamp: () => tracker.stamp(),
    readStatement<Row>(query: CompiledQuery): ReadStatement<Row> {
      // A named statement is prepared once per connection by pg and reused on later runs.
      const name = `agentbox_read_${hashOf(query.sql)}`
      return async (parameters) => {
        const result = await readPool.query({ name, text: query.sql, values: encodeParameters(parameters) })
        return (decodeRows(result.rows)[0] as Row | undefined) ?? null
      }
    },
    async ping() {
      // A server that does not answer fails the probe in 2 s, not after the pool's 10 s connection time-out.
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the database did not answer within 2 s')), PING_TIMEOUT_MS)
      })
      try {
        await Promise.race([readPool.query('SELECT 1 AS ok'), timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      if (closed) return
      closed = true
      await db.destroy()
      // Already ended if the read connections were closed under the server (tests of a database that stopped answering).
      if (!readPool.ending) await readPool.end()
    },
  }
}
