// PostgreSQL's own rollups of `interactions` (migration 0030): the summaries' daily usage a row per month and title,
// the organisation's and each user's, a column per day of the month, so that a year of days is ~12 rows per title to
// send and parse instead of ~365 (see the migration for why PostgreSQL only). Counted by the batch's one statement
// (insights-rollups.ts), taken out by the migration's delete trigger; their empty months go with retention. Here in
// platform/db: their SQL is PostgreSQL's.
import { type Kysely, type RawBuilder, sql } from 'kysely'
import { compileOnce } from './compiled-query.ts'
import { kindOf } from './dialect.ts'
import { DAILY_USAGE_BY_MONTH, DAILY_USAGE_BY_MONTH_TABLES, DAY_COLUMNS, USER_DAILY_USAGE_BY_MONTH } from './migrations/0030_daily_usage_by_month.ts'
import type { Database } from './schema.ts'

/** One month of one title: `days[i]` is the calls of day i + 1 of the month (0 for days the month does not have). */
export interface UsageMonth {
  readonly month: string
  readonly api_title: string
  readonly days: readonly number[]
}

/**
 * The parts of the batch's statement (WITH items) that count its rows, read from its WITH item `inserted`: the rows'
 * calls per user, month, title and day of the month first (a few groups per batch), then those, a column per day,
 * added to each table's stored rows (aggregated in key order, as every other part). Grouping once first keeps
 * PostgreSQL's work per batch small: 31 filtered counts over every row of the batch, per table, cost ~0.3 ms more per
 * batch of 55.
 */
export function partsOfDailyUsageByMonth(): RawBuilder<unknown>[] {
  const days = DAY_COLUMNS.join(', ')
  // A column's count: the day's calls, 0 when the batch has none that day (`sum` of no rows is null).
  const counts = DAY_COLUMNS.map((column) => `coalesce(sum(n) filter (where day = ${Number(column.slice(1))}), 0)`).join(', ')
  return [
    sql.raw(`calls_by_day as (
    select user_id, substr(created_at, 1, 7) as month, api_title, cast(substr(created_at, 9, 2) as integer) as day, count(*)::integer as n
    from inserted group by 1, 2, 3, 4)`),
    ...DAILY_USAGE_BY_MONTH_TABLES.map(({ table, keys: keyList }, i) => {
      const keys = keyList.join(', ')
      const positions = keyList.map((_, position) => position + 1).join(', ')
      const added = DAY_COLUMNS.map((column) => `${column} = ${table}.${column} + excluded.${column}`).join(', ')
      return sql.raw(`by_month_${i} as (insert into ${table} (${keys}, ${days})
    select ${keys}, ${counts} from calls_by_day group by ${positions} order by ${positions}
    on conflict (${keys}) do update set ${added})`)
    }),
  ]
}

/**
 * The days as one text (`3,0,12,…`): measured on the organisation's year of ten titles, PostgreSQL and the driver
 * deliver the 130 rows in ~0.5 ms this way, ~0.9 ms as 31 columns or an array, and ~2.5 ms as the 3,650 rows of
 * interaction_daily_usage.
 */
const DAYS_TEXT = sql<string>`concat_ws(',', ${sql.raw(DAY_COLUMNS.join(', '))})`

interface StoredMonth {
  month: string
  api_title: string
  days: string
}

type Range = { readonly first: string; readonly last: string }
type Scope = { readonly user: string | null }

/** The rows of `first` … `last` (YYYY-MM) of the organisation, or of one user, in (month, title) order. */
function monthsQuery(db: Kysely<Database>, range: Range, user: string | null, titles: readonly string[], limit: number) {
  return db
    .selectFrom(user === null ? DAILY_USAGE_BY_MONTH : USER_DAILY_USAGE_BY_MONTH)
    .select(['month', 'api_title', DAYS_TEXT.as('days')])
    .$if(user !== null, (qb) => qb.where('user_id', '=', user!))
    .where('month', '>=', range.first)
    .where('month', '<=', range.last)
    .$if(titles.length > 0, (qb) => qb.where('api_title', 'in', titles))
    .orderBy('month')
    .orderBy('api_title')
    .limit(limit)
    .$castTo<StoredMonth>()
}

/** Without a title filter (the usual request), compiled once per scope. */
const compiled = {
  organisation: compileOnce<Database, 'first' | 'last' | 'limit', StoredMonth>(['first', 'last', 'limit'], (db, p) =>
    monthsQuery(db, p, null, [], p.limit as unknown as number),
  ),
  user: compileOnce<Database, 'first' | 'last' | 'user' | 'limit', StoredMonth>(['first', 'last', 'user', 'limit'], (db, p) =>
    monthsQuery(db, p, p.user, [], p.limit as unknown as number),
  ),
}

/**
 * The months `first` … `last` (YYYY-MM) of the organisation (`user` null) or of one user, of every title or of `titles`,
 * in (month, title) order (titles in code-point order: the columns are COLLATE "C"), at most `limit` rows. A user's
 * rows count every kind of call. PostgreSQL only.
 */
export async function readDailyUsageByMonth(db: Kysely<Database>, range: Range & Scope, titles: readonly string[], limit: number): Promise<UsageMonth[]> {
  if (kindOf(db) !== 'postgres') throw new Error('the daily usage by month is kept on PostgreSQL only')
  const { first, last, user } = range
  const rows =
    titles.length > 0
      ? await monthsQuery(db, range, user, titles, limit).execute()
      : user === null
        ? await compiled.organisation(db, { first, last, limit })
        : await compiled.user(db, { first, last, user, limit })
  return rows.map((row) => ({ month: row.month, api_title: row.api_title, days: row.days.split(',').map(Number) }))
}

/**
 * Retention: the rows of months wholly before `cutoffDay` whose days all hold 0, as retention removes the daily usage
 * rows it emptied. The cutoff's own month keeps its rows (its later days count). Nothing to do on SQLite.
 */
export async function removeEmptyMonthsOfDailyUsage(db: Kysely<Database>, cutoffDay: string): Promise<void> {
  if (kindOf(db) !== 'postgres') return
  const empty = sql<boolean>`${sql.raw(DAY_COLUMNS.map((column) => `${column} = 0`).join(' and '))}`
  const month = cutoffDay.slice(0, 7)
  await db.deleteFrom(DAILY_USAGE_BY_MONTH).where('month', '<', month).where(empty).execute()
  await db.deleteFrom(USER_DAILY_USAGE_BY_MONTH).where('month', '<', month).where(empty).execute()
}
