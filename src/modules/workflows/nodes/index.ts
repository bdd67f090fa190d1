// Every node type by name, and what the definition checks and the engine ask of them.
import type { Connection, NodeType, WorkflowNode } from '../definition/types.ts'
import type { NodeResult, NodeTools } from '../engine/types.ts'
import { approvalNode } from './approval.ts'
import { ifNode } from './if.ts'
import { joinNode } from './join.ts'
import type { NodeKind } from './kind.ts'
import { llmNode } from './llm.ts'
import { mapNode } from './map.ts'
import { outputNode } from './output.ts'
import { setNode } from './set.ts'

export { stepDataOf } from './step-data.ts'
export type { NodeKind, ParamCheck } from './kind.ts'

/** Complete by type: a type added to NODE_TYPES without its kind here does not compile. */
export const NODE_KINDS: Readonly<Record<NodeType, NodeKind>> = {
  'agentbox.set': setNode,
  'agentbox.if': ifNode,
  'agentbox.map': mapNode,
  'agentbox.join': joinNode,
  'agentbox.llm': llmNode,
  'agentbox.approval': approvalNode,
  'agentbox.output': outputNode,
}

/** The port a connection leaves from: the one it names, else the type's first. */
export const portOf = (node: WorkflowNode, connection: Connection): string => connection.port ?? NODE_KINDS[node.type].ports[0] ?? 'main'

/** True when an activation of a `type` node can never emit on both `a` and `b`. */
export function portsExclude(type: NodeType, a: string, b: string): boolean {
  if (a === b) return false
  if (NODE_KINDS[type].exclusivePorts) return true
  // A map emits `done` after its loop, or `error` instead of `done` (on_error: error_output): never both.
  return type === 'agentbox.map' && ((a === 'done' && b === 'error') || (a === 'error' && b === 'done'))
}

/** Runs one step of a node type that has a `run` (every type but the approval gate, which the executor runs). */
export async function runNode(node: WorkflowNode, params: Record<string, unknown>, json: unknown, tools: NodeTools): Promise<NodeResult> {
  const run = NODE_KINDS[node.type].run
  if (!run) throw new Error(`${node.type} steps are run by the executor`)
  return run(node, params, json, tools)
}
