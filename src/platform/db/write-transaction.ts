// Write transactions of statements compiled ahead, with the least overhead the database allows. Going through Kysely
// costs ~5–10 µs per statement in JavaScript (the connection mutex, the executor, result transforms, a BigInt per
// insert id) besides what the database does; the group commit runs ~15 statements per batch on the request thread. On
// SQLite the statements run synchronously on the writer connection, held through Kysely for the whole transaction so
// that no other query interleaves; on PostgreSQL (round trips dominate there) through a Kysely transaction as usual.
import type { Database as Sqlite } from 'bun:sqlite'
import type { CompiledQuery, Kysely } from 'kysely'

/** What one statement reports: the rowid it inserted (SQLite; undefined on PostgreSQL) and the rows it changed. */
export interface StatementResult {
  readonly insertId: number | undefined
  readonly changes: number
}

/** Runs one compiled statement of the transaction. On SQLite the result is there at once; await it on either. */
export type RunStatement = (query: CompiledQuery) => StatementResult | Promise<StatementResult>

const writers = new WeakMap<Kysely<any>, Sqlite>()

/** Called by openDatabase: `db` is Kysely over `writer` and nothing else. */
export function registerSqliteWriter(db: Kysely<any>, writer: Sqlite): void {
  writers.set(db, writer)
}

/**
 * Runs `work` in one write transaction: committed when it resolves, rolled back (and the error rethrown) when it
 * throws. `work` should only run statements: on SQLite every other query waits until it is done.
 */
export async function writeTransaction<DB, T>(db: Kysely<DB>, work: (run: RunStatement) => Promise<T>): Promise<T> {
  const writer = writers.get(db)
  if (!writer) {
    return db.transaction().execute((trx) =>
      work(async (query) => {
        const result = await trx.executeQuery(query)
        return { insertId: undefined, changes: Number(result.numAffectedRows ?? 0) }
      }),
    )
  }
  // Holding Kysely's connection (its mutex) keeps every other query of this process out until the transaction ends.
  return db.connection().execute(async () => {
    writer.run('begin')
    try {
      const result = await work((query) => {
        // bun:sqlite keeps the prepared statement per SQL text, as the Kysely dialect is set up to (database.ts).
        const { lastInsertRowid, changes } = writer.query(query.sql).run(...(query.parameters as never[]))
        return { insertId: Number(lastInsertRowid), changes }
      })
      writer.run('commit')
      return result
    } catch (error) {
      // A failed COMMIT may have rolled back already (SQLite then has no transaction to roll back).
      if (writer.inTransaction) writer.run('rollback')
      throw error
    }
  })
}
