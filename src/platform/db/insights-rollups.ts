// The insights rollups of migrations 0008 and 0011, brought up to date for rows just inserted into `interactions`: one
// aggregated upsert per rollup for a whole group-committed batch, instead of one per row and rollup in a trigger
// (that cost ~110 µs per recorded interaction). Deletes (retention) are still taken out by the delete trigger, which
// computes the duration bucket with the same SQL. The batch is picked by rowid range on SQLite, by id on PostgreSQL
// (which has no rowid), hence here in platform/db.
import { type CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from './schema.ts'
import { DURATION_BUCKET_SQL } from './migrations/0008_insights.ts'
import type { DatabaseKind } from './target.ts'

const BUCKET = sql.raw(DURATION_BUCKET_SQL.replaceAll('{ms}', '(duration_seconds * 1000.0)'))
const DAY = sql.raw('substr(created_at, 1, 10)')
const MONTH = sql.raw('substr(created_at, 1, 7)')

/**
 * The rows just inserted: on SQLite by rowid (one writer, one transaction: they are contiguous), on PostgreSQL by id
 * (the primary key; sequences give no contiguous range when transactions run side by side).
 */
export type InsertedRows =
  | { readonly kind: 'sqlite'; readonly first: number; readonly last: number }
  | { readonly kind: 'postgres'; readonly ids: readonly string[] }

const inBatch = (rows: InsertedRows): RawBuilder<unknown> =>
  rows.kind === 'sqlite' ? sql`rowid between ${rows.first} and ${rows.last}` : sql`id = any(${rows.ids})`

/** Each upsert's SET names the rollup's own column with its table: PostgreSQL finds a bare `n` ambiguous. */
const STATEMENTS: ((batch: RawBuilder<unknown>) => RawBuilder<unknown>)[] = [
  (batch) => sql`insert into interaction_daily_kinds (day, kind, n, errors)
    select ${DAY}, kind, count(*), sum(is_error) from interactions where ${batch} group by 1, 2
    on conflict (day, kind) do update set n = interaction_daily_kinds.n + excluded.n, errors = interaction_daily_kinds.errors + excluded.errors`,
  (batch) => sql`insert into interaction_daily_tools (day, kind, api_title, action, n, errors)
    select ${DAY}, kind, api_title, action, count(*), sum(is_error) from interactions where ${batch} group by 1, 2, 3, 4
    on conflict (day, kind, api_title, action) do update set n = interaction_daily_tools.n + excluded.n, errors = interaction_daily_tools.errors + excluded.errors`,
  (batch) => sql`insert into interaction_monthly_tools (month, kind, api_title, action, n, errors)
    select ${MONTH}, kind, api_title, action, count(*), sum(is_error) from interactions where ${batch} group by 1, 2, 3, 4
    on conflict (month, kind, api_title, action) do update set n = interaction_monthly_tools.n + excluded.n, errors = interaction_monthly_tools.errors + excluded.errors`,
  (batch) => sql`insert into interaction_user_daily_tools (user_id, day, kind, api_title, action, n, errors)
    select user_id, ${DAY}, kind, api_title, action, count(*), sum(is_error) from interactions where ${batch} group by 1, 2, 3, 4, 5
    on conflict (user_id, day, kind, api_title, action) do update set n = interaction_user_daily_tools.n + excluded.n, errors = interaction_user_daily_tools.errors + excluded.errors`,
  (batch) => sql`insert into interaction_user_monthly_tools (user_id, month, kind, api_title, action, n, errors)
    select user_id, ${MONTH}, kind, api_title, action, count(*), sum(is_error) from interactions where ${batch} group by 1, 2, 3, 4, 5
    on conflict (user_id, month, kind, api_title, action) do update set n = interaction_user_monthly_tools.n + excluded.n, errors = interaction_user_monthly_tools.errors + excluded.errors`,
  (batch) => sql`insert into interaction_user_tools (user_id, kind, api_title, action, n, errors)
    select user_id, kind, api_title, action, count(*), sum(is_error) from interactions where ${batch} group by 1, 2, 3, 4
    on conflict (user_id, kind, api_title, action) do update set n = interaction_user_tools.n + excluded.n, errors = interaction_user_tools.errors + excluded.errors`,
  (batch) => sql`insert into interaction_user_durations (user_id, bucket, n)
    select user_id, ${BUCKET}, count(*) from interactions where ${batch} and duration_seconds is not null group by 1, 2
    on conflict (user_id, bucket) do update set n = interaction_user_durations.n + excluded.n`,
  (batch) => sql`insert into interaction_daily_active (day, user_id, n)
    select ${DAY}, user_id, count(*) from interactions where ${batch} group by 1, 2
    on conflict (day, user_id) do update set n = interaction_daily_active.n + excluded.n`,
  (batch) => sql`insert into interaction_daily_durations (day, bucket, n)
    select ${DAY}, ${BUCKET}, count(*) from interactions where ${batch} and duration_seconds is not null group by 1, 2
    on conflict (day, bucket) do update set n = interaction_daily_durations.n + excluded.n`,
  (batch) => sql`insert into interaction_monthly_durations (month, bucket, n)
    select ${MONTH}, ${BUCKET}, count(*) from interactions where ${batch} and duration_seconds is not null group by 1, 2
    on conflict (month, bucket) do update set n = interaction_monthly_durations.n + excluded.n`,
  (batch) => sql`insert into interaction_title_daily_durations (api_title, day, bucket, n)
    select api_title, ${DAY}, ${BUCKET}, count(*) from interactions where ${batch} and duration_seconds is not null group by 1, 2, 3
    on conflict (api_title, day, bucket) do update set n = interaction_title_daily_durations.n + excluded.n`,
  (batch) => sql`insert into interaction_user_daily_durations (user_id, day, bucket, n)
    select user_id, ${DAY}, ${BUCKET}, count(*) from interactions where ${batch} and duration_seconds is not null group by 1, 2, 3
    on conflict (user_id, day, bucket) do update set n = interaction_user_daily_durations.n + excluded.n`,
  (batch) => sql`insert into interaction_user_monthly_durations (user_id, month, bucket, n)
    select user_id, ${MONTH}, ${BUCKET}, count(*) from interactions where ${batch} and duration_seconds is not null group by 1, 2, 3
    on conflict (user_id, month, bucket) do update set n = interaction_user_monthly_durations.n + excluded.n`,
]

/** The upserts compiled once per dialect (building and compiling them cost more than running them); only the batch's bounds change. */
const compiled = new Map<DatabaseKind, readonly CompiledQuery[]>()

/** The statements that count the rows just inserted into every insights rollup, to run in the transaction that inserted them. */
export function insightsRollupStatements<DB>(db: Kysely<DB>, rows: InsertedRows): CompiledQuery[] {
  let statements = compiled.get(rows.kind)
  if (statements === undefined) {
    const sample: InsertedRows = rows.kind === 'sqlite' ? { kind: 'sqlite', first: 0, last: 0 } : { kind: 'postgres', ids: [] }
    statements = STATEMENTS.map((statement) => statement(inBatch(sample)).compile(db as unknown as Kysely<Database>))
    // The batch's bounds are each statement's only parameters.
    if (statements.some((query) => query.parameters.length !== (rows.kind === 'sqlite' ? 2 : 1))) throw new Error('unexpected rollup parameters')
    compiled.set(rows.kind, statements)
  }
  const parameters = rows.kind === 'sqlite' ? [rows.first, rows.last] : [rows.ids]
  return statements.map((query) => ({ ...query, parameters }))
}

/** Counts the rows just inserted into every insights rollup. Call inside the transaction that inserted them. */
export async function rollUpInsights(trx: Kysely<Database>, rows: InsertedRows): Promise<void> {
  const batch = inBatch(rows)
  if (rows.kind === 'postgres') {
    // One round trip instead of one per rollup: PostgreSQL runs each data-modifying WITH part exactly once, all on the
    // statement's snapshot, which holds the rows this transaction inserted (each part writes its own table).
    await sql`with ${sql.join(STATEMENTS.map((statement, i) => sql`${sql.raw(`rollup_${i}`)} as (${statement(batch)})`))} select 1`.execute(trx)
    return
  }
  for (const query of insightsRollupStatements(trx, rows)) await trx.executeQuery(query)
}
