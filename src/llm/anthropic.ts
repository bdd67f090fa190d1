// The anthropic provider: the Messages API through Anthropic's official client, streamed (message_start,
// content_block_start/delta/stop, message_delta, message_stop), tools as `tool_use` / `tool_result` blocks. The
// client's requests go through the guarded outbound client (its `fetch` option).
import type { LlmEndpoint } from '../config.ts'
import type { FetchLike } from '../platform/outbound/fetch-adapter.ts'
import {
  type ChatEvent,
  type ChatMessage,
  type ChatProvider,
  type ChatRequest,
  type ChatTurn,
  collectTurn,
  parseToolArguments,
  type StopReason,
} from './provider.ts'
import { type RemoteCall, streamRemote } from './remote.ts'

type AnthropicModule = typeof import('@anthropic-ai/sdk')

const NO_KEY = 'no-key'
const DEFAULT_BASE_URL = 'https://api.anthropic.com'
/** The Messages API requires a cap; a scheduled prompt's answer is a report, not a book. */
const MAX_TOKENS = 4096

/** One streamed event, as much of it as is read. */
interface WireEvent {
  type: string
  index?: number
  message?: { usage?: { input_tokens?: number; output_tokens?: number } }
  content_block?: { type: string; id?: string; name?: string; text?: string }
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null }
  usage?: { input_tokens?: number | null; output_tokens?: number }
}

type Block = Record<string, unknown>
interface WireMessage {
  role: 'user' | 'assistant'
  content: Block[]
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
}

/**
 * Our messages in the Messages API shape: system text goes to `system`; tool results become `tool_result` blocks of a
 * user message; consecutive messages of one role are merged, as the API wants turns to alternate.
 */
export function anthropicMessages(system: string | null, messages: ChatMessage[]): { system: string | null; messages: WireMessage[] } {
  const systemParts = system ? [system] : []
  const wire: WireMessage[] = []
  const push = (role: WireMessage['role'], blocks: Block[]) => {
    const last = wire.at(-1)
    if (last?.role === role) last.content.push(...blocks)
    else wire.push({ role, content: blocks })
  }
  for (const message of messages) {
    if (message.role === 'system') systemParts.push(message.content)
    else if (message.role === 'user') push('user', [{ type: 'text', text: message.content }])
    else if (message.role === 'tool')
      push('user', [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content, ...(message.is_error && { is_error: true }) }])
    else {
      const blocks: Block[] = message.content === '' ? [] : [{ type: 'text', text: message.content }]
      for (const call of message.tool_calls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments })
      push('assistant', blocks)
    }
  }
  // A user message of one text block is sent as a plain string, the API's simplest form.
  for (const message of wire) {
    const only = message.content.length === 1 ? message.content[0] : null
    if (only?.type === 'text') (message as unknown as { content: unknown }).content = only.text
  }
  return { system: systemParts.length ? systemParts.join('\n\n') : null, messages: wire }
}

