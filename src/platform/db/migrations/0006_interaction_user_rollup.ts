// 0006: the per-user daily rollup of interactions (issue 14): member summaries read it instead of scanning their rows.
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, dropRowTrigger } from '../dialect.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per (user, day, api_title, kind): a member's year is at most days × titles rows however many calls they
  // made. `kind` is kept so insights (MCP calls next to API actions) can read the same rollup.
  await db.schema
    .createTable('interaction_user_daily_usage')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_user_daily_usage_pk', ['user_id', 'day', 'api_title', 'kind'])
    .modifyEnd(sql`without rowid`)
    .execute()
  // Filled from the rows already stored, in the migration's transaction, so it is exact from the first request.
  await sql`
    insert into interaction_user_daily_usage (user_id, day, api_title, kind, n)
    select user_id, substr(created_at, 1, 10), api_title, kind, count(*) from interactions
    group by user_id, substr(created_at, 1, 10), api_title, kind`.execute(db)
  // Kept exact the same way as the organisation's rollup (0002): triggers run inside every writer's statement.
  await createRowTrigger(db, {
    name: 'interactions_user_rollup_insert',
    table: 'interactions',
    timing: 'after',
    event: 'insert',
    statements: [
      `insert into interaction_user_daily_usage (user_id, day, api_title, kind, n)
        values (new.user_id, substr(new.created_at, 1, 10), new.api_title, new.kind, 1)
        on conflict (user_id, day, api_title, kind) do update set n = interaction_user_daily_usage.n + 1`,
    ],
  })
  await createRowTrigger(db, {
    name: 'interactions_user_rollup_delete',
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: [
      `update interaction_user_daily_usage set n = n - 1
        where user_id = old.user_id and day = substr(old.created_at, 1, 10) and api_title = old.api_title and kind = old.kind`,
    ],
  })
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropRowTrigger(db, 'interactions_user_rollup_insert', 'interactions')
  await dropRowTrigger(db, 'interactions_user_rollup_delete', 'interactions')
  await db.schema.dropTable('interaction_user_daily_usage').execute()
}
