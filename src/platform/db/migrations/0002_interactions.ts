// 0002: user settings, context types and the interaction store with its daily rollup (issue 3).
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, kindOf } from '../dialect.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = kindOf(db) === 'sqlite'
  await db.schema
    .createTable('user_settings')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id'))
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('context_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // NOCASE on the column: "Invoice" and "invoice" are one name, and the list's ORDER BY name uses the same index.
    // PostgreSQL has no NOCASE: its unique index is on lower(name) (ASCII folding under COLLATE "C", as NOCASE folds).
    .addColumn('name', 'text', (c) => (sqlite ? c.notNull().modifyEnd(sql`collate nocase`) : c.notNull()))
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('when_to_use', 'text', (c) => c.notNull())
    .addColumn('how_to_generate', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  if (sqlite) await db.schema.createIndex('context_types_name').on('context_types').column('name').unique().execute()
  else await db.schema.createIndex('context_types_name').on('context_types').expression(sql`lower(name)`).unique().execute()

  await db.schema
    .createTable('interactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('mcp_tool', 'api_action')`))
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('is_error', 'integer', (c) => c.notNull().check(sql`is_error in (0, 1)`))
    .addColumn('duration_seconds', 'real')
    .addColumn('conversation_id', 'text')
    .addColumn('client_source', 'text')
    .addColumn('user_input', 'text')
    .addColumn('arguments', 'text')
    .addColumn('result', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  // Member summaries (and an admin's user_id filter) and the per-user retention batches: covering, so no table lookups.
  await db.schema.createIndex('interactions_user_time').on('interactions').columns(['user_id', 'created_at', 'api_title']).execute()

  // Small (days × titles), so WITHOUT ROWID keyed by the range the summaries scan.
  await db.schema
    .createTable('interaction_daily_usage')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('api_title', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('interaction_daily_usage_pk', ['day', 'api_title'])
    .modifyEnd(sql`without rowid`)
    .execute()
  // Triggers, not application code, keep the rollup exact: they run inside the writing statement's transaction for every
  // writer (MCP records, API actions, retention), and cost one upsert in SQLite instead of a second round trip per insert.
  if (sqlite) {
    await sql`
    create trigger interactions_rollup_insert after insert on interactions begin
      insert into interaction_daily_usage (day, api_title, n) values (substr(new.created_at, 1, 10), new.api_title, 1)
        on conflict (day, api_title) do update set n = n + 1;
    end`.execute(db)
    await sql`
    create trigger interactions_rollup_delete after delete on interactions begin
      update interaction_daily_usage set n = n - 1 where day = substr(old.created_at, 1, 10) and api_title = old.api_title;
    end`.execute(db)
    // Rows are immutable; an update would silently desynchronise the rollup, so it is refused outright.
    await sql`
    create trigger interactions_immutable before update on interactions begin
      select raise(abort, 'interactions are immutable');
    end`.execute(db)
    return
  }
  await createRowTrigger(db, {
    name: 'interactions_rollup_insert',
    table: 'interactions',
    timing: 'after',
    event: 'insert',
    statements: [
      `insert into interaction_daily_usage (day, api_title, n) values (substr(new.created_at, 1, 10), new.api_title, 1)
        on conflict (day, api_title) do update set n = interaction_daily_usage.n + 1`,
    ],
  })
  await createRowTrigger(db, {
    name: 'interactions_rollup_delete',
    table: 'interactions',
    timing: 'after',
    event: 'delete',
    statements: ['update interaction_daily_usage set n = n - 1 where day = substr(old.created_at, 1, 10) and api_title = old.api_title'],
  })
  await createRowTrigger(db, {
    name: 'interactions_immutable',
    table: 'interactions',
    timing: 'before',
    event: 'update',
    statements: ["raise exception 'interactions are immutable'"],
  })
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['interaction_daily_usage', 'interactions', 'context_types', 'user_settings']) await db.schema.dropTable(table).execute()
}
