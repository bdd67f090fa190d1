// The openai provider: any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp) via the official client.
import type { LlmEndpoint } from '../config.ts'
import { ProviderError, type ChatProvider, type ChatReply, type ChatRequest } from './provider.ts'
import { callRemote } from './remote.ts'

type OpenAIModule = typeof import('openai')

/** Local servers (Ollama, llama.cpp) take no key, but the client insists on one; they ignore this placeholder. */
const NO_KEY = 'no-key'
const DEFAULT_BASE_URL = 'https://api.openai.com/v1'

export class OpenAIProvider implements ChatProvider {
  readonly name = 'openai' as const
  readonly #endpoint: LlmEndpoint
  readonly #timeoutMs: number
  #client: Promise<{ sdk: OpenAIModule; client: InstanceType<OpenAIModule['default']> }> | null = null

  constructor(endpoint: LlmEndpoint, timeoutMs: number) {
    this.#endpoint = endpoint
    this.#timeoutMs = timeoutMs
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
      }),
    }))
    return this.#client
  }

  async complete({ model, system, messages, signal }: ChatRequest): Promise<ChatReply> {
    const { sdk, client } = await this.#load()
    const label = `openai provider at ${this.#endpoint.baseUrl ?? DEFAULT_BASE_URL}`
    const call = { provider: this.name, label, timeoutMs: this.#timeoutMs, apiKey: this.#endpoint.apiKey, errors: sdk }
    const text = await callRemote(call, signal, async (deadline) => {
      const completion = await client.chat.completions.create(
        { model, messages: [...(system ? [{ role: 'system' as const, content: system }] : []), ...messages] },
        { signal: deadline },
      )
      const content = completion.choices?.[0]?.message?.content
      if (typeof content !== 'string' || content.length === 0) throw new ProviderError(this.name, `The ${label} returned no text`, { retryable: false })
      return content
    })
    return { text }
  }
}
