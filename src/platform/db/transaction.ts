// Transactions that compose: a service that needs one joins its caller's instead of opening a second.
import type { Kysely, Transaction } from 'kysely'
import type { Database } from './schema.ts'

/** Runs `work` in a transaction, joining the caller's if `db` already is one (Kysely cannot nest them). */
export function inTransaction<R>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<R>): Promise<R> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work)
}
