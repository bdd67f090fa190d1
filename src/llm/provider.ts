// The one model-provider interface: messages that carry tool calls and tool results, tools as JSON Schema, a reply
// streamed as events (text deltas, tool calls, usage, stop reason) and `complete`, which collects a whole turn. Every
// provider (mock, openai, anthropic) speaks it; tasks, workflow llm steps and chat use nothing else.
import type { LlmProviderName } from '../config.ts'

/** A tool the model may call; `input_schema` is a JSON Schema object (`type: 'object'`), sent in the provider's own shape. */
export interface ToolDefinition {
  name: string
  description?: string
  input_schema: Record<string, unknown>
}

/**
 * A tool call the model made. `arguments` is always an object; when the model sent arguments that are not a JSON object
 * (malformed JSON, an array), `arguments` is `{}` and `invalid_arguments` says what came and why it was refused, so the
 * caller can answer with an error result instead of running the tool.
 */
export interface ToolCall {
  id: string
  name: string
  arguments: Record<string, unknown>
  invalid_arguments?: { raw: string; message: string }
}

export interface TokenUsage {
  input_tokens: number
  output_tokens: number
}

/**
 * Why the model stopped: `end_turn` (done), `tool_use` (wants its tool calls run and the results sent back),
 * `max_tokens` (cut at the token cap), `stop_sequence`, `refusal` (declined or filtered), `other`.
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'other'

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  /** `content` may be empty when the turn only called tools. */
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  /** The result of one tool call, answering the assistant message that made it. */
  | { role: 'tool'; tool_call_id: string; name: string; content: string; is_error?: boolean }

export type ChatRole = ChatMessage['role']

export interface ChatRequest {
  model: string
  /** Instructions (an agent's, a user's context); sent the provider's way (OpenAI: first system message; Anthropic: `system`). */
  system: string | null
  /** Oldest first; the last one is usually the user's prompt or a tool result. */
  messages: ChatMessage[]
  /** Offered tools; none means the model answers with text only. */
  tools?: ToolDefinition[]
  /** The reply's token cap. Default: the provider's own (Anthropic requires one: 4096). */
  max_tokens?: number
  /** Aborts the call (shutdown, a client that went away); the provider's own deadline is applied inside. */
  signal?: AbortSignal
}

/**
 * One event of a streamed reply, in order: text deltas and tool-call events as they come (a call's start, its
 * arguments in pieces, its end with the parsed arguments; several calls may interleave, told apart by `index`), then
 * `usage` once when the provider reports it, then `stop` last.
 */
export type ChatEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; arguments: string }
  | { type: 'tool_call_end'; index: number; call: ToolCall }
  | { type: 'usage'; usage: TokenUsage }
  | { type: 'stop'; reason: StopReason }

/** A whole turn, collected from the events. */
export interface ChatTurn {
  /** The deltas joined; may be empty when the turn only called tools. */
  text: string
  tool_calls: ToolCall[]
  /** Null when the provider reported none (some OpenAI-compatible servers do not). */
  usage: TokenUsage | null
  stop_reason: StopReason
  provider: LlmProviderName
  model: string
}

export interface ChatProvider {
  readonly name: LlmProviderName
  /** The reply as it is produced. Fails with ProviderError (also mid-stream); ending the iteration early aborts the call. */
  stream(request: ChatRequest): AsyncIterable<ChatEvent>
  /** `stream` collected into one turn; a turn with neither text nor tool calls is a ProviderError. */
  complete(request: ChatRequest): Promise<ChatTurn>
}

/**
 * What kind of failure: `http` (the provider answered with an error status), `timeout` (no answer, or silence
 * mid-stream, past the deadline), `unreachable` (no connection, refused by the outbound policy, or cut off),
 * `bad_response` (an answer that is not the wire format, or has nothing in it), `interrupted` (shutdown or the caller's
 * abort).
 */
export type ProviderErrorCode = 'http' | 'timeout' | 'unreachable' | 'bad_response' | 'interrupted'

/** What a caller may do about a failed call, decided where the error is made rather than read back from its text. */
export interface ProviderErrorFacts {
  /** True for time-outs, network failures, HTTP 408, 429 and 5xx: the same call may well succeed later. */
  retryable: boolean
  /** The HTTP status the provider answered with, when it answered at all. */
  status?: number
  code?: ProviderErrorCode
}

/** HTTP statuses worth another try: request time-out, rate limit, and any server-side failure. */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500

/**
 * The only error a provider throws. Its message is shown to users as a run's `error`, so it is one readable sentence:
 * no stack, no request body, never an API key. `code`, `retryable` and `status` are for code (workflow retries, chat's
 * error event), so nothing has to match the sentence.
 */
export class ProviderError extends Error {
  readonly provider: LlmProviderName
  readonly retryable: boolean
  readonly status: number | undefined
  readonly code: ProviderErrorCode
  constructor(provider: LlmProviderName, message: string, facts: ProviderErrorFacts = { retryable: false }) {
    super(message)
    this.name = 'ProviderError'
    this.provider = provider
    this.retryable = facts.retryable
    this.status = facts.status
    this.code = facts.code ?? (facts.status === undefined ? 'bad_response' : 'http')
  }
}

/** Shutdown aborts in-flight calls with this reason, so the run's error says why. */
export const SHUTDOWN_REASON = 'the server is shutting down'

/** Collects a streamed reply into one turn. */
export async function collectTurn(provider: LlmProviderName, model: string, events: AsyncIterable<ChatEvent>, label: string = provider): Promise<ChatTurn> {
  let text = ''
  const calls = new Map<number, ToolCall>()
  let usage: TokenUsage | null = null
  let stop: StopReason | null = null
  for await (const event of events) {
    if (event.type === 'text_delta') text += event.text
    else if (event.type === 'tool_call_end') calls.set(event.index, event.call)
    else if (event.type === 'usage') usage = event.usage
    else if (event.type === 'stop') stop = event.reason
  }
  const tool_calls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)
  if (text.length === 0 && tool_calls.length === 0)
    throw new ProviderError(provider, `The ${label} returned no text`, { retryable: false, code: 'bad_response' })
  return { text, tool_calls, usage, stop_reason: stop ?? (tool_calls.length > 0 ? 'tool_use' : 'end_turn'), provider, model }
}

const MAX_RAW_ARGUMENTS = 2000

/** A tool call's arguments as the model sent them (JSON text): an object, or the reason it is not one. */
export function parseToolArguments(id: string, name: string, raw: string): ToolCall {
  if (raw.trim() === '') return { id, name, arguments: {} }
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return {
      id,
      name,
      arguments: {},
      invalid_arguments: { raw: clip(raw, MAX_RAW_ARGUMENTS), message: `Malformed JSON in the arguments of "${name}": ${reason}` },
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { id, name, arguments: {}, invalid_arguments: { raw: clip(raw, MAX_RAW_ARGUMENTS), message: `The arguments of "${name}" are not a JSON object` } }
  return { id, name, arguments: value as Record<string, unknown> }
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)
