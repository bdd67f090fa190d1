// 0012: the console's sessions across tabs (issue 26) and bounded anonymous OAuth registration (issue 25).
// `auth_sessions`: one row per console sign-in, holding the SHA-256 of its current refresh token (the cookie) and of the
// one before it (a tab that raced the rotation, or a replay); access tokens of the session name it, so signing out
// ends them too. `oauth_clients.registered_from`: the address (IPv6: its /64) a registration came from, to limit how
// many one address makes in an hour; cleared once the hour is over.
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('previous_token_hash', 'text')
    .addColumn('rotated_at', 'text')
    .addColumn('session_version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute()
  await db.schema.createIndex('auth_sessions_token').on('auth_sessions').column('token_hash').unique().execute()
  await db.schema.createIndex('auth_sessions_previous_token').on('auth_sessions').column('previous_token_hash').execute()
  // Ending every session of a user (password change), and housekeeping.
  await db.schema.createIndex('auth_sessions_user').on('auth_sessions').column('user_id').execute()
  await db.schema.createIndex('auth_sessions_expires').on('auth_sessions').column('expires_at').execute()

  await db.schema.alterTable('oauth_clients').addColumn('registered_from', 'text').execute()
  // Counting one address's registrations in the last hour.
  await db.schema.createIndex('oauth_clients_registered_from').on('oauth_clients').columns(['registered_from', 'created_at']).execute()
}
