// 0003: agents, their drafts, immutable numbered versions and members (issue 5).
import { sql, type Kysely } from 'kysely'
import { createRowTrigger, kindOf } from '../dialect.ts'

export async function up(db: Kysely<unknown>): Promise<void> {
  // One small row per agent: what a list needs, mirrored from the draft and the live version so a
  // list of 10,000 agents never reads a document.
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('draft_hash', 'text', (c) => c.notNull())
    .addColumn('live_version', 'integer')
    .addColumn('live_description', 'text')
    .addColumn('live_hash', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  // The draft document lives apart from `agents` so list scans stay on small rows.
  await db.schema
    .createTable('agent_drafts')
    .addColumn('agent_id', 'text', (c) => c.primaryKey().references('agents.id').onDelete('cascade'))
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull().references('users.id'))
    .execute()

  await db.schema
    .createTable('agent_versions')
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull().check(sql`version >= 1`))
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
    .addPrimaryKeyConstraint('agent_versions_pk', ['agent_id', 'version'])
    .execute()
  // A published version is a snapshot other things point at (live, workflow runs): it must never change.
  if (kindOf(db) === 'sqlite') {
    await sql`CREATE TRIGGER agent_versions_immutable BEFORE UPDATE ON agent_versions
    BEGIN SELECT RAISE(ABORT, 'agent versions are immutable'); END`.execute(db)
  } else {
    await createRowTrigger(db, {
      name: 'agent_versions_immutable',
      table: 'agent_versions',
      timing: 'before',
      event: 'update',
      statements: ["raise exception 'agent versions are immutable'"],
    })
  }

  await db.schema
    .createTable('agent_members')
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'viewer')`))
    .addColumn('added_at', 'text', (c) => c.notNull())
    .addColumn('added_by', 'text', (c) => c.notNull().references('users.id'))
    .addPrimaryKeyConstraint('agent_members_pk', ['agent_id', 'user_id'])
    .execute()
  // A member's agent list: the join starts here and reads agents by primary key, in agent-id (creation) order.
  await db.schema.createIndex('agent_members_user').on('agent_members').columns(['user_id', 'agent_id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['agent_members', 'agent_versions', 'agent_drafts', 'agents']) await db.schema.dropTable(table).execute()
}
