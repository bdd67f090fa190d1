// Every rollup of `interactions` (the summary's of migrations 0002 and 0006, the insights' of 0008 and 0011), brought
// up to date for a range of rows: one aggregated upsert per rollup for many rows, instead of one per row and rollup in
// a trigger (that cost ~110 µs per recorded interaction for the insights' rollups; migration 0028 took the summary's
// two insert triggers out too). On SQLite the rows are counted after they are committed, by the rollup folder
// (rollup-folder.ts: the rows above migration 0029's watermark, a slice at a time); a loader that counts its own rows
// here must move the watermark with them (rollUpInteractions does). Deletes (retention) are taken out by the delete
// trigger, which computes the duration bucket with the same SQL. PostgreSQL (no rowid, and a round trip per
// statement) inserts the rows and counts them in one statement. Hence here in platform/db.
import { type CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from './schema.ts'
import { nameStatement } from './postgres.ts'
import type { InteractionsTable } from './tables/interactions.ts'
import { DURATION_BUCKET_SQL } from './migrations/0008_insights.ts'
import { partsOfDailyUsageByMonth } from './daily-usage-by-month.ts'

const BUCKET = sql.raw(DURATION_BUCKET_SQL.replaceAll('{ms}', '(duration_seconds * 1000.0)'))
const DAY = sql.raw('substr(created_at, 1, 10)')
const MONTH = sql.raw('substr(created_at, 1, 7)')

/** Rows on SQLite, by rowid: a slice the folder counts, or rows a loader just inserted (contiguous: one writer). */
export type InsertedRows = { readonly kind: 'sqlite'; readonly first: number; readonly last: number }

/**
 * One insights rollup: its key columns with the expression each is computed by, whether it counts failures too, and
 * whether it counts only calls with a duration (the histograms).
 */
interface Rollup {
  readonly table: string
  readonly keys: readonly (readonly [column: string, expression: RawBuilder<unknown>])[]
  readonly errors: boolean
  readonly durations: boolean
}

const USER = sql.raw('user_id')
const KIND = sql.raw('kind')
const TITLE = sql.raw('api_title')
const ACTION = sql.raw('action')
const ROLLUPS: readonly Rollup[] = [
  // The summary's (0002, 0006): every call, counted without its errors.
  {
    table: 'interaction_daily_usage',
    keys: [
      ['day', DAY],
      ['api_title', TITLE],
    ],
    errors: false,
    durations: false,
  },
  {
    table: 'interaction_user_daily_usage',
    keys: [
      ['user_id', USER],
      ['day', DAY],
      ['api_title', TITLE],
      ['kind', KIND],
    ],
    errors: false,
    durations: false,
  },
  // The insights' (0008, 0011).
  {
    table: 'interaction_daily_kinds',
    keys: [
      ['day', DAY],
      ['kind', KIND],
    ],
    errors: true,
    durations: false,
  },
  {
    table: 'interaction_daily_tools',
    keys: [
      ['day', DAY],
      ['kind', KIND],
      ['api_title', TITLE],
      ['action', ACTION],
    ],
    errors: true,
    durations: false,
  },
  {
    table: 'interaction_monthly_tools',
    keys: [
      ['month', MONTH],
      ['kind', KIND],
      ['api_title', TITLE],
      ['action', ACTION],
    ],
    errors: true,
    durations: false,
  },
  {
    table: 'interaction_user_daily_tools',
    keys: [
      ['user_id', USER],
      ['day', DAY],
      ['kind', KIND],
      ['api_title', TITLE],
      ['action', ACTION],
    ],
    errors: true,
    durations: false,
  },
  {
    table: 'interaction_user_monthly_tools',
    keys: [
      ['user_id', USER],
      ['month', MONTH],
      ['kind', KIND],
      ['api_title', TITLE],
      ['action', ACTION],
    ],
    errors: true,
    durations: false,
  },
  {
    table: 'interaction_user_tools',
    keys: [
      ['user_id', USER],
      ['kind', KIND],
      ['api_title', TITLE],
      ['action', ACTION],
    ],
    errors: true,
    durations: false,
  },
  {
    table: 'interaction_user_durations',
    keys: [
      ['user_id', USER],
      ['bucket', BUCKET],
    ],
    errors: false,
    durations: true,
  },
  {
    table: 'interaction_daily_active',
    keys: [
      ['day', DAY],
      ['user_id', USER],
    ],
    errors: false,
    durations: false,
  },
  {
    table: 'interaction_daily_durations',
    keys: [
      ['day', DAY],
      ['bucket', BUCKET],
    ],
    errors: false,
    durations: true,
  },
  {
    table: 'interaction_monthly_durations',
    keys: [
      ['month', MONTH],
      ['bucket', BUCKET],
    ],
    errors: false,
    durations: true,
  },
  {
    table: 'interaction_title_daily_durations',
    keys: [
      ['api_title', TITLE],
      ['day', DAY],
      ['bucket', BUCKET],
    ],
    errors: false,
    durations: true,
  },
  {
    table: 'interaction_user_daily_durations',
    keys: [
      ['user_id', USER],
      ['day', DAY],
      ['bucket', BUCKET],
    ],
    errors: false,
    durations: true,
  },
  {
    table: 'interaction_user_monthly_durations',
    keys: [
      ['user_id', USER],
      ['month', MONTH],
      ['bucket', BUCKET],
    ],
    errors: false,
    durations: true,
  },
]

/**
 * The rollup's upsert of the rows `from` (a table or a WITH name) that `where` selects, aggregated by its keys. Its SET
 * names the rollup's own column with its table: PostgreSQL finds a bare `n` ambiguous. `ordered` sorts the aggregated
 * rows by key before they are upserted, so that every writer locks a rollup's rows in the same order (PostgreSQL: two
 * instances' batches then wait for each other but never deadlock; SQLite has one writer and needs no sort).
 */
function upsert(rollup: Rollup, from: RawBuilder<unknown>, where: RawBuilder<unknown>, ordered: boolean): RawBuilder<unknown> {
  const table = sql.raw(rollup.table)
  const columns = sql.raw(rollup.keys.map(([column]) => column).join(', '))
  const positions = sql.raw(rollup.keys.map((_, i) => String(i + 1)).join(', '))
  const expressions = sql.join(rollup.keys.map(([, expression]) => expression))
  const filter = rollup.durations ? sql`${where} and duration_seconds is not null` : where
  const set = rollup.errors
    ? sql.raw(`n = ${rollup.table}.n + excluded.n, errors = ${rollup.table}.errors + excluded.errors`)
    : sql.raw(`n = ${rollup.table}.n + excluded.n`)
  return sql`insert into ${table} (${columns}, n${sql.raw(rollup.errors ? ', errors' : '')})
    select ${expressions}, count(*)${sql.raw(rollup.errors ? ', sum(is_error)' : '')} from ${from} where ${filter} group by ${positions}${ordered ? sql` order by ${positions}` : sql``}
    on conflict (${columns}) do update set ${set}`
}

/** The SQLite upserts, compiled once (building and compiling them cost more than running them); only the rowids change. */
let sqliteStatements: readonly CompiledQuery[] | null = null

/** The statements that count the rows `rows` into every rollup (SQLite); the folder runs them with the watermark's move. */
export function rollupStatements<DB>(db: Kysely<DB>, rows: InsertedRows): CompiledQuery[] {
  if (sqliteStatements === null) {
    const target = db as unknown as Kysely<Database>
    const statements = ROLLUPS.map((rollup) => upsert(rollup, sql.raw('interactions'), sql`rowid between ${0} and ${0}`, false).compile(target))
    // The batch's bounds are the only parameters: first and last rowid per statement.
    if (statements.some((query) => query.parameters.length !== 2)) throw new Error('unexpected rollup parameters')
    sqliteStatements = statements
  }
  return sqliteStatements.map((query) => ({ ...query, parameters: [rows.first, rows.last] }))
}

/**
 * Counts the rows just inserted into every rollup and moves the watermark past them (SQLite: bench loaders that insert
 * without the group commit). Call inside the transaction that inserted them. Throws unless every row before them was
 * counted already (the watermark at `first - 1`), so no row is ever counted twice or skipped.
 */
export async function rollUpInteractions(trx: Kysely<Database>, rows: InsertedRows): Promise<void> {
  for (const query of rollupStatements(trx, rows)) await trx.executeQuery(query)
  const moved = await trx
    .updateTable('interaction_rollup_watermark')
    .set({ last_rowid: rows.last })
    .where('id', '=', 1)
    .where('last_rowid', '=', rows.first - 1)
    .executeTakeFirst()
  if (Number(moved.numUpdatedRows) !== 1) throw new Error('rows before these are not counted yet: fold them first (rollup-folder.ts)')
}

/** The interaction columns, and the array type each is sent as to PostgreSQL's unnest. */
const COLUMNS = [
  ['id', 'text'],
  ['user_id', 'text'],
  ['kind', 'text'],
  ['api_title', 'text'],
  ['action', 'text'],
  ['is_error', 'int8'],
  ['duration_seconds', 'float8'],
  ['conversation_id', 'text'],
  ['client_source', 'text'],
  ['user_input', 'text'],
  ['arguments', 'text'],
  ['result', 'text'],
  ['created_at', 'text'],
] as const satisfies readonly (readonly [keyof InteractionsTable, string])[]

/**
 * PostgreSQL: inserts the rows and counts them into every rollup in ONE statement, so a group-committed batch is one
 * round trip (no BEGIN, no row-by-row INSERT, no COMMIT: a statement is its own transaction) and holds the rollups'
 * row locks only while PostgreSQL runs it. The rows go as one array per column (unnest), whatever their number, so the
 * statement's text is the same for every batch. Each rollup part (the summary's two included: migration 0028 dropped
 * the statement trigger that counted them; and PostgreSQL's own two of 0030, daily-usage-by-month.ts) sorts its aggregated rows by key: every writer locks the hot rows in one
 * order, so two instances' batches queue behind each other's locks but never deadlock.
 * The WITH parts read the inserted rows from the INSERT's RETURNING (they cannot see each other's writes).
 */
export async function insertWithRollupsPostgres(db: Kysely<Database>, rows: readonly InteractionsTable[]): Promise<void> {
  postgresStatement ??= compilePostgresStatement(db)
  await db.executeQuery({ ...postgresStatement, parameters: COLUMNS.map(([column]) => rows.map((row) => row[column] ?? null)) })
}

/** Compiled once: its only parameters are the column arrays, in COLUMNS order. */
let postgresStatement: CompiledQuery | null = null

function compilePostgresStatement(db: Kysely<Database>): CompiledQuery {
  const names = sql.raw(COLUMNS.map(([column]) => column).join(', '))
  const arrays = sql.join(COLUMNS.map(([, type]) => sql`cast(${[]} as ${sql.raw(type)}[])`))
  const inserted = sql`inserted as (
    insert into interactions (${names})
    select ${names} from unnest(${arrays}) as batch (${names})
    returning user_id, kind, api_title, action, is_error, duration_seconds, created_at)`
  const parts = ROLLUPS.map((rollup, i) => sql`${sql.raw(`rollup_${i}`)} as (${upsert(rollup, sql.raw('inserted'), sql.raw('true'), true)})`)
  parts.push(...partsOfDailyUsageByMonth())
  const statement = sql`with ${inserted}, ${sql.join(parts)} select 1`.compile(db)
  if (statement.parameters.length !== COLUMNS.length) throw new Error('unexpected batch parameters')
  // Named: prepared once per connection, so PostgreSQL does not plan its parts again for every batch.
  return nameStatement(statement, 'agentbox_interaction_batch')
}
