// 0011: member insights as fast as the organisation's (issue 18). One user's calls and failures per tool or operation
// by calendar month, and over all time with their duration histogram: a member's year of top tools and errors is read
// from ~12 months and the days at either end, not from ~1,800 daily rows, and a range holding all of a member's stored
// interactions (the last year, under a year's retention) from their totals. Filled from the rows at migration; kept
// exact by the group commit (inserts, platform/db/insights-rollups.ts) and the delete trigger below (retention).
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, dropRowTrigger } from '../dialect.ts'
import { DURATION_BUCKET_SQL } from './0008_insights.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('interaction_user_monthly_tools')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_user_monthly_tools_pk', ['user_id', 'month', 'kind', 'api_title', 'action'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_user_tools')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_user_tools_pk', ['user_id', 'kind', 'api_title', 'action'])
    .modifyEnd(sql`without rowid`)
    .execute()
  await db.schema
    .createTable('interaction_user_durations')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_user_durations_pk', ['user_id', 'bucket'])
    .modifyEnd(sql`without rowid`)
    .execute()
  const bucket = sql.raw(DURATION_BUCKET_SQL.replaceAll('{ms}', '(duration_seconds * 1000.0)'))
  const oldBucket = DURATION_BUCKET_SQL.replaceAll('{ms}', '(old.duration_seconds * 1000.0)')
  await sql`
    insert into interaction_user_tools (user_id, kind, api_title, action, n, errors)
    select user_id, kind, api_title, action, count(*), sum(is_error) from interactions group by 1, 2, 3, 4`.execute(db)
  await sql`
    insert into interaction_user_durations (user_id, bucket, n)
    select user_id, ${bucket}, count(*) from interactions where duration_seconds is not null group by 1, 2`.execute(db)
  await sql`
    insert into interaction_user_monthly_tools (user_id, month, kind, api_title, action, n, errors)
    select user_id, substr(created_at, 1, 7), kind, api_title, action, count(*), sum(is_error) from interactions
    group by 1, 2, 3, 4, 5`.execute(db)
  await createRowTrigger(db, {
    name: 'interactions_user_monthly_tools_delete',
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: [
      `update interaction_user_monthly_tools set n = n - 1, errors = errors - old.is_error
        where user_id = old.user_id and month = substr(old.created_at, 1, 7) and kind = old.kind and api_title = old.api_title
          and action = old.action`,
      `update interaction_user_tools set n = n - 1, errors = errors - old.is_error
        where user_id = old.user_id and kind = old.kind and api_title = old.api_title and action = old.action`,
      `update interaction_user_durations set n = n - 1
        where old.duration_seconds is not null and user_id = old.user_id and bucket = ${oldBucket}`,
    ],
  })
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropRowTrigger(db, 'interactions_user_monthly_tools_delete', 'interactions')
  for (const table of ['interaction_user_monthly_tools', 'interaction_user_tools', 'interaction_user_durations']) await db.schema.dropTable(table).execute()
}
