// PostgreSQL through Kysely's PostgresDialect over `pg`: pools whose numbers come back as JS numbers, and a driver that
// keeps the change stamp the SQLite writer gets from total_changes().
import { type DatabaseConnection, type Driver, PostgresDialect, type QueryResult, type TransactionSettings, type CompiledQuery } from 'kysely'
import pg from 'pg'

/**
 * count(*) and sum() of integers are bigint (int8) and numeric in PostgreSQL, which pg hands over as strings; SQLite
 * answers numbers. Every figure we store fits a double exactly, so both are read as numbers and answers stay the same
 * on either database. Per pool, not pg's global table.
 */
const NUMBER_TYPES = new Set([20, 1700])
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (NUMBER_TYPES.has(oid) && format !== 'binary') return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format)
  },
}

export interface PoolOptions {
  readonly max: number
  /** Set on every connection of the pool (e.g. a read-only default for the readers). */
  readonly readOnly?: boolean
  readonly applicationName: string
  readonly onError: (error: Error) => void
}

export function createPool(url: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    types,
    application_name: options.applicationName,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  })
  // An idle connection the server closed (a restart, a network cut) is reported here; without a listener pg's
  // EventEmitter would throw it and end the process. The next query opens a new connection.
  pool.on('error', options.onError)
  return pool
}

/**
 * Counts writes as the SQLite writer's total_changes() does, for caches that must not outlive a write (the
 * authenticator's principals): the stamp moves when a write or a transaction starts and again when it ends, and is
 * null in between. Any statement that is not a plain SELECT counts as a write.
 */
export class ChangeTracker {
  #stamp = 0
  #busy = 0
  stamp(): number | null {
    return this.#busy > 0 ? null : this.#stamp
  }
  begin(): void {
    this.#busy++
    this.#stamp++
  }
  end(): void {
    this.#busy--
    this.#stamp++
  }
}

const isPlainRead = (query: CompiledQuery) => /^\s*select\b/i.test(query.sql)

class TrackedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    readonly tracker: ChangeTracker,
  ) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (isPlainRead(query)) return this.inner.executeQuery<R>(query)
    this.tracker.begin()
    try {
      return await this.inner.executeQuery<R>(query)
    } finally {
      this.tracker.end()
    }
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize)
  }
}

class TrackedDriver implements Driver {
  readonly #connections = new WeakMap<DatabaseConnection, TrackedConnection>()
  constructor(
    readonly inner: Driver,
    readonly tracker: ChangeTracker,
  ) {}
  init() {
    return this.inner.init()
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection()
    let tracked = this.#connections.get(inner)
    if (!tracked) {
      tracked = new TrackedConnection(inner, this.tracker)
      this.#connections.set(inner, tracked)
    }
    return tracked
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    this.tracker.begin()
    try {
      await this.inner.beginTransaction((connection as TrackedConnection).inner, settings)
    } catch (error) {
      this.tracker.end()
      throw error
    }
  }
  async commitTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.commitTransaction((connection as TrackedConnection).inner)
    } finally {
      this.tracker.end()
    }
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.rollbackTransaction((connection as TrackedConnection).inner)
    } finally {
      this.tracker.end()
    }
  }
  releaseConnection(connection: DatabaseConnection) {
    return this.inner.releaseConnection((connection as TrackedConnection).inner)
  }
  destroy() {
    return this.inner.destroy()
  }
}

/** Kysely's PostgreSQL dialect whose driver keeps `tracker` up to date. */
export class TrackedPostgresDialect extends PostgresDialect {
  readonly #tracker: ChangeTracker
  constructor(pool: pg.Pool, tracker: ChangeTracker) {
    super({ pool })
    this.#tracker = tracker
  }
  override createDriver(): Driver {
    return new TrackedDriver(super.createDriver(), this.#tracker)
  }
}
