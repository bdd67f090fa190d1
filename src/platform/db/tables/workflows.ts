// Tables of migration 0005_workflows: workflow runs, their steps and approval checkpoints, org settings and the audit log (issue 6).

export type RunStatus = 'running' | 'waiting_human' | 'succeeded' | 'failed' | 'rejected' | 'cancelled'
export type RecordingMode = 'full' | 'headers_only' | 'disabled'

/** One real run. With recording `disabled` a row exists only while the run waits for a human. */
export interface WorkflowRunsTable {
  id: string
  agent_id: string
  workflow_id: string
  workflow_name: string
  /** The agent version the run pinned; null for runs of the draft. */
  version: number | null
  /** `live` or `draft`: where the definition came from. */
  source: string
  /** SHA-256 of the pinned definition's JSON. */
  definition_hash: string
  starter_id: string
  status: RunStatus
  /** The org setting at start, pinned for the run's whole life. */
  recording: RecordingMode
  /** JSON; null unless recording is full. */
  input: string | null
  /** JSON; null unless recording is full. */
  result: string | null
  error_code: string | null
  error_message: string | null
  error_node: string | null
  pending_gate: string | null
  started_at: string
  finished_at: string | null
  updated_at: string
}

/** One step trace; payload columns are null unless the run records `full`. */
export interface WorkflowStepsTable {
  id: string
  run_id: string
  seq: number
  node_id: string
  node_type: string
  name: string | null
  /** JSON array: the map index path. */
  iteration: string
  status: string
  port: string | null
  started_at: string
  finished_at: string
  duration_ms: number
  /** JSON array. */
  attempts: string
  input: string | null
  params: string | null
  output: string | null
  /** JSON object or null. */
  error: string | null
  /** JSON object or null: the gate decision (no payload). */
  decision: string | null
}

/** What a run waiting for a human needs to continue: written before the run enters waiting_human, whatever the recording. */
export interface WorkflowCheckpointsTable {
  run_id: string
  gate_id: string
  message: string
  /** JSON: the gate's $json, what the human approves. */
  data: string
  /** JSON: the pinned definition. */
  definition: string
  /** JSON: the run info ($run, $workflow). */
  run_info: string
  /** JSON: the engine state. */
  state: string
  waiting_since: string
  expires_at: string
}

/** Organisation-wide settings as key/value rows (workflow_recording, workflow_retention_days). */
export interface OrgSettingsTable {
  key: string
  value: string
  updated_at: string
  updated_by: string
}

/** Who decided what and when: approval decisions and admin setting changes, whatever the recording mode. */
export interface AuditLogTable {
  id: string
  at: string
  /** User id; null for the system (a gate timeout). */
  actor_id: string | null
  action: string
  target_type: string
  target_id: string
  /** JSON object: decision, channel, agent, changes… never a run payload. */
  details: string
}

export interface WorkflowsTables {
  workflow_runs: WorkflowRunsTable
  workflow_steps: WorkflowStepsTable
  workflow_checkpoints: WorkflowCheckpointsTable
  org_settings: OrgSettingsTable
  audit_log: AuditLogTable
}
