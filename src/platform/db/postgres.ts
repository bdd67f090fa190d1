// PostgreSQL through Kysely's PostgresDialect over `pg`: pools whose numbers come back as JS numbers, and a driver that
// stores the text SQLite can (U+0000 included) and keeps the change stamp the SQLite writer gets from total_changes().
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type QueryResult,
  type TransactionSettings,
} from 'kysely'
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
 * PostgreSQL's text cannot hold U+0000, which SQLite's stores like any other character: a name or a document with one
 * would be a server error on PostgreSQL and stored on SQLite. So on PostgreSQL every string sent as a parameter is
 * escaped and every string read back is unescaped: U+0000 is stored as U+FFFF "0" and U+FFFF (a noncharacter) as
 * U+FFFF U+FFFF. The mapping is one to one, equality and prefixes hold, and a string without either character (all
 * of them in practice) is stored as it is. Only the order of two strings that differ at a U+0000 can differ from
 * SQLite's. Text written by SQL itself (literals, functions) never holds either character.
 */
const ESCAPE = '\uffff'
const NUL = '\u0000'

export function encodeText(value: string): string {
  if (!value.includes(NUL) && !value.includes(ESCAPE)) return value
  let out = ''
  for (const char of value) out += char === NUL ? `${ESCAPE}0` : char === ESCAPE ? ESCAPE + ESCAPE : char
  return out
}

export function decodeText(value: string): string {
  if (!value.includes(ESCAPE)) return value
  let out = ''
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!
    if (char !== ESCAPE || i + 1 === value.length) {
      out += char
      continue
    }
    const next = value[++i]!
    out += next === '0' ? NUL : next === ESCAPE ? ESCAPE : char + next
  }
  return out
}

const encodeParameter = (value: unknown): unknown => (typeof value === 'string' ? encodeText(value) : Array.isArray(value) ? value.map(encodeParameter) : value)

export const encodeParameters = (parameters: readonly unknown[]): unknown[] => parameters.map(encodeParameter)

/** Unescapes, in place, the string columns of rows read from PostgreSQL. */
export function decodeRows<R>(rows: R[]): R[] {
  for (const row of rows) {
    const record = row as Record<string, unknown>
    for (const key in record) {
      const value = record[key]
      if (typeof value === 'string' && value.includes(ESCAPE)) record[key] = decodeText(value)
    }
  }
  return rows
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

/** The query with its string parameters escaped (encodeText), and its rows read back unescaped. */
const escaped = (query: CompiledQuery): CompiledQuery => ({ ...query, parameters: encodeParameters(query.parameters) })
const unescaped = <R>(result: QueryResult<R>): QueryResult<R> => (result.rows.length > 0 ? { ...result, rows: decodeRows(result.rows) } : result)

class TrackedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    readonly tracker: ChangeTracker | null,
  ) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.tracker === null || isPlainRead(query)) return unescaped(await this.inner.executeQuery<R>(escaped(query)))
    this.tracker.begin()
    try {
      return unescaped(await this.inner.executeQuery<R>(escaped(query)))
    } finally {
      this.tracker.end()
    }
  }
  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    for await (const result of this.inner.streamQuery<R>(escaped(query), chunkSize)) yield unescaped(result)
  }
}

class TrackedDriver implements Driver {
  readonly #connections = new WeakMap<DatabaseConnection, TrackedConnection>()
  constructor(
    readonly inner: Driver,
    readonly tracker: ChangeTracker | null,
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
    this.tracker?.begin()
    try {
      await this.inner.beginTransaction((connection as TrackedConnection).inner, settings)
    } catch (error) {
      this.tracker?.end()
      throw error
    }
  }
  async commitTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.commitTransaction((connection as TrackedConnection).inner)
    } finally {
      this.tracker?.end()
    }
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    try {
      await this.inner.rollbackTransaction((connection as TrackedConnection).inner)
    } finally {
      this.tracker?.end()
    }
  }
  releaseConnection(connection: DatabaseConnection) {
    return this.inner.releaseConnection((connection as TrackedConnection).inner)
  }
  destroy() {
    return this.inner.destroy()
  }
}

/**
 * Statement texts sent as named statements, and their names. Kysely's driver sends every statement unnamed, which
 * PostgreSQL parses and plans on every run; for the group commit's batch (an INSERT with thirteen rollup parts) that
 * planning was ~1.5 ms of the server's CPU per batch, more than running it. A named statement is parsed once per
 * connection and, after a few runs, executed on PostgreSQL's cached generic plan.
 */
const namedStatements = new Map<string, string>()

/**
 * Makes `query`'s text go to PostgreSQL as the named statement `name` on every connection of a TrackedPostgresDialect
 * (prepared on a connection's first run, reused after). Only for a hot statement whose text never changes: a name
 * stands for one text, for the life of the process.
 */
export function nameStatement<Q extends CompiledQuery>(query: Q, name: string): Q {
  for (const [text, known] of namedStatements)
    if (known === name && text !== query.sql) throw new Error(`the statement name ${name} already stands for another text`)
  namedStatements.set(query.sql, name)
  return query
}

/** A short, stable name for a statement's text (FNV-1a). */
export function hashOf(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0
  return hash.toString(36)
}

/** More distinct texts than the code builds: past it, texts go unnamed (a bound on every connection's statements). */
const MAX_NAMED_TEXTS = 1000

/**
 * Names `query` after its text (nameStatement), for statements whose text comes from the code alone (compiled once,
 * or combined from such) and runs many times with new values. Should two texts hash alike, the second stays unnamed
 * (parsed and planned on every run, as before); so does every text past MAX_NAMED_TEXTS.
 */
export function nameByText<Q extends CompiledQuery>(query: Q): Q {
  if (namedStatements.has(query.sql) || namedStatements.size >= MAX_NAMED_TEXTS) return query
  const name = `agentbox_${hashOf(query.sql)}`
  for (const known of namedStatements.values()) if (known === name) return query
  namedStatements.set(query.sql, name)
  return query
}

/** A pool client that sends registered texts as named statements (nameStatement) and everything else as it is. */
class NamingClient implements PostgresPoolClient {
  constructor(readonly client: pg.PoolClient) {}
  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>
  query(textOrCursor: unknown, values?: ReadonlyArray<unknown>): unknown {
    const client = this.client as unknown as { query(...args: unknown[]): unknown }
    if (typeof textOrCursor !== 'string') return client.query(textOrCursor)
    const name = namedStatements.get(textOrCursor)
    return name === undefined ? client.query(textOrCursor, values) : client.query({ name, text: textOrCursor, values })
  }
  release(): void {
    this.client.release()
  }
}

/** The pool as Kysely's driver uses it, handing out NamingClients (one per pg client, kept). */
function namingPool(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, NamingClient>()
  return {
    async connect() {
      const client = await pool.connect()
      let naming = clients.get(client)
      if (naming === undefined) clients.set(client, (naming = new NamingClient(client)))
      return naming
    },
    end: () => pool.end(),
  }
}

/**
 * Kysely's PostgreSQL dialect whose driver escapes text (encodeText), keeps `tracker` up to date (none for a
 * read-only connection) and sends the named statements (nameStatement) by name.
 */
export class TrackedPostgresDialect extends PostgresDialect {
  readonly #tracker: ChangeTracker | null
  constructor(pool: pg.Pool, tracker: ChangeTracker | null) {
    super({ pool: namingPool(pool) })
    this.#tracker = tracker
  }
  override createDriver(): Driver {
    return new TrackedDriver(super.createDriver(), this.#tracker)
  }
}
