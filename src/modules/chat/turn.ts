// One chat turn once it has begun (its user message saved): the first model's side and, when comparing, the second's,
// side by side; then follow-up suggestions; then the turn's last assistant message in the thread, with the comparison
// and the suggestions kept as its metadata. Every step's events go to `emit`; what was produced is kept whatever fails.
import type { ChatMessage, TokenUsage } from '../../llm/provider.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import { DomainError } from '../../platform/errors.ts'
import { errorFields, type Logger } from '../../platform/log.ts'
import type { NewThreadMessage, ThreadsService } from '../threads/index.ts'
import type { Toolbox } from '../toolbox/index.ts'
import type { ChatTools } from './chat-tools.ts'
import type { Emit, ModelRef, ToolCallView } from './events.ts'
import { type ModelOutcome, type ModelSide, runModel } from './model-loop.ts'
import { followUpSuggestions } from './suggestions.ts'

/** How much of a comparison's tool results a thread keeps (the answer itself carries them whole). */
const KEPT_RESULT_CHARS = 2000

export interface TurnPlan {
  readonly principal: Principal
  readonly threadId: string
  readonly history: readonly ChatMessage[]
  readonly userInput: string
  readonly system: string
  readonly tools: ChatTools
  readonly primary: ModelSide
  readonly compare: ModelSide | null
  readonly suggestions: boolean
  readonly language: string
}

export interface TurnDeps {
  readonly toolbox: Toolbox
  readonly threads: ThreadsService
  readonly logger: Logger
}

export interface TurnResult {
  readonly threadId: string
  readonly primary: ModelOutcome
  readonly comparison: ModelOutcome | null
  readonly suggestions: string[] | null
  readonly usage: TokenUsage | null
}

const addUsage = (sum: TokenUsage | null, more: TokenUsage | null): TokenUsage | null =>
  more === null ? sum : { input_tokens: (sum?.input_tokens ?? 0) + more.input_tokens, output_tokens: (sum?.output_tokens ?? 0) + more.output_tokens }

const keptCall = (call: ToolCallView): ToolCallView =>
  call.content.length > KEPT_RESULT_CHARS ? { ...call, content: `${call.content.slice(0, KEPT_RESULT_CHARS)}…` } : call

/** The comparison as the thread keeps it on the first model's last message. */
function comparisonRecord(outcome: ModelOutcome) {
  return {
    provider: outcome.ref.provider,
    model: outcome.ref.model,
    content: outcome.text,
    stop_reason: outcome.stopReason,
    tool_calls: outcome.toolCalls.map(keptCall),
    usage: outcome.usage,
    error: outcome.error?.detail ?? null,
  }
}

export const messageEvent = (outcome: ModelOutcome) => ({
  role: 'assistant' as const,
  content: outcome.text,
  model: outcome.ref,
  stop_reason: outcome.stopReason,
})

export async function runTurn(deps: TurnDeps, plan: TurnPlan, emit: Emit, signal: AbortSignal): Promise<TurnResult> {
  const side = async (model: ModelSide, keep: boolean): Promise<ModelOutcome> => {
    const outcome = await runModel(model, {
      principal: plan.principal,
      toolbox: deps.toolbox,
      tools: plan.tools,
      system: plan.system,
      history: plan.history,
      threadId: plan.threadId,
      userInput: plan.userInput,
      signal,
      emit,
      logger: deps.logger,
      ...(keep && { saveRound: async (messages: NewThreadMessage[]) => void (await deps.threads.append(plan.threadId, messages)) }),
    })
    // Each side says how it ended as soon as it has: the other may still be working.
    if (outcome.text !== '') emit({ event: 'message', data: messageEvent(outcome) })
    if (outcome.error) emit({ event: 'error', data: { detail: outcome.error.detail, model: outcome.ref } })
    return outcome
  }
  const [primary, comparison] = await Promise.all([side(plan.primary, true), plan.compare ? side(plan.compare, false) : null])

  let usage = addUsage(primary.usage, comparison?.usage ?? null)
  let suggestions: string[] | null = null
  if (plan.suggestions) {
    suggestions = []
    if (!primary.error && !signal.aborted) {
      const made = await followUpSuggestions({
        side: plan.primary,
        language: plan.language,
        userMessage: plan.userInput,
        answer: primary.text,
        toolCalls: primary.toolCalls,
        offered: plan.tools.definitions.map((tool) => tool.name),
        signal,
      })
      suggestions = made.items
      usage = addUsage(usage, made.usage)
    }
  }

  // The turn's last words go into the thread once both sides are done, with what the thread keeps of the comparison.
  if (primary.lastText !== '') {
    const metadata: Record<string, unknown> = { stop_reason: primary.stopReason }
    if (comparison) metadata.comparison = comparisonRecord(comparison)
    if (suggestions?.length) metadata.suggestions = suggestions
    if (primary.error) metadata.error = primary.error.detail
    try {
      await deps.threads.append(plan.threadId, [{ role: 'assistant', content: primary.lastText, model: primary.ref, usage: primary.lastUsage, metadata }])
    } catch (error) {
      // A thread its owner deleted meanwhile stays deleted; anything else is the server's to report.
      if (!(error instanceof DomainError && error.kind === 'not_found'))
        deps.logger.error('chat reply not saved', { thread_id: plan.threadId, ...errorFields(error) })
    }
  }
  if (suggestions !== null) emit({ event: 'suggestions', data: { items: suggestions } })
  emit({ event: 'done', data: { thread_id: plan.threadId, ...(usage && { usage }) } })
  return { threadId: plan.threadId, primary, comparison, suggestions, usage }
}

const UNEXPECTED = 'The turn failed unexpectedly; the server log has the details'

/** The end of a turn that broke where no failure was expected: an error and done, as every turn ends. */
export function failedTurn(plan: TurnPlan, emit: Emit): TurnResult {
  const primary: ModelOutcome = {
    ref: plan.primary.ref,
    text: '',
    lastText: '',
    lastUsage: null,
    usage: null,
    toolCalls: [],
    stopReason: 'error',
    error: { detail: UNEXPECTED, status: 502 },
  }
  try {
    emit({ event: 'error', data: { detail: UNEXPECTED, model: plan.primary.ref } })
    emit({ event: 'done', data: { thread_id: plan.threadId } })
  } catch {
    // The stream is gone.
  }
  return { threadId: plan.threadId, primary, comparison: null, suggestions: null, usage: null }
}

export type { ModelRef }
