// The openai provider: any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp) via the official
// client, streamed (`stream: true` with `stream_options.include_usage`), tools in the `tools`/`tool_calls` shape. The
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

type OpenAIModule = typeof import('openai')

/** Local servers (Ollama, llama.cpp) take no key, but the client insists on one; they ignore this placeholder. */
const NO_KEY = 'no-key'
const DEFAULT_BASE_URL = 'https://api.openai.com/v1'

/** One streamed chunk, as much of it as is read (servers differ in what they leave out). */
interface Chunk {
  choices?: {
    delta?: {
      content?: string | null
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[]
    }
    finish_reason?: string | null
  }[]
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null
}

const STOP_REASONS: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
}

/** Our messages in the chat-completions shape. */
export function openAiMessages(system: string | null, messages: ChatMessage[]): unknown[] {
  const wire: unknown[] = system ? [{ role: 'system', content: system }] : []
  for (const message of messages) {
    if (message.role === 'assistant' && message.tool_calls?.length) {
      wire.push({
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.tool_calls.map((call) => ({
          id: call.id,
          type: 'function',
          // What the model sent, even when it was not valid JSON, so its next turn sees its own mistake.
          function: { name: call.name, arguments: call.invalid_arguments?.raw ?? JSON.stringify(call.arguments) },
        })),
      })
    } else if (message.role === 'tool') {
      // Chat completions have no error flag on a tool result: the content says it.
      wire.push({ role: 'tool', tool_call_id: message.tool_call_id, content: message.content })
    } else {
      wire.push({ role: message.role, content: message.content })
    }
  }
  return wire
}

/** Chunks to events: tool calls assembled by index (arguments arrive in pieces, several calls may interleave). */
async function* openAiEvents(chunks: AsyncIterable<Chunk>): AsyncGenerator<ChatEvent> {
  const calls = new Map<number, { id: string; name: string; raw: string; started: boolean }>()
  let finish: string | null = null
  let usage: ChatEvent | null = null
  for await (const chunk of chunks) {
    if (chunk.usage) usage = { type: 'usage', usage: { input_tokens: chunk.usage.prompt_tokens ?? 0, output_tokens: chunk.usage.completion_tokens ?? 0 } }
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta
      if (delta?.content) yield { type: 'text_delta', text: delta.content }
      for (const [position, piece] of (delta?.tool_calls ?? []).entries()) {
        const index = piece.index ?? position
        let call = calls.get(index)
        if (!call) {
          call = { id: '', name: '', raw: '', started: false }
          calls.set(index, call)
        }
        if (piece.id) call.id = piece.id
        if (piece.function?.name) call.name += piece.function.name
        if (!call.started && call.name) {
          call.started = true
          if (!call.id) call.id = `call_${index}`
          yield { type: 'tool_call_start', index, id: call.id, name: call.name }
        }
        const args = piece.function?.arguments
        if (args) {
          call.raw += args
          if (call.started) yield { type: 'tool_call_delta', index, arguments: args }
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason
    }
  }
  for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
    if (!call.started) continue
    yield { type: 'tool_call_end', index, call: parseToolArguments(call.id, call.name, call.raw) }
  }
  if (usage) yield usage
  const started = [...calls.values()].some((call) => call.started)
  yield { type: 'stop', reason: finish === null ? (started ? 'tool_use' : 'end_turn') : (STOP_REASONS[finish] ?? 'other') }
}

export class OpenAIProvider implements ChatProvider {
  readonly name = 'openai' as const
  readonly #endpoint: LlmEndpoint
  readonly #timeoutMs: number
  readonly #fetch: FetchLike
  #client: Promise<{ sdk: OpenAIModule; client: InstanceType<OpenAIModule['default']> }> | null = null

  /** `fetch` is the guarded outbound client's (guardedFetch): nothing leaves the machine around it. */
  constructor(endpoint: LlmEndpoint, timeoutMs: number, fetch: FetchLike) {
    this.#endpoint = endpoint
    this.#timeoutMs = timeoutMs
    this.#fetch = fetch
  }

  get #label() {
    return `openai provider at ${this.#endpoint.baseUrl ?? DEFAULT_BASE_URL}`
  }

  /** The client library costs ~60 ms to import, so it loads on the first call, not at boot. */
  #load() {
    this.#client ??= import('openai').then((sdk) => ({
      sdk,
      // Every option is explicit so the library never falls back to OPENAI_* environment variables.
      client: new sdk.default({
        apiKey: this.#endpoint.apiKey ?? NO_KEY,
        baseURL: this.#endpoint.baseUrl ?? DEFAULT_BASE_URL,
        organization: null,
        project: null,
        webhookSecret: null,
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
    const body = {
      model: request.model,
      messages: openAiMessages(request.system, request.messages),
      stream: true as const,
      stream_options: { include_usage: true },
      ...(request.tools?.length && {
        tools: request.tools.map((tool) => ({
          type: 'function' as const,
          function: { name: tool.name, ...(tool.description && { description: tool.description }), parameters: tool.input_schema },
        })),
      }),
      ...(request.max_tokens !== undefined && { max_tokens: request.max_tokens }),
    }
    yield* streamRemote(
      call,
      request.signal,
      async (signal) =>
        (await client.chat.completions.create(body as Parameters<typeof client.chat.completions.create>[0] & { stream: true }, {
          signal,
        })) as AsyncIterable<Chunk>,
      openAiEvents,
    )
  }

  complete(request: ChatRequest): Promise<ChatTurn> {
    return collectTurn(this.name, request.model, this.stream(request), this.#label)
  }
}
