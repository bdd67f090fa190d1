// 0009: the OAuth 2.1 authorization server for the MCP endpoints (issue 17): clients, authorization requests and codes,
// grants, tokens (hashes only).
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text')
    .addColumn('client_uri', 'text')
    .addColumn('logo_uri', 'text')
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('grant_types', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'text')
    .execute()
  // Counting registrations against the cap, and finding abandoned ones when it is reached.
  await db.schema.createIndex('oauth_clients_kind').on('oauth_clients').columns(['kind', 'created_at']).execute()

  await db.schema
    .createTable('oauth_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('approved', 'integer')
    .addColumn('user_id', 'text')
    .addColumn('code_hash', 'text')
    .addColumn('code_expires_at', 'text')
    .addColumn('code_used_at', 'text')
    .addColumn('grant_id', 'text')
    .execute()
  await db.schema.createIndex('oauth_requests_code').on('oauth_requests').column('code_hash').unique().execute()
  await db.schema.createIndex('oauth_requests_created').on('oauth_requests').column('created_at').execute()
  await db.schema.createIndex('oauth_requests_client').on('oauth_requests').column('client_id').execute()

  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()
  // A user's connected clients, newest first.
  await db.schema.createIndex('oauth_grants_user').on('oauth_grants').columns(['user_id', 'created_at']).execute()
  await db.schema.createIndex('oauth_grants_client').on('oauth_grants').column('client_id').execute()
  await db.schema.createIndex('oauth_grants_expires').on('oauth_grants').column('expires_at').execute()

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute()
  await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute()
  await db.schema.createIndex('oauth_tokens_expires').on('oauth_tokens').column('expires_at').execute()
}
