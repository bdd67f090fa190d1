// Write transactions of statements compiled ahead, with the least overhead the database allows. Going through Kysely
// costs ~5–10 µs per statement in JavaScript (the connection mutex, the executor, result transforms, a BigInt per
// insert id) besides what the database does; the group commit runs ~15 statements per batch on the request thread. On
// SQLite the statements run synchronously on the writer connection, held through Kysely for the whole transaction so
// that no other query interleaves; on PostgreSQL (round trips dominate there) through a Kysely transaction as usual.
//
// A transaction that only appends to logs no cache reads (the interaction records and their rollups) may say so
// (`unstamped`): on SQLite its changes then leave the change stamp where it was, so the authenticator's remembered
// principals survive it. Under a load of recorded calls every batch would otherwise empty that cache and every request
// would read its user and session again.
import type { Database as Sqlite } from 'bun:sqlite'
import type { CompiledQuery, Kysely } from 'kysely'

/** What one statement reports: the rowid it inserted (SQLite; undefined on PostgreSQL) and the rows it changed. */
export interface StatementResult {
  readonly insertId: number | undefined
  readonly changes: number
}

/** Runs one compiled statement of the transaction. On SQLite the result is there at once; await it on either. */
export type RunStatement = (query: CompiledQuery) => StatementResult | Promise<StatementResult>

/** The SQLite writer under a Kysely instance, and how to keep changes out of its change stamp. */
export interface SqliteWriter {
  readonly connection: Sqlite
  /** Leaves `changes` (committed, counted by total_changes()) out of the change stamp. */
  unstamp(changes: number): void
}

// biome-ignore lint/suspicious/noExplicitAny: any database's Kysely
const writers = new WeakMap<Kysely<any>, SqliteWriter>()

/** Called by openDatabase: `db` is Kysely over `writer` and nothing else. */
// biome-ignore lint/suspicious/noExplicitAny: any database's Kysely
export function registerSqliteWriter(db: Kysely<any>, writer: SqliteWriter): void {
  writers.set(db, writer)
}

/** The SQLite writer under `db` (null on PostgreSQL): reads inside `writeTransaction` run on it, synchronously. */
// biome-ignore lint/suspicious/noExplicitAny: any database's Kysely
export function sqliteWriterOf(db: Kysely<any>): Sqlite | null {
  return writers.get(db)?.connection ?? null
}

export interface WriteTransactionOptions {
  /**
   * The transaction writes only rows that no cache keyed on the change stamp depends on (users, sessions and tokens
   * are never among them): on SQLite its changes do not move the stamp. Default false.
   */
  readonly unstamped?: boolean
}

const totalChangesSql = 'SELECT total_changes() AS n'

/**
 * Runs `work` in one write transaction: committed when it resolves, rolled back (and the error rethrown) when it
 * throws. `work` should only run statements: on SQLite every other query waits until it is done.
 */
export async function writeTransaction<DB, T>(db: Kysely<DB>, work: (run: RunStatement) => Promise<T>, options: WriteTransactionOptions = {}): Promise<T> {
  const registered = writers.get(db)
  if (!registered) {
    return db.transaction().execute((trx) =>
      work(async (query) => {
        const result = await trx.executeQuery(query)
        return { insertId: undefined, changes: Number(result.numAffectedRows ?? 0) }
      }),
    )
  }
  // Holding Kysely's connection (its mutex) keeps every other query of this process out until the transaction ends.
  const writer = registered.connection
  const totalChanges = writer.query<{ n: number }, []>(totalChangesSql)
  return db.connection().execute(async () => {
    const before = options.unstamped ? totalChanges.get()!.n : 0
    writer.run('begin')
    try {
      const result = await work((query) => {
        // bun:sqlite keeps the prepared statement per SQL text, as the Kysely dialect is set up to (database.ts).
        const { lastInsertRowid, changes } = writer.query(query.sql).run(...(query.parameters as never[]))
        return { insertId: Number(lastInsertRowid), changes }
      })
      writer.run('commit')
      // In the same synchronous turn as the commit: no one reads the stamp in between.
      if (options.unstamped) registered.unstamp(totalChanges.get()!.n - before)
      return result
    } catch (error) {
      // A failed COMMIT may have rolled back already (SQLite then has no transaction to roll back).
      if (writer.inTransaction) writer.run('rollback')
      throw error
    }
  })
}
