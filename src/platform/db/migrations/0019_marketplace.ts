// 0019: the organisation's marketplace catalog. Each entry is an agent version an admin published, kept as the bundle
// (zip) it was exported as, with the names a listing and its search show, so a list never opens a bundle.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('marketplace_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('workflows', 'text', (c) => c.notNull())
    .addColumn('applications', 'text', (c) => c.notNull())
    .addColumn('bundle', 'blob', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('published_by', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('marketplace_entries_version', ['agent_name', 'version'])
    .execute()
}
