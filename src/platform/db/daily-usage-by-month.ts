// PostgreSQL's own rollup of `interactions` (migration 0030): the organisation's daily usage a row per month and title,
// a column per day of the month, so that a year of days is ~12 rows per title to send and parse instead of ~365 (see
// the migration for why PostgreSQL only). Counted by the batch's one statement (insights-rollups.ts), taken out by the
// migration's delete trigger; its empty months go with retention. Here in platform/db: its SQL is PostgreSQL's.
import { type Kysely, type RawBuilder, sql } from 'kysely'
import { compileOnce } from './compiled-query.ts'
import { kindOf } from './dialect.ts'
import { DAILY_USAGE_BY_MONTH, DAY_COLUMNS } from './migrations/0030_daily_usage_by_month.ts'
import type { Database } from './schema.ts'

/** One month of one title: `days[i]` is the calls of day i + 1 of the month (0 for days the month does not have). */
export interface UsageMonth {
  readonly month: string
  readonly api_title: string
  readonly days: readonly number[]
}

/**
 * The part of the batch's statement that counts its rows (the WITH name `inserted`): their calls per month and title,
 * a column per day, added to the stored row. Aggregated rows in key order, as every other part.
 */
export function upsertDailyUsageByMonth(): RawBuilder<unknown> {
  const counts = DAY_COLUMNS.map((column) => `count(*) filter (where substr(created_at, 9, 2) = '${column.slice(1)}')`)
  const added = DAY_COLUMNS.map((column) => `${column} = ${DAILY_USAGE_BY_MONTH}.${column} + excluded.${column}`)
  return sql.raw(`insert into ${DAILY_USAGE_BY_MONTH} (month, api_title, ${DAY_COLUMNS.join(', ')})
    select substr(created_at, 1, 7), api_title, ${counts.join(', ')} from inserted group by 1, 2 order by 1, 2
    on conflict (month, api_title) do update set ${added.join(', ')}`)
}

/**
 * The days as one text (`3,0,12,…`): measured on a year of ten titles, PostgreSQL and the driver deliver the 130 rows in
 * ~0.5 ms this way, ~0.9 ms as 31 columns or an array, and ~2.5 ms as the 3,650 rows of interaction_daily_usage.
 */
const DAYS_TEXT = sql<string>`concat_ws(',', ${sql.raw(DAY_COLUMNS.join(', '))})`

interface StoredMonth {
  month: string
  api_title: string
  days: string
}

const monthsOfAllTitles = compileOnce<Database, 'first' | 'last' | 'limit', StoredMonth>(['first', 'last', 'limit'], (db, p) =>
  db
    .selectFrom(DAILY_USAGE_BY_MONTH)
    .select(['month', 'api_title', DAYS_TEXT.as('days')])
    .where('month', '>=', p.first)
    .where('month', '<=', p.last)
    .orderBy('month')
    .orderBy('api_title')
    .limit(p.limit as unknown as number),
)

/**
 * The months `first` … `last` (YYYY-MM) of every title, or of `titles` when given, in (month, title) order (titles in
 * code-point order: the columns are COLLATE "C"), at most `limit` rows. PostgreSQL only.
 */
export async function readDailyUsageByMonth(
  db: Kysely<Database>,
  range: { readonly first: string; readonly last: string },
  titles: readonly string[],
  limit: number,
): Promise<UsageMonth[]> {
  if (kindOf(db) !== 'postgres') throw new Error('the daily usage by month is kept on PostgreSQL only')
  const rows =
    titles.length === 0
      ? await monthsOfAllTitles(db, { ...range, limit })
      : await db
          .selectFrom(DAILY_USAGE_BY_MONTH)
          .select(['month', 'api_title', DAYS_TEXT.as('days')])
          .where('month', '>=', range.first)
          .where('month', '<=', range.last)
          .where('api_title', 'in', titles)
          .orderBy('month')
          .orderBy('api_title')
          .limit(limit)
          .execute()
  return rows.map((row) => ({ month: row.month, api_title: row.api_title, days: row.days.split(',').map(Number) }))
}

/**
 * Retention: the rows of months wholly before `cutoffDay` whose days all hold 0, as retention removes the daily usage
 * rows it emptied. The cutoff's own month keeps its row (its later days count). Nothing to do on SQLite.
 */
export async function removeEmptyMonthsOfDailyUsage(db: Kysely<Database>, cutoffDay: string): Promise<void> {
  if (kindOf(db) !== 'postgres') return
  await db
    .deleteFrom(DAILY_USAGE_BY_MONTH)
    .where('month', '<', cutoffDay.slice(0, 7))
    .where(sql<boolean>`${sql.raw(DAY_COLUMNS.map((column) => `${column} = 0`).join(' and '))}`)
    .execute()
}
