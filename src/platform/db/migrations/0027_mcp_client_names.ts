// 0027: the client name a legacy (2025-era) MCP caller gave in its initialize, shared by every instance: its later
// stateless requests may reach another instance behind a load balancer and must still be recorded with that name. One
// row per caller, keyed by a SHA-256 of the user and their bearer token (the token itself is never stored), refreshed
// at each initialize; rows not refreshed for 30 days are deleted by a periodic job (`updated_at` is indexed for it).
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_client_names')
    .addColumn('caller_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('mcp_client_names_updated').on('mcp_client_names').column('updated_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mcp_client_names').execute()
}
