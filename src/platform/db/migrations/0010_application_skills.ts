// 0010: skills of MCP apps (issue 17): one JSON array per application, shaped like an agent document's skills part,
// so the skill operations work on either.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('application_skills')
    .addColumn('application_id', 'text', (c) => c.primaryKey())
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('application_skills').execute()
}
