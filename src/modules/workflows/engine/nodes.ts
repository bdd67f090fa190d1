// What each node type does with its resolved params and $json: set, if, map, join, llm, output (gates live in the executor).
import { ProviderError } from '../../../llm/provider.ts'
import { cloneJson, isPlainObject } from '../expr/values.ts'
import { LIMITS, type WorkflowNode } from '../definition/types.ts'
import { testCondition, type Condition } from './conditions.ts'
import { StepError } from './errors.ts'
import type { EngineHost } from './executor.ts'
import { parseSetPath, writePath } from './set-path.ts'

export interface NodeResult {
  /** The port the output leaves on; null for output nodes, which end a branch. */
  port: string | null
  json: unknown
  /** Output nodes: the run's result. */
  result?: unknown
  simulated?: boolean
}

export interface NodeTools {
  host: EngineHost
  runMap(items: unknown[]): Promise<unknown[]>
}

/** The caller's dry-run data for a node: own entries only, so an id like `toString` never reads a prototype method. */
export function stepDataOf(stepData: Record<string, unknown>, nodeId: string): unknown {
  return Object.hasOwn(stepData, nodeId) ? stepData[nodeId] : undefined
}

export async function runNode(node: WorkflowNode, params: Record<string, unknown>, json: unknown, tools: NodeTools): Promise<NodeResult> {
  switch (node.type) {
    case 'agentbox.set': {
      const start: Record<string, unknown> = params.mode === 'replace' || !isPlainObject(json) ? {} : cloneJson(json)
      for (const [path, value] of Object.entries((params.values ?? {}) as Record<string, unknown>)) {
        const { segments, problem } = parseSetPath(path)
        if (problem) throw new StepError('invalid_path', problem)
        writePath(start, segments, cloneJson(value))
      }
      return { port: 'main', json: start }
    }
    case 'agentbox.if': {
      const conditions = params.conditions as Condition[]
      const ignoreCase = params.ignore_case === true
      const outcomes = conditions.map((c) => testCondition(c, ignoreCase))
      const pass = params.combinator === 'or' ? outcomes.some(Boolean) : outcomes.every(Boolean)
      return { port: pass ? 'true' : 'false', json: cloneJson(json) }
    }
    case 'agentbox.map': {
      const items = params.items
      if (!Array.isArray(items)) throw new StepError('map_items_not_array', `items must evaluate to a list, got ${items === null ? 'null' : typeof items}`)
      const cap = (params.max_items as number | undefined) ?? LIMITS.mapItemsCap
      if (items.length > cap) throw new StepError('map_too_many_items', `items has ${items.length} elements; max_items is ${cap}`)
      return { port: 'done', json: await tools.runMap(items) }
    }
    case 'agentbox.join':
      return { port: 'main', json }
    case 'agentbox.output':
      return { port: null, json: params.value, result: params.value }
    case 'agentbox.llm':
      return callModel(node, params, tools.host)
    case 'agentbox.approval':
      throw new Error('gates are run by the executor')
  }
}

async function callModel(node: WorkflowNode, params: Record<string, unknown>, host: EngineHost): Promise<NodeResult> {
  const prompt = typeof params.prompt === 'string' ? params.prompt : JSON.stringify(params.prompt)
  if (host.stepData) {
    // Dry runs never call a model: the caller's step data, or a stub marked simulated.
    const given = stepDataOf(host.stepData, node.id)
    return { port: 'main', json: given === undefined ? { text: `[simulated] ${prompt.slice(0, 200)}` } : cloneJson(given), simulated: true }
  }
  try {
    const reply = await host.callLlm({
      prompt,
      system: typeof params.system === 'string' ? params.system : undefined,
      model: typeof params.model === 'string' ? params.model : undefined,
      provider: typeof params.provider === 'string' ? params.provider : undefined,
    })
    return { port: 'main', json: { text: reply.text } }
  } catch (error) {
    if (error instanceof StepError) throw error
    const message = error instanceof Error ? error.message : String(error)
    // The provider decided retryability where the error was made (time-outs, network, 408, 429, 5xx); anything else
    // reaching here is not a provider answer at all, and another try would not change it.
    throw new StepError('llm_error', message, error instanceof ProviderError && error.retryable)
  }
}
