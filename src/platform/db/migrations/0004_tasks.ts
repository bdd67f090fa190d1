// 0004: scheduled tasks, runs and threads (issue 4).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('creator_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('chat_provider', 'text')
    .addColumn('chat_model', 'text')
    .addColumn('mentions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('visibility', 'text', (c) => c.notNull().check(sql`visibility in ('private', 'public')`))
    .addColumn('frequency', 'text', (c) => c.notNull().check(sql`frequency in ('manual', 'hourly', 'daily', 'weekly', 'monthly', 'cron')`))
    .addColumn('schedule_hour', 'text')
    .addColumn('schedule_day', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('cron', 'text')
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('enabled', 'disabled')`))
    .addColumn('thread_policy', 'text', (c) => c.notNull().check(sql`thread_policy in ('new_each_run', 'append')`))
    .addColumn('thread_id', 'text')
    .addColumn('next_run', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('last_run_status', 'text')
    .addColumn('last_run_thread_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  // GET /api/tasks is "mine plus public", newest first: one index per side of the OR.
  await db.schema.createIndex('tasks_creator').on('tasks').columns(['creator_id', 'created_at']).execute()
  await db.schema.createIndex('tasks_visibility').on('tasks').columns(['visibility', 'created_at']).execute()
  // The scheduler rebuilds its jobs at boot from scheduled tasks only.
  await db.schema.createIndex('tasks_next_run').on('tasks').column('next_run').where(sql.ref('next_run'), 'is not', null).execute()

  await db.schema
    .createTable('threads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('task_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('thread_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('thread_id', 'text', (c) => c.notNull().references('threads.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('user', 'assistant')`))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  // Messages are read per thread in order; UUIDv7 ids sort by creation.
  await db.schema.createIndex('thread_messages_thread').on('thread_messages').columns(['thread_id', 'id']).execute()

  await db.schema
    .createTable('task_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('running', 'succeeded', 'failed')`))
    .addColumn('trigger', 'text', (c) => c.notNull().check(sql`"trigger" in ('schedule', 'catch_up', 'manual')`))
    .addColumn('scheduled_for', 'text')
    .addColumn('thread_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('error', 'text')
    .execute()
  await db.schema.createIndex('task_runs_task').on('task_runs').columns(['task_id', 'started_at']).execute()
  // The database itself refuses a second run of the same slot, whatever the scheduler does.
  await db.schema
    .createIndex('task_runs_slot')
    .on('task_runs')
    .columns(['task_id', 'scheduled_for'])
    .unique()
    .where(sql.ref('scheduled_for'), 'is not', null)
    .execute()
  // Boot marks runs a crash interrupted; only those few rows are scanned.
  await db.schema.createIndex('task_runs_running').on('task_runs').column('status').where('status', '=', 'running').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['task_runs', 'thread_messages', 'threads', 'tasks']) await db.schema.dropTable(table).execute()
}
