// Transactions that compose: a service that needs one joins its caller's instead of opening a second.
import type { Kysely, Transaction } from 'kysely'
import type { Database } from './schema.ts'

/** Runs `work` in a transaction, joining the caller's if `db` already is one (Kysely cannot nest them). */
export function inTransaction<DB = Database, R = unknown>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<R>): Promise<R> {
  return db.isTransaction ? work(db as Transaction<DB>) : db.transaction().execute(work)
}
