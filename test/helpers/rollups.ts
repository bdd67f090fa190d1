// Every rollup of the interactions (the summary's and the insights'), and the same counts computed from the rows.
import { DURATION_BUCKET_SQL } from '../../src/platform/db/migrations/0008_insights.ts'
import { DAY_COLUMNS } from '../../src/platform/db/migrations/0030_daily_usage_by_month.ts'
import { foldRollups } from '../../src/platform/db/rollup-folder.ts'
import type { TestServer } from './server.ts'

export const BUCKET = DURATION_BUCKET_SQL.replaceAll('{ms}', '(duration_seconds * 1000.0)')
const DAY_OF = 'substr(created_at, 1, 10)'
const MONTH_OF = 'substr(created_at, 1, 7)'

/** Each rollup: its key columns, the same keys computed from an interaction row, and whether it counts durations. */
export const ROLLUPS: { table: string; keys: string[]; fromRow: string[]; errors: boolean; durations?: true }[] = [
  { table: 'interaction_daily_kinds', keys: ['day', 'kind'], fromRow: [DAY_OF, 'kind'], errors: true },
  { table: 'interaction_daily_tools', keys: ['day', 'kind', 'api_title', 'action'], fromRow: [DAY_OF, 'kind', 'api_title', 'action'], errors: true },
  { table: 'interaction_monthly_tools', keys: ['month', 'kind', 'api_title', 'action'], fromRow: [MONTH_OF, 'kind', 'api_title', 'action'], errors: true },
  {
    table: 'interaction_user_daily_tools',
    keys: ['user_id', 'day', 'kind', 'api_title', 'action'],
    fromRow: ['user_id', DAY_OF, 'kind', 'api_title', 'action'],
    errors: true,
  },
  {
    table: 'interaction_user_monthly_tools',
    keys: ['user_id', 'month', 'kind', 'api_title', 'action'],
    fromRow: ['user_id', MONTH_OF, 'kind', 'api_title', 'action'],
    errors: true,
  },
  { table: 'interaction_user_tools', keys: ['user_id', 'kind', 'api_title', 'action'], fromRow: ['user_id', 'kind', 'api_title', 'action'], errors: true },
  { table: 'interaction_user_durations', keys: ['user_id', 'bucket'], fromRow: ['user_id', BUCKET], errors: false, durations: true },
  { table: 'interaction_daily_active', keys: ['day', 'user_id'], fromRow: [DAY_OF, 'user_id'], errors: false },
  // The summary's two (counted by the group commit since migration 0028, no longer by insert triggers).
  { table: 'interaction_daily_usage', keys: ['day', 'api_title'], fromRow: [DAY_OF, 'api_title'], errors: false },
  { table: 'interaction_user_daily_usage', keys: ['user_id', 'day', 'api_title', 'kind'], fromRow: ['user_id', DAY_OF, 'api_title', 'kind'], errors: false },
  { table: 'interaction_daily_durations', keys: ['day', 'bucket'], fromRow: [DAY_OF, BUCKET], errors: false, durations: true },
  { table: 'interaction_monthly_durations', keys: ['month', 'bucket'], fromRow: [MONTH_OF, BUCKET], errors: false, durations: true },
  { table: 'interaction_title_daily_durations', keys: ['api_title', 'day', 'bucket'], fromRow: ['api_title', DAY_OF, BUCKET], errors: false, durations: true },
  { table: 'interaction_user_daily_durations', keys: ['user_id', 'day', 'bucket'], fromRow: ['user_id', DAY_OF, BUCKET], errors: false, durations: true },
  { table: 'interaction_user_monthly_durations', keys: ['user_id', 'month', 'bucket'], fromRow: ['user_id', MONTH_OF, BUCKET], errors: false, durations: true },
]

/**
 * The rollup's non-empty rows and the same counts from the interaction rows, both in key order. Read as every reader
 * reads a rollup: after the rows recorded so far are counted in (SQLite counts them a little after the commit).
 */
export async function compareRollup(t: TestServer, rollup: (typeof ROLLUPS)[number]): Promise<{ stored: unknown[]; fromRows: unknown[] }> {
  await foldRollups(t.server.database.db)
  const counts = rollup.errors ? 'n, errors' : 'n'
  const keys = rollup.keys.join(', ')
  const values = (rows: Record<string, unknown>[]) => rows.map((row) => Object.values(row))
  const stored = values(await t.sql.all(`SELECT ${keys}, ${counts} FROM ${rollup.table} WHERE n <> 0 ORDER BY ${keys}`))
  const positions = rollup.keys.map((_, i) => i + 1).join(', ')
  const fromRows = values(
    await t.sql.all(
      `SELECT ${rollup.fromRow.map((expr, i) => `${expr} AS k${i}`).join(', ')}, count(*)${rollup.errors ? ', sum(is_error)' : ''} FROM interactions
       ${rollup.durations ? 'WHERE duration_seconds IS NOT NULL' : ''} GROUP BY ${positions} ORDER BY ${positions}`,
    ),
  )
  return { stored, fromRows }
}

/**
 * PostgreSQL's daily usage by month (migration 0030), the organisation's or every user's, as (user, day, title, calls)
 * for every non-zero day, and the same from the interaction rows, both in (user, day, title) order (user '' for the
 * organisation).
 */
export async function compareDailyUsageByMonth(t: TestServer, of: 'organisation' | 'users'): Promise<{ stored: unknown[]; fromRows: unknown[] }> {
  const days = DAY_COLUMNS
  const user = of === 'users' ? 'user_id' : "''"
  const table = of === 'users' ? 'interaction_user_daily_usage_by_month' : 'interaction_daily_usage_by_month'
  const months = (await t.sql.all(`SELECT ${user} AS user_id, month, api_title, ${days.join(', ')} FROM ${table}`)) as Record<string, string | number>[]
  const stored: [string, string, string, number][] = []
  for (const row of months)
    days.forEach((column, i) => {
      if (Number(row[column]) !== 0)
        stored.push([String(row.user_id), `${row.month}-${String(i + 1).padStart(2, '0')}`, String(row.api_title), Number(row[column])])
    })
  const byKey = (a: [string, string, string, number], b: [string, string, string, number]) => {
    for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as string) < (b[i] as string) ? -1 : 1
    return 0
  }
  stored.sort(byKey)
  const fromRows = (
    (await t.sql.all(`SELECT ${user} AS user_id, ${DAY_OF} AS day, api_title, count(*) AS n FROM interactions GROUP BY 1, 2, 3`)) as {
      user_id: string
      day: string
      api_title: string
      n: number
    }[]
  ).map((row): [string, string, string, number] => [row.user_id, row.day, row.api_title, Number(row.n)])
  fromRows.sort(byKey)
  return { stored, fromRows }
}
