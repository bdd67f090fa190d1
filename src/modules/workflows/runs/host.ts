// The engine's view of the server for one run: the clock, model providers, the cancel flag and trace collection.
import type { Clock } from '../../../platform/clock.ts'
import type { ModelProviders } from '../../../llm/registry.ts'
import type { LlmProviderName } from '../../../config.ts'
import { StepError } from '../engine/errors.ts'
import type { EngineHost } from '../engine/types.ts'
import { type StepRecorder, turnOfEventLoop } from './step-recorder.ts'

export interface CancelHandle {
  cancelled: boolean
  agentId: string
  starterId: string
  /**
   * Several instances: a cancel may be made on another instance, which can only move the stored row. Reads whether the
   * stored run is cancelled; undefined with one process (the cancel sets `cancelled` itself).
   */
  storedCancel?: () => Promise<boolean>
}

/** How often, at most, a busy run reads its stored status (between steps, on the event loop's turns). */
const STORED_CANCEL_EVERY_MS = 250

/**
 * Traces go to the run's recorder, which keeps what the answer and the recording need and nothing else; when the
 * engine gives the event loop a turn, the recorder first writes the step rows made since the last one.
 */
export function engineHost(
  clock: Clock,
  providers: ModelProviders,
  handle: CancelHandle,
  stepData: Record<string, unknown> | null,
  recorder: StepRecorder,
): EngineHost {
  let lastRead = Number.NEGATIVE_INFINITY
  /** After a wait (a model call) always, else at most every STORED_CANCEL_EVERY_MS: the next step sees the flag. */
  const readStoredCancel = async (always: boolean) => {
    if (!handle.storedCancel || handle.cancelled) return
    if (!always && performance.now() - lastRead < STORED_CANCEL_EVERY_MS) return
    lastRead = performance.now()
    if (await handle.storedCancel()) handle.cancelled = true
  }
  return {
    clock,
    stepData,
    isCancelled: () => handle.cancelled,
    onTrace: (trace) => recorder.add(trace),
    keeps: recorder.keeps,
    async turn() {
      await recorder.flush()
      await readStoredCancel(false)
      await turnOfEventLoop()
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    async callLlm(call) {
      const provider = call.provider ?? providers.default.provider
      if (!providers.isConfigured(provider)) throw new StepError('llm_not_configured', `Model provider "${provider}" is not configured on this server`)
      const model = call.model ?? providers.defaultModelFor(provider as LlmProviderName) ?? providers.default.model
      const reply = await providers
        .get(provider as LlmProviderName)!
        .complete({ model, system: call.system ?? null, messages: [{ role: 'user', content: call.prompt }] })
      await readStoredCancel(true)
      return { text: reply.text, provider, model }
    },
  }
}
