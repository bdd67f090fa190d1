// The engine's view of the server for one run: the clock, model providers, the cancel flag and trace collection.
import type { Clock } from '../../../platform/clock.ts'
import type { ModelProviders } from '../../../llm/registry.ts'
import type { LlmProviderName } from '../../../config.ts'
import { StepError } from '../engine/errors.ts'
import type { EngineHost } from '../engine/types.ts'
import type { StepTrace } from '../engine/trace.ts'

export interface CancelHandle {
  cancelled: boolean
  agentId: string
  starterId: string
}

/**
 * `traces` collects step traces only when something will read them (recording not disabled, or include_data):
 * otherwise a run would hold every step's input and output until it ends, only for them to be thrown away.
 */
export function engineHost(
  clock: Clock,
  providers: ModelProviders,
  handle: CancelHandle,
  stepData: Record<string, unknown> | null,
  traces: StepTrace[] | null,
): EngineHost {
  return {
    clock,
    stepData,
    isCancelled: () => handle.cancelled,
    onTrace: traces ? (trace) => void traces.push(trace) : () => undefined,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    async callLlm(call) {
      const provider = call.provider ?? providers.default.provider
      if (!providers.isConfigured(provider)) throw new StepError('llm_not_configured', `Model provider "${provider}" is not configured on this server`)
      const model = call.model ?? providers.defaultModelFor(provider as LlmProviderName) ?? providers.default.model
      const reply = await providers
        .get(provider as LlmProviderName)!
        .complete({ model, system: call.system ?? null, messages: [{ role: 'user', content: call.prompt }] })
      return { text: reply.text, provider, model }
    },
  }
}
