// 0026: the last state several instances on one database must share. `leases` holds who has a piece of work that must
// run once at a time across every instance (a repository's git sync, a chat thread's turn): a row per key, taken by an
// atomic upsert that succeeds only when the row is absent or expired, renewed while the work runs, deleted when it ends;
// an instance that dies leaves a row that expires. `gpt_key_failures` is the GPT key throttle's memory on PostgreSQL
// (as `login_throttle` is the sign-in throttle's). A `gpts` row in `cluster_revisions` lets every instance drop the GPT
// keys it verified when a GPT is created, rotated or uninstalled on another.
import type { Kysely } from 'kysely'

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
    .values({ name: 'gpts', value: 0 } as never)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db
    .deleteFrom('cluster_revisions' as never)
    .where('name' as never, '=', 'gpts' as never)
    .execute()
  await db.schema.dropTable('gpt_key_failures').execute()
  await db.schema.dropTable('leases').execute()
}
