// SQLite: the rollups of `interactions` are counted after the rows are committed, not in the group commit's
// transaction. A fold counts the rows above the watermark (migration 0029: the rowid of the last row counted) into every
// rollup and moves the watermark, in one write transaction per slice, each sized to hold the event loop only a few ms
// (bun:sqlite is synchronous). Folds run shortly after rows are recorded (debounced), before
// every read of a rollup (so every answer counts every row committed before it was asked), at start-up and at shutdown.
// A crash between a batch's commit and its fold leaves rows above the watermark: the next fold counts them, exactly once,
// because a slice's counts and its watermark commit together. PostgreSQL counts each batch as it inserts it
// (insights-rollups.ts): every function here is a no-op there.
import { Database as Sqlite } from 'bun:sqlite'
import { type CompiledQuery, Kysely, sql } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import { kindOf } from './dialect.ts'
import { rollupStatements } from './insights-rollups.ts'
import type { Database } from './schema.ts'
import { sqliteWriterOf, writeTransaction } from './write-transaction.ts'

/**
 * Rows counted per slice (one write transaction), sized as the summary sizes its chunks: every fold starts at
 * FIRST_SLICE_ROWS, and the next slice doubles while one takes under SLICE_FAST_MS and halves when one takes over
 * SLICE_SLOW_MS. What a row costs depends on where its keys fall: rows recorded in the last minutes share a day and a
 * month and cost a few µs each, rows spread over a year (a backlog no running server makes) up to ~170 µs each, every
 * key a page of its own (docs/benchmarks.md, "Fifth pass").
 */
const FIRST_SLICE_ROWS = 128
const MIN_SLICE_ROWS = 8
const MAX_SLICE_ROWS = 8192
const SLICE_FAST_MS = 1.5
const SLICE_SLOW_MS = 4
/** How long recorded rows may wait uncounted when nothing reads a rollup. */
export const FOLD_DELAY_MS = 250

export interface FoldResult {
  /** Rows counted into the rollups. */
  readonly rows: number
  /** Write transactions it took. */
  readonly slices: number
}

export interface FoldOptions {
  /** Rows per slice, every slice (tests and benches); adaptive when omitted. */
  readonly sliceRows?: number
}

const WATERMARK_SQL = 'SELECT last_rowid AS w FROM interaction_rollup_watermark WHERE id = 1'
const SLICE_SQL = 'SELECT count(*) AS n, max(rowid) AS e FROM (SELECT rowid FROM interactions WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?)'
const LARGEST_SQL = 'SELECT coalesce(max(rowid), 0) AS e FROM interactions'
/** One statement, so one snapshot: the watermark and the largest rowid are read together. */
const FOLDED_SQL = 'SELECT (SELECT last_rowid FROM interaction_rollup_watermark WHERE id = 1) >= (SELECT coalesce(max(rowid), 0) FROM interactions) AS folded'

const moveWatermark = sql`update interaction_rollup_watermark set last_rowid = ${0} where id = 1`

/**
 * One slice on `connection` (the writer, inside a write transaction): the rows above the watermark, at most `sliceRows`
 * and none above `upTo`, counted into every rollup, and the watermark moved past them. Answers the rows counted.
 */
function foldSlice(connection: Sqlite, db: Kysely<Database>, sliceRows: number, upTo: number, run: (query: CompiledQuery) => unknown): number {
  const watermark = connection.query<{ w: number }, []>(WATERMARK_SQL).get()!.w
  if (watermark >= upTo) return 0
  const slice = connection.query<{ n: number; e: number | null }, [number, number, number]>(SLICE_SQL).get(watermark, upTo, sliceRows)!
  if (slice.n === 0 || slice.e === null) return 0
  for (const query of rollupStatements(db, { kind: 'sqlite', first: watermark + 1, last: slice.e })) run(query)
  run({ ...moveWatermark.compile(db), parameters: [slice.e] })
  return slice.n
}

