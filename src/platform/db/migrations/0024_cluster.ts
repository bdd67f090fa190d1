// 0024: what several instances on one database share. `cluster_revisions` holds one counter per kind of cached data
// (applications, sealed secrets, organisation settings, tasks, the licence): a writer bumps it in the transaction that
// changes the data, and every instance drops its caches of that kind when it sees the counter move. `task_runs.instance_id`
// names the process that started a run, so a run left "running" by an instance that died can be told from one still
// going on another instance, and at most one run of a task is `running` at a time (a unique index: the "run now" guard
// holds across instances). `login_throttle` is the sign-in throttle's memory on PostgreSQL; `shared_keys` what every
// instance's secrets directory must match.
import { type Kysely, sql } from 'kysely'

export const REVISION_NAMES = ['applications', 'secrets', 'org_settings', 'tasks', 'license', 'ui_templates'] as const

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
  // One process used to keep a task from running twice at once; before the database does, any older duplicate
  // "running" row (only a crash could leave one) is failed, keeping the newest.
  await sql`UPDATE task_runs SET status = 'failed', finished_at = started_at, error = 'Interrupted: the server stopped before the run finished'
    WHERE status = 'running' AND EXISTS (
      SELECT 1 FROM task_runs AS newer WHERE newer.task_id = task_runs.task_id AND newer.status = 'running' AND newer.id > task_runs.id)`.execute(db)
  await db.schema.createIndex('task_runs_one_running').on('task_runs').column('task_id').unique().where(sql.ref('status'), '=', 'running').execute()

  await db.schema
    .createTable('login_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('times', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'integer', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('login_throttle_updated').on('login_throttle').column('updated_at').execute()
  await db.schema
    .createTable('shared_keys')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shared_keys').execute()
  await db.schema.dropTable('login_throttle').execute()
  await db.schema.dropIndex('task_runs_one_running').execute()
  await db.schema.alterTable('task_runs').dropColumn('instance_id').execute()
  await db.schema.dropTable('cluster_revisions').execute()
}
