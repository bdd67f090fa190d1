// 0005: workflow runs, their steps and approval checkpoints, org settings and the audit log (issue 6).
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workflow_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('workflow_id', 'text', (c) => c.notNull())
    .addColumn('workflow_name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer')
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('live', 'draft')`))
    .addColumn('definition_hash', 'text', (c) => c.notNull())
    .addColumn('starter_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('running', 'waiting_human', 'succeeded', 'failed', 'rejected', 'cancelled')`))
    .addColumn('recording', 'text', (c) => c.notNull().check(sql`recording in ('full', 'headers_only', 'disabled')`))
    .addColumn('input', 'text')
    .addColumn('result', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('error_node', 'text')
    .addColumn('pending_gate', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
  // History: admins list an agent's runs newest first; members only their own (filtered in the query).
  await db.schema.createIndex('workflow_runs_agent').on('workflow_runs').columns(['agent_id', 'id']).execute()
  await db.schema.createIndex('workflow_runs_starter').on('workflow_runs').columns(['agent_id', 'starter_id', 'id']).execute()
  // Retention prunes finished runs oldest first; unfinished runs are not in this index at all.
  await db.schema.createIndex('workflow_runs_finished').on('workflow_runs').column('finished_at').where(sql.ref('finished_at'), 'is not', null).execute()
  // Boot marks runs a crash left running as failed.
  await db.schema.createIndex('workflow_runs_running').on('workflow_runs').column('status').where(sql.ref('status'), '=', 'running').execute()

  await db.schema
    .createTable('workflow_steps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('node_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('iteration', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('port', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'text', (c) => c.notNull())
    .addColumn('input', 'text')
    .addColumn('params', 'text')
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addColumn('decision', 'text')
    .execute()
  await db.schema.createIndex('workflow_steps_run').on('workflow_steps').columns(['run_id', 'seq']).execute()

  await db.schema
    .createTable('workflow_checkpoints')
    .addColumn('run_id', 'text', (c) => c.primaryKey())
    .addColumn('gate_id', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('run_info', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('waiting_since', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  // The gate-timeout sweep reads the earliest expiries.
  await db.schema.createIndex('workflow_checkpoints_expiry').on('workflow_checkpoints').column('expires_at').execute()

  await db.schema
    .createTable('org_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute()
  // GET /api/audit lists newest first by id (UUIDv7: time order); filtered by action through this one.
  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['audit_log', 'org_settings', 'workflow_checkpoints', 'workflow_steps', 'workflow_runs'])
    await db.schema.dropTable(table).ifExists().execute()
}
