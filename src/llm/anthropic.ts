// The anthropic provider: the Messages API through Anthropic's official client.
import type { LlmEndpoint } from '../config.ts'
import { ProviderError, type ChatProvider, type ChatReply, type ChatRequest } from './provider.ts'
import { callRemote } from './remote.ts'

type AnthropicModule = typeof import('@anthropic-ai/sdk')

const NO_KEY = 'no-key'
const DEFAULT_BASE_URL = 'https://api.anthropic.com'
/** The Messages API requires a cap; a scheduled prompt's answer is a report, not a book. */
const MAX_TOKENS = 4096

export class AnthropicProvider implements ChatProvider {
  readonly name = 'anthropic' as const
  readonly #endpoint: LlmEndpoint
  readonly #timeoutMs: number
  #client: Promise<{ sdk: AnthropicModule; client: InstanceType<AnthropicModule['default']> }> | null = null

  constructor(endpoint: LlmEndpoint, timeoutMs: number) {
    this.#endpoint = endpoint
    this.#timeoutMs = timeoutMs
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
      }),
    }))
    return this.#client
  }

  async complete({ model, system, messages, signal }: ChatRequest): Promise<ChatReply> {
    const { sdk, client } = await this.#load()
    const label = `anthropic provider at ${this.#endpoint.baseUrl ?? DEFAULT_BASE_URL}`
    const call = { provider: this.name, label, timeoutMs: this.#timeoutMs, apiKey: this.#endpoint.apiKey, errors: sdk }
    const text = await callRemote(call, signal, async (deadline) => {
      const message = await client.messages.create({ model, max_tokens: MAX_TOKENS, ...(system ? { system } : {}), messages }, { signal: deadline })
      const content = (message.content ?? [])
        .filter((block): block is Extract<typeof block, { type: 'text' }> => block.type === 'text')
        .map((block) => block.text)
        .join('')
      if (content.length === 0) throw new ProviderError(this.name, `The ${label} returned no text`, { retryable: false })
      return content
    })
    return { text }
  }
}
