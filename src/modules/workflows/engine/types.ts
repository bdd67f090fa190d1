// The engine's types: what a run is given (RunInfo, EngineHost), what it keeps (EngineState, the approval
// checkpoint), what it returns (Outcome), and what a node type returns (NodeResult). Shared by the executor, the
// node types and the run store, so none of them imports another for its types.
import type { Clock } from '../../../platform/clock.ts'
import type { ValueSize } from '../expr/value-size.ts'
import type { KeptTraces } from './run-memory.ts'
import type { Decision, StepTrace } from './trace.ts'

export interface RunInfo {
  id: string
  input: unknown
  started_at: string
  starter: string
  dry_run: boolean
  workflow: { id: string; name: string; version: number | null; agent: string }
}

export interface LlmCall {
  provider?: string
  model?: string
  system?: string
  prompt: string
}

/** What the engine needs from outside: time, models, the cancel flag and (dry runs) the caller's step data. */
export interface EngineHost {
  clock: Clock
  callLlm(call: LlmCall): Promise<{ text: string; provider: string; model: string }>
  isCancelled(): boolean
  /** Dry runs only: outputs for llm steps and decisions for gates, by node id. */
  stepData: Record<string, unknown> | null
  onTrace(trace: StepTrace): void
  /** What the host keeps of each trace beyond the step's status (for include_data, for a full recording): counted by the run's memory budget. */
  keeps?: KeptTraces
  /** Gives the event loop a turn (the host may finish deferred work first, like writing step rows); setImmediate without. */
  turn?(): Promise<void>
  /** Waits between retries; tests replace it. */
  sleep(ms: number): Promise<void>
}

export interface Activation {
  node: string
  json: unknown
}

/** Everything needed to continue a run: JSON only, so it is the approval checkpoint as stored. */
export interface EngineState {
  queue: Activation[]
  outputs: Record<string, unknown>
  edges: Record<number, 'delivered' | 'skipped'>
  joins: Record<string, Record<string, unknown>>
  settled: string[]
  result: unknown
  steps: number
  seq: number
  active_ms: number
  /** Expression work spent so far (ExpressionBudget); absent in checkpoints saved before it existed. */
  expr_units?: number
  /** The run's memory budget (RunMemory) at the checkpoint; absent in checkpoints saved before it existed. */
  memory_held?: number
  memory_kept?: number
}

export interface PendingGate {
  gate_id: string
  message: string
  data: unknown
  timeout_s: number
}

export type RunError = { code: string; message: string; node_id?: string }

export type Outcome =
  | { kind: 'finished'; status: 'succeeded' | 'failed' | 'rejected' | 'cancelled'; result: unknown; error: RunError | null; state: EngineState }
  | { kind: 'paused'; gate: PendingGate; state: EngineState }

export interface GateDecision {
  decision: 'approve' | 'reject' | 'timeout'
  edits?: Record<string, unknown>
  reason?: string
  decided_by: string | null
  decided_at: string
  channel: Decision['channel']
}

export interface NodeResult {
  /** The port the output leaves on; null for output nodes, which end a branch. */
  port: string | null
  json: unknown
  /** Output nodes: the run's result. */
  result?: unknown
  simulated?: boolean
  /** The executor measured and held the output while the step made it (a map's results): not measured again. */
  held?: boolean
}

export interface NodeTools {
  host: EngineHost
  runMap(items: unknown[]): Promise<unknown[]>
  /** A value's size (JSON and memory), measured against one value's limits; big lists measured before are not walked again. */
  measure(value: unknown): ValueSize
}
