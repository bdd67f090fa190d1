// What a node type is, in one place: its ports, whether it can fail, how its parameters are checked at save, and what
// it does at run time. One file per type (set.ts, if.ts, …), listed in index.ts: a new type is one file and one line.
import type { NodeResult, NodeTools } from '../engine/types.ts'
import type { NodeType, WorkflowNode } from '../definition/types.ts'

export type ParamLoc = (string | number)[]

/** How a kind reports parameter problems at save (each becomes a 422 entry at `…params.<loc>`). */
export interface ParamCheck {
  report(loc: ParamLoc, msg: string, input?: unknown): void
  /** Reports `key` unless it is absent or one of `allowed`. */
  oneOf(key: string, allowed: readonly string[]): void
}

export interface NodeKind {
  readonly type: NodeType
  /** The ports it emits on; the first is the default when a connection names none. */
  readonly ports: readonly string[]
  /** Exactly one of its ports fires per activation (what makes the branches after it exclusive). */
  readonly exclusivePorts: boolean
  /** Its steps can fail, so on_error applies. */
  readonly fallible: boolean
  checkParams(params: Record<string, unknown>, check: ParamCheck): void
  /** What a step does; absent for the approval gate, which the executor runs itself (it pauses the run). */
  run?(node: WorkflowNode, params: Record<string, unknown>, json: unknown, tools: NodeTools): Promise<NodeResult> | NodeResult
}

export const isTemplate = (value: unknown) => typeof value === 'string' && value.includes('{{')
export const positiveInt = (value: unknown, max: number) => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max
