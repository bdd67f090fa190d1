// One model's side of a chat turn: ask the model (streamed), run the tools it calls through the toolbox, give it their
// results, and again, for at most MAX_TOOL_ROUNDS rounds of tools. Every call of a tool the turn was given runs through
// `toolbox.run` with the set it came from; a name the turn was not given is answered with an error result and never
// run, so nothing a tool returns (a prompt-injected result naming another agent's tool) can widen what the model may
// call. Failures end the turn with a readable error and keep what was produced.
import type { ChatMessage, ChatProvider, TokenUsage, ToolCall } from '../../llm/provider.ts'
import { ProviderError } from '../../llm/provider.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import { DomainError } from '../../platform/errors.ts'
import { errorFields, type Logger } from '../../platform/log.ts'
import type { ToolOutcome } from '../../platform/tools/tool.ts'
import type { NewThreadMessage } from '../threads/index.ts'
import type { Toolbox } from '../toolbox/index.ts'
import type { ChatTool, ChatTools } from './chat-tools.ts'
import type { Emit, ModelRef, StopReason, ToolCallView } from './events.ts'

/** Rounds of tool calls one turn may make; the model is asked once more after the last, and its calls are then dropped. */
export const MAX_TOOL_ROUNDS = 8
/** A tool's answer as the model and the thread get it: past this it is cut, and the cut is said. */
export const MAX_RESULT_CHARS = 50_000
export const ROUND_LIMIT_NOTE = `Stopped: the model asked for tools more than ${MAX_TOOL_ROUNDS} times in one turn. Ask again to continue.`
const NOT_RUN_MALFORMED = 'Not run: another tool call of the same step was malformed, so none of them ran'
const CLIENT_SOURCE = 'agentbox-copilot'

export interface LoopContext {
  readonly principal: Principal
  readonly toolbox: Toolbox
  readonly tools: ChatTools
  readonly system: string
  /** The thread as the model reads it, ending with the user's message. */
  readonly history: readonly ChatMessage[]
  readonly threadId: string
  /** The user's message as typed: what each tool call's record keeps as user_input. */
  readonly userInput: string
  readonly signal: AbortSignal
  readonly emit: Emit
  readonly logger: Logger
  /** Keeps one round (the assistant message with its calls, then their results) in the thread; the first model only. */
  readonly saveRound?: (messages: NewThreadMessage[]) => Promise<void>
}

export interface ModelSide {
  readonly ref: ModelRef
  readonly provider: ChatProvider
}

export interface TurnFailure {
  readonly detail: string
  /** What a JSON answer's status is: 502 (the model failed or answered badly), 504 (it timed out), 409 (thread gone). */
  readonly status: 409 | 502 | 504
}

export interface ModelOutcome {
  readonly ref: ModelRef
  /** Every model call's text, in order, with the notes the turn added: what the deltas added up to. */
  text: string
  /** The last model call's text with the notes: the assistant message the thread keeps at the end of the turn. */
  lastText: string
  lastUsage: TokenUsage | null
  /** Every model call of this side together; null when the provider reported none. */
  usage: TokenUsage | null
  readonly toolCalls: ToolCallView[]
  stopReason: StopReason
  error: TurnFailure | null
}

