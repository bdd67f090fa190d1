// 0029: on SQLite the rollups of `interactions` (0002, 0006, 0008, 0011) are no longer counted in every group-committed
// batch but folded in later, exactly, from a watermark: the rowid of the last interaction counted
// (platform/db/rollup-folder.ts). Every row at or below it is counted in every rollup; every row above it in none.
// The four delete triggers (retention) become one that takes a deleted row out of the rollups only when it was counted,
// so deleting a row the folder has not reached never drives a count below its rows, and then lowers the watermark
// to the largest rowid left when every row above it is gone: SQLite (no AUTOINCREMENT) gives the next row the largest
// rowid + 1, which must land above the watermark to be folded. One trigger, so these run in this order for each row.
// PostgreSQL is unchanged: it inserts and counts a batch in one statement (platform/db/insights-rollups.ts).
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, kindOf } from '../dialect.ts'
import { DURATION_BUCKET_SQL } from './0008_insights.ts'

const WATERMARK = 'interaction_rollup_watermark'
const TRIGGER = 'interactions_rollups_delete'
/** The delete triggers of 0002, 0006, 0008 and 0011, which this one replaces on SQLite. */
const REPLACED = ['interactions_rollup_delete', 'interactions_user_rollup_delete', 'interactions_insights_delete', 'interactions_user_monthly_tools_delete']

const day = 'substr(old.created_at, 1, 10)'
const month = 'substr(old.created_at, 1, 7)'
const bucket = DURATION_BUCKET_SQL.replaceAll('{ms}', '(old.duration_seconds * 1000.0)')
const counted = `old.rowid <= (select last_rowid from ${WATERMARK})`
const timed = 'old.duration_seconds is not null'
const tools = 'kind = old.kind and api_title = old.api_title and action = old.action'

/** Each rollup's decrement for one deleted row, as 0002, 0006, 0008 and 0011 wrote them (their WHERE, then `counted`). */
const DECREMENTS: readonly string[] = [
  `update interaction_daily_usage set n = n - 1 where day = ${day} and api_title = old.api_title`,
  `update interaction_user_daily_usage set n = n - 1 where user_id = old.user_id and day = ${day} and api_title = old.api_title and kind = old.kind`,
  `update interaction_daily_kinds set n = n - 1, errors = errors - old.is_error where day = ${day} and kind = old.kind`,
  `update interaction_monthly_tools set n = n - 1, errors = errors - old.is_error where month = ${month} and ${tools}`,
  `update interaction_daily_active set n = n - 1 where day = ${day} and user_id = old.user_id`,
  `update interaction_daily_tools set n = n - 1, errors = errors - old.is_error where day = ${day} and ${tools}`,
  `update interaction_user_daily_tools set n = n - 1, errors = errors - old.is_error where user_id = old.user_id and day = ${day} and ${tools}`,
  `update interaction_daily_durations set n = n - 1 where ${timed} and day = ${day} and bucket = ${bucket}`,
  `update interaction_title_daily_durations set n = n - 1 where ${timed} and api_title = old.api_title and day = ${day} and bucket = ${bucket}`,
  `update interaction_user_daily_durations set n = n - 1 where ${timed} and user_id = old.user_id and day = ${day} and bucket = ${bucket}`,
  `update interaction_monthly_durations set n = n - 1 where ${timed} and month = ${month} and bucket = ${bucket}`,
  `update interaction_user_monthly_durations set n = n - 1 where ${timed} and user_id = old.user_id and month = ${month} and bucket = ${bucket}`,
  `update interaction_user_monthly_tools set n = n - 1, errors = errors - old.is_error where user_id = old.user_id and month = ${month} and ${tools}`,
  `update interaction_user_tools set n = n - 1, errors = errors - old.is_error where user_id = old.user_id and ${tools}`,
  `update interaction_user_durations set n = n - 1 where ${timed} and user_id = old.user_id and bucket = ${bucket}`,
]

const LARGEST_ROWID = '(select coalesce(max(rowid), 0) from interactions)'

export async function up(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) !== 'sqlite') return
  await db.schema
    .createTable(WATERMARK)
    // One row: the CHECK keeps it one.
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('last_rowid', 'integer', (c) => c.notNull())
    .execute()
  // Every row stored now is counted already (by the group commit of the migrations before).
  await sql`insert into ${sql.table(WATERMARK)} (id, last_rowid) select 1, coalesce(max(rowid), 0) from interactions`.execute(db)
  for (const name of REPLACED) await sql.raw(`drop trigger if exists ${name}`).execute(db)
  await createRowTrigger(db, {
    name: TRIGGER,
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: [
      ...DECREMENTS.map((statement) => `${statement} and ${counted}`),
      `update ${WATERMARK} set last_rowid = ${LARGEST_ROWID} where last_rowid > ${LARGEST_ROWID}`,
    ],
  })
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) !== 'sqlite') return
  const pending = await sql<{ n: number }>`select count(*) as n from interactions where rowid > (select last_rowid from ${sql.table(WATERMARK)})`.execute(db)
  // Before 0029 every stored row was counted: rows not folded yet would be missing from the rollups for good.
  if (Number(pending.rows[0]?.n ?? 0) > 0) throw new Error('interactions not yet counted in the rollups: start the server once to fold them, then migrate down')
  await sql.raw(`drop trigger if exists ${TRIGGER}`).execute(db)
  await db.schema.dropTable(WATERMARK).execute()
  const byTable = (table: string) => DECREMENTS.filter((statement) => statement.startsWith(`update ${table} `))
  const tables = (names: string[]) => names.flatMap(byTable)
  // The four triggers as 0002, 0006, 0008 and 0011 made them (the same statements, without `counted`).
  await createRowTrigger(db, { name: REPLACED[0]!, table: 'interactions', timing: 'after', event: 'delete', statements: tables(['interaction_daily_usage']) })
  await createRowTrigger(db, {
    name: REPLACED[1]!,
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: tables(['interaction_user_daily_usage']),
  })
  await createRowTrigger(db, {
    name: REPLACED[2]!,
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: DECREMENTS.slice(2, 12),
  })
  await createRowTrigger(db, { name: REPLACED[3]!, table: 'interactions', timing: 'after', event: 'delete', statements: DECREMENTS.slice(12) })
}
