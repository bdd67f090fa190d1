// The per-step trace a run produces: what responses with include_data show and what step rows record.
import type { StepErrorInfo } from './errors.ts'

export type StepStatus = 'succeeded' | 'failed' | 'skipped' | 'waiting_human' | 'cancelled'

export interface Decision {
  decision: 'approve' | 'reject' | 'timeout'
  decided_by: string | null
  decided_at: string
  channel: 'api' | 'mcp' | 'ui' | 'system' | 'dry_run'
  reason?: string
  edited_keys?: string[]
}

export interface StepTrace {
  node_id: string
  node_type: string
  name: string | null
  iteration: number[]
  seq: number
  status: StepStatus
  port: string | null
  started_at: string
  finished_at: string
  duration_ms: number
  attempts: { n: number; error: { code: string; message: string; retryable: boolean } }[]
  input: unknown
  params_resolved: unknown
  output: unknown
  error: StepErrorInfo | null
  decision: Decision | null
  simulated: boolean
}