const clipResult = (text: string) =>
  text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}… [cut: ${text.length - MAX_RESULT_CHARS} more characters]` : text

const addUsage = (sum: TokenUsage | null, more: TokenUsage | null): TokenUsage | null =>
  more === null ? sum : { input_tokens: (sum?.input_tokens ?? 0) + more.input_tokens, output_tokens: (sum?.output_tokens ?? 0) + more.output_tokens }

export function failureOf(error: unknown): TurnFailure | null {
  if (error instanceof ProviderError) return { detail: error.message, status: error.code === 'timeout' ? 504 : 502 }
  if (error instanceof DomainError && error.kind === 'not_found') return { detail: 'The thread was deleted during the turn', status: 409 }
  return null
}

/** A workflow run a tool started or resumed that now waits for a person: the chat links to its approval. */
function approvalOf(tool: ChatTool, outcome: ToolOutcome): ToolCallView['approval'] {
  const name = tool.description.name
  if (!tool.fromAgent || !outcome.ok || (name !== 'run_workflow' && name !== 'resume_workflow')) return undefined
  const run = outcome.content as { run_id?: unknown; agent?: unknown; workflow_name?: unknown; status?: unknown; waiting?: { message?: unknown } | null }
  if (run === null || typeof run !== 'object' || run.status !== 'waiting_human' || typeof run.run_id !== 'string') return undefined
  return {
    run_id: run.run_id,
    agent: String(run.agent ?? ''),
    workflow_name: String(run.workflow_name ?? ''),
    message: typeof run.waiting?.message === 'string' ? run.waiting.message : '',
    url: `/approvals#run-${run.run_id}`,
  }
}

export const approvalNote = (approval: NonNullable<ToolCallView['approval']>) =>
  `The workflow "${approval.workflow_name}" is waiting for your approval${approval.message ? `: ${approval.message}` : ''}. Approve or reject it on the Approvals page: ${approval.url}`

interface Reply {
  text: string
  calls: ToolCall[]
  usage: TokenUsage | null
  stop: string | null
}

