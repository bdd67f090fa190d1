// agentbox.llm: one model call (simulated in dry runs); the only step type that is retried.
import { ProviderError } from '../../../llm/provider.ts'
import { cloneJson } from '../expr/values.ts'
import { StepError } from '../engine/errors.ts'
import type { EngineHost, NodeResult } from '../engine/types.ts'
import type { WorkflowNode } from '../definition/types.ts'
import { stepDataOf } from './step-data.ts'
import type { NodeKind } from './kind.ts'

export const llmNode: NodeKind = {
  type: 'agentbox.llm',
  ports: ['main', 'error'],
  exclusivePorts: true,
  fallible: true,
  checkParams(params, { report }) {
    if (typeof params.prompt !== 'string' || params.prompt.trim() === '') report(['prompt'], 'prompt must be a non-empty string', params.prompt)
    for (const key of ['system', 'model', 'provider'])
      if (params[key] !== undefined && typeof params[key] !== 'string') report([key], `${key} must be a string`, params[key])
  },
  run: (node, params, _json, tools) => callModel(node, params, tools.host),
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
