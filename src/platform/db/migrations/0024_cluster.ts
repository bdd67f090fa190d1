// 0024: what several instances on one database share. `cluster_revisions` holds one counter per kind of cached data
// (applications, sealed secrets, organisation settings, tasks): a writer bumps it in the transaction that changes the
// data, and every instance drops its caches of that kind when it sees the counter move. `task_runs.instance_id` names
// the process that started a run, so a run left "running" by an instance that died can be told from one still going
// on another instance.
import type { Kysely } from 'kysely'

export const REVISION_NAMES = ['applications', 'secrets', 'org_settings', 'tasks'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cluster_revisions')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute()
  await db
    .insertInto('cluster_revisions' as never)
    .values(REVISION_NAMES.map((name) => ({ name, value: 0 })) as never)
    .execute()
  await db.schema.alterTable('task_runs').addColumn('instance_id', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('task_runs').dropColumn('instance_id').execute()
  await db.schema.dropTable('cluster_revisions').execute()
}