export async function runModel(side: ModelSide, context: LoopContext): Promise<ModelOutcome> {
  const { ref, provider } = side
  const { emit, signal, tools } = context
  const outcome: ModelOutcome = { ref, text: '', lastText: '', lastUsage: null, usage: null, toolCalls: [], stopReason: 'end_turn', error: null }
  const messages: ChatMessage[] = [...context.history]
  const definitions = tools.definitions.length > 0 ? tools.definitions : undefined

  /** Text of the turn: a later model call's text starts a new paragraph, so the deltas still add up to the message. */
  const say = (text: string, call: { text: string }) => {
    if (text === '') return
    if (call.text === '' && outcome.text !== '') {
      outcome.text += '\n\n'
      emit({ event: 'delta', data: { text: '\n\n', model: ref } })
    }
    call.text += text
    outcome.text += text
    emit({ event: 'delta', data: { text, model: ref } })
  }

  const ask = async (): Promise<Reply> => {
    const reply: Reply = { text: '', calls: [], usage: null, stop: null }
    const calls = new Map<number, ToolCall>()
    try {
      for await (const event of provider.stream({ model: ref.model, system: context.system, messages, tools: definitions, signal })) {
        if (event.type === 'text_delta') say(event.text, reply)
        else if (event.type === 'tool_call_end') calls.set(event.index, event.call)
        else if (event.type === 'usage') reply.usage = event.usage
        else if (event.type === 'stop') reply.stop = event.reason
      }
    } finally {
      // What a failed call produced still counts: its text is kept and its usage (if reported) added.
      outcome.usage = addUsage(outcome.usage, reply.usage)
      outcome.lastUsage = reply.usage
      outcome.lastText = reply.text
    }
    reply.calls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)
    if (reply.text === '' && reply.calls.length === 0)
      throw new ProviderError(provider.name, `The model ${ref.provider}/${ref.model} returned no text`, { retryable: false, code: 'bad_response' })
    return reply
  }

  /** Runs one round's calls in order; none of them when one is malformed (the model's intent is then unclear). */
  const runRound = async (calls: ToolCall[]): Promise<{ results: NewThreadMessage[]; malformed: ToolCall | undefined }> => {
    const malformed = calls.find((call) => call.invalid_arguments)
    const results: NewThreadMessage[] = []
    for (const call of calls) {
      const tool = tools.find(call.name)
      const meta = tool?.description._meta as Record<string, unknown> | undefined
      emit({ event: 'tool_call', data: { id: call.id, name: call.name, arguments: call.arguments, model: ref, ...(meta && { _meta: meta }) } })
      let isError = true
      let content: string
      let approval: ToolCallView['approval']
      if (call.invalid_arguments) content = call.invalid_arguments.message
      else if (malformed) content = NOT_RUN_MALFORMED
      else if (!tool) content = `Unknown tool: ${call.name}. Only the tools offered in this chat can be called.`
      else {
        const run = await context.toolbox.run(context.principal, tool.set, {
          name: call.name,
          arguments: call.arguments,
          clientSource: CLIENT_SOURCE,
          conversationId: context.threadId,
          userInput: context.userInput,
        })
        isError = !run.outcome.ok
        content = clipResult(run.text)
        approval = approvalOf(tool, run.outcome)
      }
      const view: ToolCallView = {
        id: call.id,
        name: call.name,
        arguments: call.arguments,
        is_error: isError,
        content,
        ...(meta && { _meta: meta }),
        ...(approval && { approval }),
      }
      outcome.toolCalls.push(view)
      emit({ event: 'tool_result', data: { ...view, model: ref } })
      // The thread keeps what the console needs to draw the result again: the tool's _meta (its view) and the approval.
      const kept = { ...(meta && { _meta: meta }), ...(approval && { approval }) }
      results.push({
        role: 'tool',
        tool_call_id: call.id,
        name: call.name,
        content,
        ...(isError && { is_error: true }),
        ...(Object.keys(kept).length > 0 && { metadata: kept }),
      })
    }
    return { results, malformed }
  }

  let rounds = 0
  try {
    for (;;) {
      const reply = await ask()
      if (reply.calls.length === 0) {
        outcome.stopReason = reply.stop === 'max_tokens' ? 'max_tokens' : reply.stop === 'refusal' ? 'refusal' : 'end_turn'
        break
      }
      if (rounds === MAX_TOOL_ROUNDS) {
        // Its calls are not run, so the thread keeps only its text: no call is left without a result.
        say(`${reply.text ? '\n\n' : ''}${ROUND_LIMIT_NOTE}`, reply)
        outcome.lastText = reply.text
        outcome.stopReason = 'round_limit'
        break
      }
      rounds++
      const assistant: ChatMessage = { role: 'assistant', content: reply.text, tool_calls: reply.calls }
      const { results, malformed } = await runRound(reply.calls)
      messages.push(assistant, ...(results as ChatMessage[]))
      // The round's text went with its calls into the thread; the turn's last message is what comes after.
      outcome.lastText = ''
      await context.saveRound?.([{ ...assistant, model: ref, usage: reply.usage }, ...results])
      if (malformed) {
        outcome.stopReason = 'malformed_tool_call'
        outcome.error = { detail: `The model sent a malformed tool call: ${malformed.invalid_arguments!.message}`, status: 502 }
        break
      }
      if (signal.aborted) {
        outcome.stopReason = 'interrupted'
        break
      }
    }
  } catch (error) {
    const failure = failureOf(error)
    if (!failure) {
      context.logger.error('chat turn failed', { model: `${ref.provider}/${ref.model}`, thread_id: context.threadId, ...errorFields(error) })
      outcome.error = { detail: 'The turn failed unexpectedly; the server log has the details', status: 502 }
    } else outcome.error = failure
    outcome.stopReason = error instanceof ProviderError && error.code === 'interrupted' ? 'interrupted' : 'error'
  }
  // A run left waiting for a person is said in the chat, whatever the model wrote, with where to decide it.
  const last = { text: outcome.lastText }
  for (const approval of waitingApprovals(outcome.toolCalls)) say(`${last.text ? '\n\n' : ''}${approvalNote(approval)}`, last)
  outcome.lastText = last.text
  return outcome
}

/** The runs still waiting at the end of the turn: each approval a tool reported, unless a later call named its run. */
function waitingApprovals(calls: readonly ToolCallView[]): NonNullable<ToolCallView['approval']>[] {
  const waiting: NonNullable<ToolCallView['approval']>[] = []
  for (const [index, call] of calls.entries()) {
    const approval = call.approval
    if (approval && !calls.slice(index + 1).some((later) => later.arguments.run_id === approval.run_id)) waiting.push(approval)
  }
  return waiting
}
