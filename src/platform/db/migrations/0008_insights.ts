// 0008: rollups for insights (issue 18): calls and errors per day and kind, per tool by day and month, per user; active
// users per day; duration histograms by day and month; indexes for workflow runs by start time. Filled from the rows
// at migration, then kept exact by the group commit (inserts) and a delete trigger (retention).
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, dropRowTrigger } from '../dialect.ts'

/**
 * Duration buckets grow by 2 % (bucket b holds durations up to 1.02^b ms): nearest-rank percentiles read from them are
 * within 2 % of the exact value, whatever the number of interactions, and a day has at most ~900 buckets per title.
 */
export const DURATION_BUCKET_SQL = 'case when {ms} < 1 then 0 else cast(ceil(ln({ms}) / ln(1.02)) as integer) end'
const bucketOf = (row: 'new' | 'old') => DURATION_BUCKET_SQL.replaceAll('{ms}', `(${row}.duration_seconds * 1000.0)`)
const day = (row: 'new' | 'old') => `substr(${row}.created_at, 1, 10)`
const month = (row: 'new' | 'old') => `substr(${row}.created_at, 1, 7)`

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('interaction_daily_tools')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_daily_tools_pk', ['day', 'kind', 'api_title', 'action'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_user_daily_tools')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_user_daily_tools_pk', ['user_id', 'day', 'kind', 'api_title', 'action'])
    .modifyEnd(sql`without rowid`)
    .execute()
  // For the organisation over long ranges: calls per day and kind (the per-day figures and the error rate), calls per
  // tool per calendar month (a year's top tools read from 12 months and the days at either end), and who was active
  // on each day.
  await db.schema
    .createTable('interaction_daily_kinds')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_daily_kinds_pk', ['day', 'kind'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_monthly_tools')
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_monthly_tools_pk', ['month', 'kind', 'api_title', 'action'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_daily_active')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_daily_active_pk', ['day', 'user_id'])
    .modifyEnd(sql`without rowid`)
    .execute()
  // Durations: the organisation's histogram per day (at most ~900 rows a day however busy), per MCP server or
  // application title and day (for one agent), and per user and day.
  await db.schema
    .createTable('interaction_daily_durations')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_daily_durations_pk', ['day', 'bucket'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_title_daily_durations')
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_title_daily_durations_pk', ['api_title', 'day', 'bucket'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_user_daily_durations')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_user_daily_durations_pk', ['user_id', 'day', 'bucket'])
    .modifyEnd(sql`without rowid`)
    .execute()
  // The same histograms per calendar month, so a year is read as 12 months (and the days at either end) instead of 365
  // days of up to ~900 rows each.
  await db.schema
    .createTable('interaction_monthly_durations')
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_monthly_durations_pk', ['month', 'bucket'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_user_monthly_durations')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_user_monthly_durations_pk', ['user_id', 'month', 'bucket'])
    .modifyEnd(sql`without rowid`)
    .execute()
  // Active users per day for the organisation: the per-user rollup read by day (for one agent: by day and MCP server).
  await db.schema.createIndex('interaction_user_daily_usage_day').on('interaction_user_daily_usage').columns(['day', 'user_id']).execute()
  await db.schema.createIndex('interaction_user_daily_tools_day').on('interaction_user_daily_tools').columns(['day', 'api_title', 'user_id']).execute()
  // Workflow runs by start time, for the organisation and for one starter.
  await db.schema.createIndex('workflow_runs_started').on('workflow_runs').columns(['started_at']).execute()
  await db.schema.createIndex('workflow_runs_starter_started').on('workflow_runs').columns(['starter_id', 'started_at']).execute()

  // Filled from the rows already stored, in the migration's transaction.
  await sql`
    insert into interaction_daily_tools (day, kind, api_title, action, n, errors)
    select substr(created_at, 1, 10), kind, api_title, action, count(*), sum(is_error) from interactions
    group by 1, 2, 3, 4`.execute(db)
  await sql`
    insert into interaction_user_daily_tools (user_id, day, kind, api_title, action, n, errors)
    select user_id, substr(created_at, 1, 10), kind, api_title, action, count(*), sum(is_error) from interactions
    group by 1, 2, 3, 4, 5`.execute(db)
  const backfillBucket = sql.raw(DURATION_BUCKET_SQL.replaceAll('{ms}', '(duration_seconds * 1000.0)'))
  await sql`
    insert into interaction_daily_durations (day, bucket, n)
    select substr(created_at, 1, 10), ${backfillBucket}, count(*) from interactions
    where duration_seconds is not null group by 1, 2`.execute(db)
  await sql`
    insert into interaction_title_daily_durations (api_title, day, bucket, n)
    select api_title, substr(created_at, 1, 10), ${backfillBucket}, count(*) from interactions
    where duration_seconds is not null group by 1, 2, 3`.execute(db)
  await sql`
    insert into interaction_user_daily_durations (user_id, day, bucket, n)
    select user_id, substr(created_at, 1, 10), ${backfillBucket}, count(*) from interactions
    where duration_seconds is not null group by 1, 2, 3`.execute(db)

  await sql`
    insert into interaction_daily_kinds (day, kind, n, errors)
    select substr(created_at, 1, 10), kind, count(*), sum(is_error) from interactions group by 1, 2`.execute(db)
  await sql`
    insert into interaction_monthly_tools (month, kind, api_title, action, n, errors)
    select substr(created_at, 1, 7), kind, api_title, action, count(*), sum(is_error) from interactions group by 1, 2, 3, 4`.execute(db)
  await sql`
    insert into interaction_daily_active (day, user_id, n)
    select substr(created_at, 1, 10), user_id, count(*) from interactions group by 1, 2`.execute(db)
  await sql`
    insert into interaction_monthly_durations (month, bucket, n)
    select substr(created_at, 1, 7), ${backfillBucket}, count(*) from interactions
    where duration_seconds is not null group by 1, 2`.execute(db)
  await sql`
    insert into interaction_user_monthly_durations (user_id, month, bucket, n)
    select user_id, substr(created_at, 1, 7), ${backfillBucket}, count(*) from interactions
    where duration_seconds is not null group by 1, 2, 3`.execute(db)

  // Inserts are counted in by the group commit, one aggregated upsert per rollup and batch (platform/db/
  // insights-rollups.ts); per-row triggers cost ~110 µs per recorded interaction. Deletes (retention, a few batches a
  // day) are taken out here, row by row, with the same bucket SQL.
  await createRowTrigger(db, {
    name: 'interactions_insights_delete',
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: [
      `update interaction_daily_kinds set n = n - 1, errors = errors - old.is_error where day = ${day('old')} and kind = old.kind`,
      `update interaction_monthly_tools set n = n - 1, errors = errors - old.is_error
        where month = ${month('old')} and kind = old.kind and api_title = old.api_title and action = old.action`,
      `update interaction_daily_active set n = n - 1 where day = ${day('old')} and user_id = old.user_id`,
      `update interaction_daily_tools set n = n - 1, errors = errors - old.is_error
        where day = ${day('old')} and kind = old.kind and api_title = old.api_title and action = old.action`,
      `update interaction_user_daily_tools set n = n - 1, errors = errors - old.is_error
        where user_id = old.user_id and day = ${day('old')} and kind = old.kind and api_title = old.api_title and action = old.action`,
      `update interaction_daily_durations set n = n - 1
        where old.duration_seconds is not null and day = ${day('old')} and bucket = ${bucketOf('old')}`,
      `update interaction_title_daily_durations set n = n - 1
        where old.duration_seconds is not null and api_title = old.api_title and day = ${day('old')} and bucket = ${bucketOf('old')}`,
      `update interaction_user_daily_durations set n = n - 1
        where old.duration_seconds is not null and user_id = old.user_id and day = ${day('old')} and bucket = ${bucketOf('old')}`,
      `update interaction_monthly_durations set n = n - 1
        where old.duration_seconds is not null and month = ${month('old')} and bucket = ${bucketOf('old')}`,
      `update interaction_user_monthly_durations set n = n - 1
        where old.duration_seconds is not null and user_id = old.user_id and month = ${month('old')} and bucket = ${bucketOf('old')}`,
    ],
  })
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropRowTrigger(db, 'interactions_insights_delete', 'interactions')
  for (const table of [
    'interaction_daily_tools',
    'interaction_user_daily_tools',
    'interaction_daily_durations',
    'interaction_title_daily_durations',
    'interaction_user_daily_durations',
  ])
    await db.schema.dropTable(table).execute()
}
