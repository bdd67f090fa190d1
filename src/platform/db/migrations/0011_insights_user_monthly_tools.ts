// 0011: one member's calls and failures per tool or operation and calendar month (issue 18). A member's year of top
// tools and errors is then read from ~12 months and the days at either end, not from ~1,800 daily rows: it made member
// insights as fast as the organisation's. Filled from the rows at migration; kept exact by the group commit (inserts,
// platform/db/insights-rollups.ts) and the delete trigger below (retention).
import { sql, type Kysely } from 'kysely'

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
  await sql`
    insert into interaction_user_monthly_tools (user_id, month, kind, api_title, action, n, errors)
    select user_id, substr(created_at, 1, 7), kind, api_title, action, count(*), sum(is_error) from interactions
    group by 1, 2, 3, 4, 5`.execute(db)
  await sql`
    create trigger interactions_user_monthly_tools_delete after delete on interactions begin
      update interaction_user_monthly_tools set n = n - 1, errors = errors - old.is_error
        where user_id = old.user_id and month = substr(old.created_at, 1, 7) and kind = old.kind and api_title = old.api_title
          and action = old.action;
    end`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists interactions_user_monthly_tools_delete`.execute(db)
  await db.schema.dropTable('interaction_user_monthly_tools').execute()
}
