// 0023 (issue 30): external MCP servers an admin registers, each user's connection to them (the token itself is a sealed
// secret of the vault's `mcp_server_token` namespace), and the OAuth authorizations waiting for their callback.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mcp_servers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    .addColumn('oauth_client_id', 'text')
    .addColumn('oauth_client_source', 'text')
    .addColumn('oauth_client_issuer', 'text')
    .addColumn('oauth_client_redirect_uri', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('mcp_server_connections')
    .addColumn('server_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('connected_at', 'text', (c) => c.notNull())
    .addColumn('problem', 'text')
    .addColumn('problem_at', 'text')
    .addColumn('revocation_endpoint', 'text')
    .addPrimaryKeyConstraint('mcp_server_connections_pk', ['server_id', 'user_id'])
    .execute()
  // One person's connections (every chat turn and gateway request reads them).
  await db.schema.createIndex('mcp_server_connections_user').on('mcp_server_connections').column('user_id').execute()

  await db.schema
    .createTable('mcp_server_authorizations')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('server_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('scope', 'text')
    .addColumn('authorization_server', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('mcp_server_authorizations_expires').on('mcp_server_authorizations').column('expires_at').execute()
  await db.schema.createIndex('mcp_server_authorizations_server').on('mcp_server_authorizations').column('server_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mcp_server_authorizations').execute()
  await db.schema.dropTable('mcp_server_connections').execute()
  await db.schema.dropTable('mcp_servers').execute()
}
