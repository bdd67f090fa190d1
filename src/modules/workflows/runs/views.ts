// What run endpoints answer: the compact run, its waiting block, and step traces with include_data. The one place a
// RunView is built, from a stored row (reads) or from the outcome a run just reached (start, resume, gate timeouts).
import type { Selectable } from 'kysely'
import type { RunStatus, WorkflowRunsTable, WorkflowStepsTable } from '../../../platform/db/tables/workflows.ts'
import type { StepTrace } from '../engine/trace.ts'
import type { Outcome } from '../engine/types.ts'
import type { RunMeta } from './store.ts'

export interface WaitingView {
  gate_id: string
  message: string
  since: string
  expires_at: string
  /** The gate's $json the human approves; lists leave it out. */
  data?: unknown
}

export interface RunView {
  run_id: string
  agent: string
  workflow_id: string
  workflow_name: string
  version: number | null
  source: 'live' | 'draft'
  status: RunStatus
  dry_run: boolean
  recording: string | null
  starter_id: string
  result: unknown
  error: { code: string; message: string; node_id?: string } | null
  started_at: string
  finished_at: string | null
  waiting: WaitingView | null
  steps?: StepTrace[]
}

const parse = (json: string | null): unknown => (json === null ? null : JSON.parse(json))

export function runRowView(row: Selectable<WorkflowRunsTable>, agent: string, waiting: WaitingView | null): RunView {
  return {
    run_id: row.id,
    agent,
    workflow_id: row.workflow_id,
    workflow_name: row.workflow_name,
    version: row.version,
    source: row.source as 'live' | 'draft',
    status: row.status,
    dry_run: false,
    recording: row.recording,
    starter_id: row.starter_id,
    result: parse(row.result),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '', ...(row.error_node ? { node_id: row.error_node } : {}) } : null,
    started_at: row.started_at,
    finished_at: row.finished_at,
    waiting,
  }
}

export function stepRowView(row: Selectable<WorkflowStepsTable>): StepTrace {
  return {
    node_id: row.node_id,
    node_type: row.node_type,
    name: row.name,
    iteration: JSON.parse(row.iteration),
    seq: row.seq,
    status: row.status as StepTrace['status'],
    port: row.port,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms: row.duration_ms,
    attempts: JSON.parse(row.attempts),
    input: parse(row.input),
    params_resolved: parse(row.params),
    output: parse(row.output),
    error: parse(row.error) as StepTrace['error'],
    decision: parse(row.decision) as StepTrace['decision'],
    simulated: false,
  }
}

/**
 * The run as it stands after `outcome`, before anyone reads it back: `status` is what the store settled on; `steps`
 * are this call's traces when the caller asked for them (include_data), else null.
 */
export function outcomeView(meta: RunMeta, outcome: Outcome, status: RunStatus, now: string, steps: StepTrace[] | null): RunView {
  const { info } = meta
  const view: RunView = {
    run_id: info.id,
    agent: info.workflow.agent,
    workflow_id: info.workflow.id,
    workflow_name: info.workflow.name,
    version: info.workflow.version,
    source: meta.source,
    status,
    dry_run: info.dry_run,
    recording: info.dry_run ? null : meta.recording,
    starter_id: info.starter,
    result: outcome.kind === 'finished' && status !== 'cancelled' ? (outcome.result ?? null) : null,
    error: outcome.kind === 'finished' && status === outcome.status ? outcome.error : null,
    started_at: info.started_at,
    finished_at: outcome.kind === 'finished' ? now : null,
    waiting: null,
  }
  if (steps) view.steps = steps
  return view
}
