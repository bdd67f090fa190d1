// 0030: on PostgreSQL, the organisation's daily usage (0002's interaction_daily_usage, a row per day and title) is also
// kept as a row per month and title with a column per day of the month. A year's daily summary for the organisation is
// then ~12 rows per title instead of ~365: on PostgreSQL every row is a round trip's worth of work for the server and
// the driver (3,650 rows of a year of ten titles took ~3 ms to arrive, as long as the rest of the request), where SQLite
// reads rows inside the process for a fraction of that. So the table exists on PostgreSQL only, as the watermark of
// 0029 exists on SQLite only. Counted by the same statement that inserts a batch (platform/db/insights-rollups.ts),
// taken out by a delete trigger (retention), filled here from the daily usage, and by migrate-to-postgres after its
// copy (the SQLite source has no such table).
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, dropRowTrigger, kindOf } from '../dialect.ts'

export const DAILY_USAGE_BY_MONTH = 'interaction_daily_usage_by_month'
/** d01 … d31: the calls of that day of the month (0 for days the month does not have). */
export const DAY_COLUMNS: readonly string[] = Array.from({ length: 31 }, (_, i) => `d${String(i + 1).padStart(2, '0')}`)
const TRIGGER = 'interactions_daily_usage_by_month_delete'

/** `day` (an SQL expression of a YYYY-MM-DD text) falls on the column's day of the month. */
const onDay = (day: string, column: string) => `substr(${day}, 9, 2) = '${column.slice(1)}'`

export async function up(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) !== 'postgres') return
  let table = db.schema
    .createTable(DAILY_USAGE_BY_MONTH)
    // YYYY-MM, the first 7 characters of created_at.
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
  for (const column of DAY_COLUMNS) table = table.addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
  await table.addPrimaryKeyConstraint(`${DAILY_USAGE_BY_MONTH}_pk`, ['month', 'api_title']).execute()
  await fillDailyUsageByMonth(db)
  // One deleted row takes one call off its day's column (the other columns are set to themselves).
  const decrements = DAY_COLUMNS.map((column) => `${column} = ${column} - case when ${onDay('old.created_at', column)} then 1 else 0 end`)
  await createRowTrigger(db, {
    name: TRIGGER,
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: [`update ${DAILY_USAGE_BY_MONTH} set ${decrements.join(', ')} where month = substr(old.created_at, 1, 7) and api_title = old.api_title`],
  })
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) !== 'postgres') return
  await dropRowTrigger(db, TRIGGER, 'interactions')
  await db.schema.dropTable(DAILY_USAGE_BY_MONTH).execute()
}

/**
 * Fills the (empty) table from interaction_daily_usage, which holds the same counts a row per day: at this migration,
 * and after migrate-to-postgres has copied a SQLite instance's rollups.
 */
export async function fillDailyUsageByMonth(db: Kysely<unknown>): Promise<void> {
  const sums = DAY_COLUMNS.map((column) => `sum(case when ${onDay('day', column)} then n else 0 end)`)
  await sql
    .raw(
      `insert into ${DAILY_USAGE_BY_MONTH} (month, api_title, ${DAY_COLUMNS.join(', ')})
      select substr(day, 1, 7), api_title, ${sums.join(', ')} from interaction_daily_usage group by 1, 2`,
    )
    .execute(db)
}
