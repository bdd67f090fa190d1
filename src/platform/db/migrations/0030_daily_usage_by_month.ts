// 0030: on PostgreSQL, the summaries' daily usage (0002's interaction_daily_usage, a row per day and title, and 0006's
// interaction_user_daily_usage, a row per user, day, title and kind) is also kept as a row per month and title (and
// user) with a column per day of the month. A year's daily summary is then ~12 rows per title instead of ~365: on
// PostgreSQL every row is work for the server and the driver (the 3,650 rows of the organisation's year of ten titles
// took ~2.5 ms to arrive, as long as the rest of the request), where SQLite reads rows inside the process for a
// fraction of that. So the tables exist on PostgreSQL only, as the watermark of 0029 exists on SQLite only. Counted by
// the statement that inserts a batch (platform/db/daily-usage-by-month.ts), taken out by a delete trigger (retention),
// filled here from the daily usage, and by migrate-to-postgres after its copy (the SQLite source has no such tables).
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, dropRowTrigger, kindOf } from '../dialect.ts'

export const DAILY_USAGE_BY_MONTH = 'interaction_daily_usage_by_month'
export const USER_DAILY_USAGE_BY_MONTH = 'interaction_user_daily_usage_by_month'
/** d01 … d31: the calls of that day of the month (0 for days the month does not have). */
export const DAY_COLUMNS: readonly string[] = Array.from({ length: 31 }, (_, i) => `d${String(i + 1).padStart(2, '0')}`)
const TRIGGER = 'interactions_daily_usage_by_month_delete'

/** Each table, its key (the day's table it is filled from has the same key with `day` for `month`, and a kind). */
export const DAILY_USAGE_BY_MONTH_TABLES = [
  { table: DAILY_USAGE_BY_MONTH, keys: ['month', 'api_title'], from: 'interaction_daily_usage' },
  { table: USER_DAILY_USAGE_BY_MONTH, keys: ['user_id', 'month', 'api_title'], from: 'interaction_user_daily_usage' },
] as const

/** `day` (an SQL expression of a YYYY-MM-DD text) falls on the column's day of the month. */
const onDay = (day: string, column: string) => `substr(${day}, 9, 2) = '${column.slice(1)}'`

export async function up(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) !== 'postgres') return
  for (const { table, keys } of DAILY_USAGE_BY_MONTH_TABLES) {
    let create = db.schema.createTable(table)
    // month: YYYY-MM, the first 7 characters of created_at.
    for (const key of keys) create = create.addColumn(key, 'text', (c) => c.notNull())
    for (const column of DAY_COLUMNS) create = create.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
    // The key's columns are named at run time: Kysely<unknown> knows no column names.
    await create.addPrimaryKeyConstraint(`${table}_pk`, [...keys] as never[]).execute()
  }
  await fillDailyUsageByMonth(db)
  // One deleted row takes one call off its day's column (the other columns are set to themselves).
  const decrements = DAY_COLUMNS.map((column) => `${column} = ${column} - case when ${onDay('old.created_at', column)} then 1 else 0 end`).join(', ')
  const where = 'month = substr(old.created_at, 1, 7) and api_title = old.api_title'
  await createRowTrigger(db, {
    name: TRIGGER,
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: [
      `update ${DAILY_USAGE_BY_MONTH} set ${decrements} where ${where}`,
      `update ${USER_DAILY_USAGE_BY_MONTH} set ${decrements} where user_id = old.user_id and ${where}`,
    ],
  })
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) !== 'postgres') return
  await dropRowTrigger(db, TRIGGER, 'interactions')
  for (const { table } of DAILY_USAGE_BY_MONTH_TABLES) await db.schema.dropTable(table).execute()
}

/**
 * Fills the (empty) tables from the day's tables, which hold the same counts a row per day (a user's also per kind):
 * at this migration, and after migrate-to-postgres has copied a SQLite instance's rollups.
 */
export async function fillDailyUsageByMonth(db: Kysely<unknown>): Promise<void> {
  const sums = DAY_COLUMNS.map((column) => `sum(case when ${onDay('day', column)} then n else 0 end)`).join(', ')
  for (const { table, keys, from } of DAILY_USAGE_BY_MONTH_TABLES) {
    const selected = keys.map((key) => (key === 'month' ? 'substr(day, 1, 7)' : key)).join(', ')
    const positions = keys.map((_, i) => i + 1).join(', ')
    await sql
      .raw(`insert into ${table} (${keys.join(', ')}, ${DAY_COLUMNS.join(', ')}) select ${selected}, ${sums} from ${from} group by ${positions}`)
      .execute(db)
  }
}