/** A file no server has open: nothing waits for the event loop, slices only bound one transaction's size. */
const FILE_SLICE_ROWS = 20_000

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * True when every committed row is counted already, read without the writer's lock or a transaction: what every
 * summary and insights request finds when nothing was recorded since the last fold, answered by one read of two rows
 * instead of a write transaction that waits its turn behind the group commit.
 *
 * Why the answer is right. The rollups' invariant holds in every committed state: every row at or below the watermark
 * is counted, none above it (a fold's counts and its watermark commit together; the delete trigger subtracts a
 * counted row and lowers the watermark when the newest rows go, in the deleting transaction, so a reused rowid lands
 * above it). So in a committed state where the watermark is at least the largest rowid, every row is counted.
 * - The read runs on the writer connection, the only one that writes `interactions` (SQLite: one instance per file;
 *   a file no server has open is folded by `foldSqliteFile`). Outside a transaction, a statement there sees every
 *   commit made before it, its own connection's included, and nothing uncommitted: one statement is one snapshot,
 *   taken now, after every row committed before the call.
 * - Inside a transaction (the group commit, a retention delete, an import, a slice of another fold: any of them can be
 *   awaiting between statements while this runs) the same read would see that transaction's uncommitted changes. A
 *   retention delete in flight may have removed the rows above the watermark, so the two would look equal although a
 *   rollback brings the uncounted rows back; rows inserted and not yet committed only look like more to fold. So
 *   the fast path is taken only when the writer is in no transaction; otherwise the fold waits for the writer as
 *   before, and reads the largest rowid under its lock.
 * - What commits after this read is not "committed before the call": the caller's read of the rollups may then see
 *   rows not counted yet, as it could after any fold.
 * (The reader connection would see only committed rows too, but a long-lived statement on it could hold an older
 * snapshot; the writer's own commits are always visible to the writer.)
 */
function nothingToFold(connection: Sqlite): boolean {
  if (connection.inTransaction) return false
  return connection.query<{ folded: number }, []>(FOLDED_SQL).get()!.folded === 1
}

/**
 * Counts every row committed before the call into the rollups (and perhaps some committed since), a slice at a time
 * with a turn of the event loop between slices. Concurrent folds are safe: each slice reads the watermark in its own
 * transaction. Call before reading a rollup.
 */
export async function foldRollups(db: Kysely<Database>, options: FoldOptions = {}): Promise<FoldResult> {
  const connection = kindOf(db) === 'sqlite' ? sqliteWriterOf(db) : null
  if (connection === null) return { rows: 0, slices: 0 }
  if (nothingToFold(connection)) return { rows: 0, slices: 0 }
  let sliceRows = options.sliceRows ?? FIRST_SLICE_ROWS
  let upTo = Number.POSITIVE_INFINITY
  let rows = 0
  let slices = 0
  for (;;) {
    const began = performance.now()
    const counted = await writeTransaction(
      db,
      async (run) => {
        // Read under the writer's lock: the rows committed before this fold began, and nothing of a batch in progress.
        if (upTo === Number.POSITIVE_INFINITY) upTo = connection.query<{ e: number }, []>(LARGEST_SQL).get()!.e
        return foldSlice(connection, db, sliceRows, upTo, run)
      },
      // Counts only: nothing the authenticator remembers changes with them.
      { unstamped: true },
    )
    if (counted === 0) break
    rows += counted
    slices++
    if (options.sliceRows === undefined) {
      const took = performance.now() - began
      if (took < SLICE_FAST_MS) sliceRows = Math.min(MAX_SLICE_ROWS, sliceRows * 2)
      else if (took > SLICE_SLOW_MS) sliceRows = Math.max(MIN_SLICE_ROWS, sliceRows >> 1)
    }
    await nextTurn()
  }
  return { rows, slices }
}

/**
 * Folds a database file no server has open (migrate-to-postgres copies the rollups as stored, so they must count
 * every row first). Nothing happens to a file without the watermark (a database of another version is refused later).
 */
export async function foldSqliteFile(path: string): Promise<FoldResult> {
  const connection = new Sqlite(path, { readwrite: true, strict: true })
  try {
    connection.run('PRAGMA busy_timeout = 10000')
    const present = connection.query("SELECT 1 AS ok FROM sqlite_master WHERE type = 'table' AND name = 'interaction_rollup_watermark'").get()
    if (!present) return { rows: 0, slices: 0 }
    // Kysely only compiles the statements here; they run on the connection itself.
    const db = new Kysely<Database>({ dialect: new BunSqliteDialect({ database: connection }) })
    let rows = 0
    let slices = 0
    const upTo = connection.query<{ e: number }, []>(LARGEST_SQL).get()!.e
    for (;;) {
      const counted = connection.transaction(() =>
        foldSlice(connection, db, FILE_SLICE_ROWS, upTo, (query) => connection.query(query.sql).run(...(query.parameters as never[]))),
      )()
      if (counted === 0) break
      rows += counted
      slices++
    }
    return { rows, slices }
  } finally {
    connection.close()
  }
}

interface Scheduled {
  timer: ReturnType<typeof setTimeout> | null
  running: Promise<unknown> | null
  stopped: boolean
  readonly delayMs: number
  onError: (error: unknown) => void
}

// biome-ignore lint/suspicious/noExplicitAny: any database's Kysely
const scheduled = new WeakMap<Kysely<any>, Scheduled>()

/**
 * At start-up (SQLite): folds what a previous run left uncounted, then lets `rowsInserted` schedule folds. Without it
 * (bench loaders, tools) rows are folded only by the reads' own folds.
 */
export async function startRollupFolder(db: Kysely<Database>, onError: (error: unknown) => void, delayMs = FOLD_DELAY_MS): Promise<FoldResult> {
  if (kindOf(db) !== 'sqlite') return { rows: 0, slices: 0 }
  const result = await foldRollups(db)
  scheduled.set(db, { timer: null, running: null, stopped: false, onError, delayMs })
  return result
}

/** The group commit committed rows (SQLite): a fold runs within the delay, once for however many batches came. */
export function rowsInserted(db: Kysely<Database>): void {
  const state = scheduled.get(db)
  if (!state || state.stopped || state.timer !== null) return
  state.timer = setTimeout(() => {
    state.timer = null
    if (state.stopped) return
    const running = foldRollups(db).catch(state.onError)
    state.running = running
    running.finally(() => {
      if (state.running === running) state.running = null
    })
  }, state.delayMs)
  // A pending fold never keeps the process alive: whatever it leaves, the next start-up folds.
  state.timer.unref?.()
}

/** At shutdown, after the last record and before the database closes: no more timers, and a last fold. */
export async function stopRollupFolder(db: Kysely<Database>): Promise<void> {
  const state = scheduled.get(db)
  if (!state) return
  state.stopped = true
  if (state.timer !== null) clearTimeout(state.timer)
  state.timer = null
  await state.running
  try {
    await foldRollups(db)
  } catch (error) {
    state.onError(error)
  }
}
