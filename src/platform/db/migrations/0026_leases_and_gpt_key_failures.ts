// 0026: the last state several instances on one database must share. `leases` holds who has a piece of work that must
// run once at a time across every instance (a repository's git sync, a chat thread's turn): a row per key, taken by an
// atomic upsert that succeeds only when the row is absent or expired, renewed while the work runs, deleted when it ends;
// an instance that dies leaves a row that expires. `gpt_key_failures` is the GPT key throttle's memory on PostgreSQL
// (as `login_throttle` is the sign-in throttle's). A `gpts` row in `cluster_revisions` lets every instance drop the GPT
// keys it verified when a GPT is created, rotated or uninstalled on another. On PostgreSQL a `sign_ins` row moves, by
// statement triggers in the writing transaction, whenever a user, an API token or a console session's end changes, on
// any instance and by whatever code: the authenticator remembers principals until it moves. (On SQLite one process
// owns the database and the authenticator watches the writer's change count instead: no trigger.)
import { type Kysely, sql } from 'kysely'
import { kindOf } from '../dialect.ts'

const SIGN_INS_CHANGED = 'sign_ins_changed'
/** What a remembered principal was read from, and the changes to it that must reach every instance. */
const SIGN_IN_TRIGGERS = [
  ['users', 'update or delete'],
  ['api_tokens', 'update or delete'],
  // A refresh rotates the session's token hash at every renewal; only its end (or its row going) matters.
  ['auth_sessions', 'update of revoked_at, user_id or delete'],
] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable('gpt_key_failures')
    .addColumn('client', 'text', (c) => c.primaryKey())
    .addColumn('times', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('gpt_key_failures_updated').on('gpt_key_failures').column('updated_at').execute()
  await db
    .insertInto('cluster_revisions' as never)
    .values([
      { name: 'gpts', value: 0 },
      { name: 'sign_ins', value: 0 },
    ] as never)
    .execute()
  if (kindOf(db) === 'sqlite') return
  // One statement trigger per table, not per row: revoking every token of a user moves the counter once.
  await sql
    .raw(`create function ${SIGN_INS_CHANGED}() returns trigger language plpgsql as $trigger$ begin
  update cluster_revisions set value = value + 1 where name = 'sign_ins';
  return null;
end $trigger$`)
    .execute(db)
  for (const [table, events] of SIGN_IN_TRIGGERS)
    await sql
      .raw(`create trigger ${table}_${SIGN_INS_CHANGED} after ${events} on ${table} for each statement execute function ${SIGN_INS_CHANGED}()`)
      .execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (kindOf(db) === 'postgres') {
    for (const [table] of SIGN_IN_TRIGGERS) await sql.raw(`drop trigger if exists ${table}_${SIGN_INS_CHANGED} on ${table}`).execute(db)
    await sql.raw(`drop function if exists ${SIGN_INS_CHANGED}()`).execute(db)
  }
  await db
    .deleteFrom('cluster_revisions' as never)
    .where('name' as never, 'in', ['gpts', 'sign_ins'] as never)
    .execute()
  await db.schema.dropTable('gpt_key_failures').execute()
  await db.schema.dropTable('leases').execute()
}
