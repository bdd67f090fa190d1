// Group commit for the interaction store: inserts that arrive while one commits share the next transaction.
import type { CompiledQuery, Kysely } from 'kysely'
import { kindOf } from '../../platform/db/dialect.ts'
import { insertWithRollupsPostgres } from '../../platform/db/insights-rollups.ts'
import { rowsInserted } from '../../platform/db/rollup-folder.ts'
import type { DatabaseKind } from '../../platform/db/target.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { InteractionsTable } from '../../platform/db/tables/interactions.ts'
import { writeTransaction } from '../../platform/db/write-transaction.ts'

const COLUMNS = [
  'id',
  'user_id',
  'kind',
  'api_title',
  'action',
  'is_error',
  'duration_seconds',
  'conversation_id',
  'client_source',
  'user_input',
  'arguments',
  'result',
  'created_at',
] as const
type Column = (typeof COLUMNS)[number]

/** Bounds one transaction's length, so other writers wait at most one batch. */
const MAX_BATCH = 256

interface Pending {
  row: InteractionsTable
  resolve: () => void
  reject: (error: unknown) => void
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))
/** A turn of the event loop that also takes in network events (setImmediate alone may run before the next poll). */
const nextPoll = () => new Promise<void>((resolve) => setTimeout(resolve, 0))
/**
 * A batch at least this large says that calls are arriving together: the next batch then waits (at most
 * EXTRA_WAITS polls) until as many rows are queued as the last batch had. A commit costs ~150–200 µs of CPU whatever
 * its size (the WAL append of every page it touched), so batches of ~16 rows instead of ~9 at 16 concurrent callers
 * cut the record's share per call by almost half; a lone caller (batches of one) never waits.
 */
const BUSY_BATCH = 4
const EXTRA_WAITS = 2

/**
 * Every recorded interaction is its own commit as far as the caller knows: `insert` resolves only once the row is
 * committed. But a commit (the WAL append of every page the batch touched) costs several times the insert itself, and bun:sqlite blocks the
 * event loop while it runs, so requests that arrive meanwhile queue up; each batch waits one event-loop turn, then
 * commits everything queued in one transaction. Alone, a request pays one turn (microseconds); under load, batches grow
 * and the per-row cost falls, and after a large batch the next waits a little for as many rows (docs/benchmarks.md).
 */
export class GroupCommitInserts {
  readonly #db: Kysely<Database>
  readonly #insert: CompiledQuery
  readonly #order: Column[]
  #queue: Pending[] = []
  #draining: Promise<void> | null = null
  /** The size of the last batch committed: how many rows the next one may wait for. */
  #last = 0

  readonly #kind: DatabaseKind

  constructor(db: Kysely<Database>) {
    this.#db = db
    this.#kind = kindOf(db)
    // Built and compiled by Kysely once, with each column's own name as its value so the parameter order can be read
    // back: building the query per call cost ~25 µs, a third of the whole request.
    this.#insert = db
      .insertInto('interactions')
      .values(Object.fromEntries(COLUMNS.map((column) => [column, column])) as unknown as InteractionsTable)
      .compile()
    this.#order = this.#insert.parameters.map((parameter) => parameter as Column)
    if (this.#order.length !== COLUMNS.length || !COLUMNS.every((column) => this.#order.includes(column))) throw new Error('unexpected INSERT parameters')
  }

  /** Resolves once `row` is committed; rejects with the row's own error. */
  insert(row: InteractionsTable): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ row, resolve, reject })
      this.#draining ??= this.#drain()
    })
  }

  /** Waits for every queued row (shutdown). */
  async flush(): Promise<void> {
    await this.#draining
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      await nextTurn()
      for (let wait = 0; wait < EXTRA_WAITS && this.#last >= BUSY_BATCH && this.#queue.length < this.#last; wait++) await nextPoll()
      const batch = this.#queue.splice(0, MAX_BATCH)
      this.#last = batch.length
      await this.#commit(batch)
    }
    // No await between the last length check and this: an insert cannot slip in unseen.
    this.#draining = null
  }

  #query(row: InteractionsTable): CompiledQuery {
    return { ...this.#insert, parameters: this.#order.map((column) => row[column]) }
  }

  async #commit(batch: Pending[]): Promise<void> {
    try {
      await this.#commitRows(batch.map((pending) => pending.row))
      for (const pending of batch) pending.resolve()
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error)
      // The whole batch rolled back; commit each row alone so that only a faulty row fails, with its own error.
      for (const pending of batch) {
        try {
          await this.#commitRows([pending.row])
          pending.resolve()
        } catch (rowError) {
          pending.reject(rowError)
        }
      }
    }
  }

  /**
   * The rows, committed. PostgreSQL counts them into every rollup (the summary's and the insights') in the same
   * statement; SQLite inserts them only, and the rollup folder counts them shortly after, or before any read of a
   * rollup, whichever comes first (platform/db/rollup-folder.ts): the batch is the whole transaction, a dozen upserts
   * per batch fewer on the request thread. On SQLite the batch runs as one synchronous piece on the writer
   * (platform/db/write-transaction.ts).
   */
  async #commitRows(rows: InteractionsTable[]): Promise<void> {
    // PostgreSQL: one statement, one round trip, whatever the batch's size (each round trip is another process's turn).
    if (this.#kind === 'postgres') return insertWithRollupsPostgres(this.#db, rows)
    await writeTransaction(
      this.#db,
      async (run) => {
        for (const row of rows) await run(this.#query(row))
        // Records only: nothing the authenticator remembers (users, sessions, tokens) changes with them.
      },
      { unstamped: true },
    )
    rowsInserted(this.#db)
  }
}
