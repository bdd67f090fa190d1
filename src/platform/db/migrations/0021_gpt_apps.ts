// 0021: GPT apps (issue 29). `gpts`: one row per custom GPT connected to the organisation, kept once uninstalled; a name
// is unique among installed GPTs only, so an uninstalled GPT's name can be given to a new one. `gpt_keys`: the SHA-256
// of each key a GPT was given, the current one unrevoked; a key is found by its hash on every GPT request.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('gpts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('instructions', 'text', (c) => c.notNull())
    .addColumn('applications', 'text', (c) => c.notNull())
    .addColumn('agent_name', 'text')
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('installed', 'integer', (c) => c.notNull())
    .addColumn('installed_at', 'text', (c) => c.notNull())
    .addColumn('installed_by_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('installed_by', 'text', (c) => c.notNull())
    .addColumn('uninstalled_at', 'text')
    .addColumn('uninstalled_by_user_id', 'text', (c) => c.references('users.id'))
    .execute()
  await db.schema.createIndex('gpts_installed_name').on('gpts').column('name').unique().where(sql.ref('installed'), '=', 1).execute()
  // A name's uninstalled records (GET /api/gpts/{name} of an uninstalled GPT, uninstalling twice).
  await db.schema.createIndex('gpts_name').on('gpts').columns(['name', 'installed_at']).execute()

  await db.schema
    .createTable('gpt_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('gpt_id', 'text', (c) => c.notNull().references('gpts.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('revoked_at', 'text')
    .execute()
  await db.schema.createIndex('gpt_keys_hash').on('gpt_keys').column('key_hash').unique().execute()
  await db.schema.createIndex('gpt_keys_gpt').on('gpt_keys').column('gpt_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('gpt_keys').execute()
  await db.schema.dropTable('gpts').execute()
}
