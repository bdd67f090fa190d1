// Run persistence: the run row, step rows by recording mode, and the checkpoint written in the same transaction as waiting_human.
import type { Insertable, Kysely, Transaction } from 'kysely'
import type { Database } from '../../../platform/db/schema.ts'
import type { RecordingMode, RunStatus, WorkflowStepsTable } from '../../../platform/db/tables/workflows.ts'
import { newId } from '../../../platform/ids.ts'
import type { EngineState, PendingGate, RunError, RunInfo } from '../engine/types.ts'
import type { StepTrace } from '../engine/trace.ts'
import type { WorkflowDefinition } from '../definition/types.ts'

export interface RunMeta {
  info: RunInfo
  agentId: string
  source: 'live' | 'draft'
  definitionHash: string
  recording: RecordingMode
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value))

export async function insertRunningRow(db: Kysely<Database>, meta: RunMeta, now: string): Promise<void> {
  const { info } = meta
  await db
    .insertInto('workflow_runs')
    .values({
      id: info.id,
      agent_id: meta.agentId,
      workflow_id: info.workflow.id,
      workflow_name: info.workflow.name,
      version: info.workflow.version,
      source: meta.source,
      definition_hash: meta.definitionHash,
      starter_id: info.starter,
      status: 'running',
      recording: meta.recording,
      input: meta.recording === 'full' ? json(info.input) : null,
      result: null,
      error_code: null,
      error_message: null,
      error_node: null,
      pending_gate: null,
      started_at: info.started_at,
      finished_at: null,
      updated_at: now,
    })
    .execute()
}

/** One step row: headers_only keeps status, timings, attempts and errors; full adds input, params and output. */
export function stepRow(runId: string, recording: RecordingMode, t: StepTrace): Insertable<WorkflowStepsTable> {
  const full = recording === 'full'
  return {
    id: newId(),
    run_id: runId,
    seq: t.seq,
    node_id: t.node_id,
    node_type: t.node_type,
    name: t.name,
    iteration: JSON.stringify(t.iteration),
    status: t.status,
    port: t.port,
    started_at: t.started_at,
    finished_at: t.finished_at,
    duration_ms: t.duration_ms,
    attempts: JSON.stringify(t.attempts),
    input: full ? json(t.input) : null,
    params: full ? json(t.params_resolved) : null,
    output: full ? json(t.output) : null,
    error: json(t.error ?? undefined),
    decision: json(t.decision ?? undefined),
  }
}

/** Writes step rows, 50 to a statement: SQLite caps bound variables per statement, and 18 columns × 50 rows stays well under it. */
export async function insertStepRows(trx: Kysely<Database>, rows: Insertable<WorkflowStepsTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 50)
    await trx
      .insertInto('workflow_steps')
      .values(rows.slice(i, i + 50))
      .execute()
}

/** Step rows by recording mode (disabled: none). */
export async function insertSteps(trx: Kysely<Database>, runId: string, recording: RecordingMode, traces: StepTrace[]): Promise<void> {
  if (recording === 'disabled' || traces.length === 0) return
  await insertStepRows(
    trx,
    traces.map((t) => stepRow(runId, recording, t)),
  )
}

/**
 * Steps performed, in one transaction, so a crash leaves either a running run or a waiting run with its checkpoint:
 * 1. the checkpoint (pinned definition, run info, engine state, gate data) is written;
 * 2. the run row moves to waiting_human (inserted first when recording is disabled: it exists only while waiting);
 * 3. the step rows of this segment are recorded as the mode allows.
 * Returns false when the run was cancelled meanwhile: nothing waits then.
 */
export async function pauseRun(
  db: Kysely<Database>,
  meta: RunMeta,
  definition: WorkflowDefinition,
  gate: PendingGate,
  state: EngineState,
  traces: StepTrace[],
  now: string,
  expiresAt: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('workflow_runs').select('status').where('id', '=', meta.info.id).executeTakeFirst()
    if (current && current.status !== 'running') {
      await insertSteps(trx, meta.info.id, meta.recording, traces)
      return false
    }
    const checkpoint = {
      gate_id: gate.gate_id,
      message: gate.message,
      data: JSON.stringify(gate.data),
      definition: JSON.stringify(definition),
      run_info: JSON.stringify(meta.info),
      state: JSON.stringify(state),
      waiting_since: now,
      expires_at: expiresAt,
    }
    await trx
      .insertInto('workflow_checkpoints')
      .values({ run_id: meta.info.id, ...checkpoint })
      .onConflict((oc) => oc.column('run_id').doUpdateSet(checkpoint))
      .execute()
    if (current)
      await trx
        .updateTable('workflow_runs')
        .set({ status: 'waiting_human', pending_gate: gate.gate_id, updated_at: now })
        .where('id', '=', meta.info.id)
        .execute()
    else {
      await insertRunningRow(trx, meta, now)
      await trx.updateTable('workflow_runs').set({ status: 'waiting_human', pending_gate: gate.gate_id }).where('id', '=', meta.info.id).execute()
    }
    await insertSteps(trx, meta.info.id, meta.recording, traces)
    return true
  })
}

/**
 * A terminal state: recorded runs get status, error, result (full) and finished_at, only if still `running` (a cancel
 * that won keeps its `cancelled`); disabled runs leave nothing. The checkpoint goes in every case.
 * Returns the status the run really ended with.
 */
export async function finishRun(
  db: Kysely<Database>,
  meta: RunMeta,
  status: RunStatus,
  result: unknown,
  error: RunError | null,
  traces: StepTrace[],
  now: string,
): Promise<RunStatus> {
  return db.transaction().execute(async (trx: Transaction<Database>) => {
    const id = meta.info.id
    await trx.deleteFrom('workflow_checkpoints').where('run_id', '=', id).execute()
    if (meta.recording === 'disabled') {
      const row = await trx.selectFrom('workflow_runs').select('status').where('id', '=', id).executeTakeFirst()
      await trx.deleteFrom('workflow_runs').where('id', '=', id).execute()
      return row && row.status !== 'running' ? row.status : status
    }
    const updated = await trx
      .updateTable('workflow_runs')
      .set({
        status,
        result: meta.recording === 'full' ? json(result ?? null) : null,
        error_code: error?.code ?? null,
        error_message: error?.message ?? null,
        error_node: error?.node_id ?? null,
        pending_gate: null,
        finished_at: now,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .executeTakeFirst()
    await insertSteps(trx, id, meta.recording, traces)
    if (Number(updated.numUpdatedRows) === 1) return status
    const row = await trx.selectFrom('workflow_runs').select('status').where('id', '=', id).executeTakeFirst()
    return row?.status ?? status
  })
}
