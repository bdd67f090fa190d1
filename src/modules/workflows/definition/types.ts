// The workflow definition as stored in the agent document, the node type names and the run limits (each type's ports
// and behaviour: nodes/).

export const NODE_TYPES = ['agentbox.set', 'agentbox.if', 'agentbox.map', 'agentbox.join', 'agentbox.llm', 'agentbox.approval', 'agentbox.output'] as const
export type NodeType = (typeof NODE_TYPES)[number]
export type OnError = 'stop' | 'continue' | 'error_output'

export interface RetryPolicy {
  max_tries?: number
  wait_ms?: number
  backoff?: 'fixed' | 'exponential'
}

export interface WorkflowNode {
  id: string
  type: NodeType
  name?: string
  params?: Record<string, unknown>
  on_error?: OnError
  retry?: RetryPolicy
}

export interface Connection {
  from: string
  port?: string
  to: string
}

export interface WorkflowSettings {
  /** Run-wide limit on running time, waiting for a human excluded. */
  timeout_s?: number
  /** Run-wide limit on executed steps, map iterations included. */
  max_steps?: number
}

export interface WorkflowDefinition {
  nodes: WorkflowNode[]
  connections: Connection[]
  settings?: WorkflowSettings
}

/** A workflow as stored in the draft's `workflows` part: a stable id that survives publish and restore. */
export interface StoredWorkflow {
  id: string
  name: string
  definition: WorkflowDefinition
  created_at: string
  updated_at: string
}

export const LIMITS = Object.freeze({
  nodes: 500,
  connections: 2000,
  maxStepsDefault: 2000,
  maxStepsCap: 100_000,
  /** A run's time limit (waiting for a human excluded): 5 minutes unless settings.timeout_s says otherwise, at most 1 hour. */
  timeoutDefaultS: 300,
  timeoutCapS: 3600,
  /** Work units a run's expressions may spend (see expr/budget.ts): about 0.1-0.5 s of evaluation. */
  expressionUnitsPerRun: 50_000_000,
  /** Of which one step may spend (a step's expressions run without a break: this bounds how long it holds the server, ~5 ms). */
  expressionUnitsPerStep: 5_000_000,
  /** The largest JSON (estimated) an expression value, a step's parameters or output, a map's results, the run input or result may be. */
  valueBytesCap: 4 * 1024 * 1024,
  /**
   * The most memory (estimated from what a value holds, see expr/value-size.ts) one such value may take: small objects
   * cost ~25x their JSON, so 4 MiB of JSON could be 100 MiB of objects. Also bounds how long one step copies (~15 ms).
   */
  valueMemoryBytesCap: 16 * 1024 * 1024,
  /**
   * A run's memory budget (engine/run-memory.ts): the estimated memory of the values it holds (the run input, step
   * outputs it still needs, map results, a map's items) plus the JSON of the step data it keeps to answer
   * (include_data) or to record (recording full). Past it the run fails with memory_budget_exceeded.
   */
  runMemoryBytesCap: 64 * 1024 * 1024,
  /** The longest list one expression function may return. */
  functionItemsCap: 100_000,
  mapItemsCap: 10_000,
  gateTimeoutDefaultS: 72 * 3600,
  gateTimeoutCapS: 30 * 86_400,
  retryTriesCap: 5,
  retryWaitCapMs: 60_000,
})

const NODE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
/** Node ids key the engine's maps and `$steps`: names that reach the prototype machinery are never ids. */
const RESERVED_NODE_IDS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

export const isValidNodeId = (id: unknown): id is string => typeof id === 'string' && NODE_ID_PATTERN.test(id) && !RESERVED_NODE_IDS.has(id)