async function* anthropicEvents(events: AsyncIterable<WireEvent>): AsyncGenerator<ChatEvent> {
  const calls = new Map<number, { id: string; name: string; raw: string }>()
  let input = 0
  let output = 0
  let reported = false
  let stop: string | null = null
  for await (const event of events) {
    if (event.type === 'message_start' && event.message?.usage) {
      input = event.message.usage.input_tokens ?? 0
      output = event.message.usage.output_tokens ?? 0
      reported = true
    } else if (event.type === 'content_block_start' && event.content_block) {
      const block = event.content_block
      const index = event.index ?? calls.size
      if (block.type === 'tool_use') {
        const id = block.id ?? `toolu_${index}`
        calls.set(index, { id, name: block.name ?? '', raw: '' })
        yield { type: 'tool_call_start', index, id, name: block.name ?? '' }
      } else if (block.type === 'text' && block.text) yield { type: 'text_delta', text: block.text }
    } else if (event.type === 'content_block_delta' && event.delta) {
      if (event.delta.type === 'text_delta' && event.delta.text) yield { type: 'text_delta', text: event.delta.text }
      else if (event.delta.type === 'input_json_delta' && event.delta.partial_json) {
        const call = calls.get(event.index ?? -1)
        if (call) {
          call.raw += event.delta.partial_json
          yield { type: 'tool_call_delta', index: event.index!, arguments: event.delta.partial_json }
        }
      }
    } else if (event.type === 'content_block_stop') {
      const call = calls.get(event.index ?? -1)
      if (call) yield { type: 'tool_call_end', index: event.index!, call: parseToolArguments(call.id, call.name, call.raw) }
    } else if (event.type === 'message_delta') {
      if (event.delta?.stop_reason) stop = event.delta.stop_reason
      // Usage in message_delta is cumulative for the message.
      if (event.usage) {
        if (typeof event.usage.input_tokens === 'number') input = event.usage.input_tokens
        if (typeof event.usage.output_tokens === 'number') output = event.usage.output_tokens
        reported = true
      }
    }
  }
  if (reported) yield { type: 'usage', usage: { input_tokens: input, output_tokens: output } }
  yield { type: 'stop', reason: stop === null ? (calls.size ? 'tool_use' : 'end_turn') : (STOP_REASONS[stop] ?? 'other') }
}

export class AnthropicProvider implements ChatProvider {
  readonly name = 'anthropic' as const
  readonly #endpoint: LlmEndpoint
  readonly #timeoutMs: number
  readonly #fetch: FetchLike
  #client: Promise<{ sdk: AnthropicModule; client: InstanceType<AnthropicModule['default']> }> | null = null

  /** `fetch` is the guarded outbound client's (guardedFetch): nothing leaves the machine around it. */
  constructor(endpoint: LlmEndpoint, timeoutMs: number, fetch: FetchLike) {
    this.#endpoint = endpoint
    this.#timeoutMs = timeoutMs
    this.#fetch = fetch
  }

  get #label() {
    return `anthropic provider at ${this.#endpoint.baseUrl ?? DEFAULT_BASE_URL}`
  }

  /** The client library costs ~70 ms to import, so it loads on the first call, not at boot. */
  #load() {
    this.#client ??= import('@anthropic-ai/sdk').then((sdk) => ({
      sdk,
      // An explicit key keeps the library from reading ANTHROPIC_* variables or its credential files.
      client: new sdk.default({
        apiKey: this.#endpoint.apiKey ?? NO_KEY,
        baseURL: this.#endpoint.baseUrl ?? DEFAULT_BASE_URL,
        webhookKey: null,
        timeout: this.#timeoutMs,
        logLevel: 'off',
        fetch: this.#fetch,
      }),
    }))
    return this.#client
  }

  async *stream(request: ChatRequest): AsyncGenerator<ChatEvent> {
    const { sdk, client } = await this.#load()
    const call: RemoteCall = { provider: this.name, label: this.#label, timeoutMs: this.#timeoutMs, apiKey: this.#endpoint.apiKey, errors: sdk }
    const { system, messages } = anthropicMessages(request.system, request.messages)
    const body = {
      model: request.model,
      max_tokens: request.max_tokens ?? MAX_TOKENS,
      ...(system && { system }),
      messages,
      stream: true as const,
      ...(request.tools?.length && {
        tools: request.tools.map((tool) => ({ name: tool.name, ...(tool.description && { description: tool.description }), input_schema: tool.input_schema })),
      }),
    }
    yield* streamRemote(
      call,
      request.signal,
      async (signal) =>
        (await client.messages.create(body as unknown as Parameters<typeof client.messages.create>[0] & { stream: true }, {
          signal,
        })) as AsyncIterable<WireEvent>,
      anthropicEvents,
    )
  }

  complete(request: ChatRequest): Promise<ChatTurn> {
    return collectTurn(this.name, request.model, this.stream(request), this.#label)
  }
}
