// The configured model providers, built from Config: which exist, which one a task's chat_model picks, and its model.
// Every remote provider sends through the guarded outbound client, with the base URLs the operator configured for the
// providers allowed for them alone (see modelOutbound).
import type { LlmConfig, LlmProviderName } from '../config.ts'
import { type AllowEntry, parseAllowEntry } from '../platform/outbound/allow-list.ts'
import { type FetchLike, guardedFetch } from '../platform/outbound/fetch-adapter.ts'
import type { OutboundClient } from '../platform/outbound/outbound-client.ts'
import { AnthropicProvider } from './anthropic.ts'
import { MockProvider } from './mock.ts'
import { OpenAIProvider } from './openai.ts'
import type { ChatProvider } from './provider.ts'

/**
 * The allow entries a provider's base URL needs (`host:port`): AGENTBOX_OPENAI_BASE_URL and AGENTBOX_ANTHROPIC_BASE_URL
 * come from the same operator as AGENTBOX_OUTBOUND_ALLOW, so a model server on the LAN or on this machine (Ollama at
 * 127.0.0.1:11434) is reachable without listing it twice. Only for model calls: applications do not gain it.
 */
export function modelAllowEntries(config: LlmConfig): AllowEntry[] {
  const entries: AllowEntry[] = []
  for (const endpoint of [config.openai, config.anthropic]) {
    if (!endpoint?.baseUrl) continue
    const url = new URL(endpoint.baseUrl)
    const port = url.port || (url.protocol === 'https:' ? '443' : '80')
    entries.push(parseAllowEntry(`${url.hostname}:${port}`))
  }
  return entries
}

/**
 * The limits of a model call on the wire. Time-outs sit a second past the provider's own deadline (renewed by every
 * event), which fires first and words the error; a stream may run long as long as it keeps coming.
 */
export function modelFetch(outbound: OutboundClient, config: LlmConfig): FetchLike {
  const client = outbound.withAllowed(modelAllowEntries(config))
  return guardedFetch(client.stream, {
    // A long conversation with tool results is far larger than an API call's body.
    maxRequestBytes: 16 * 1024 * 1024,
    maxResponseBytes: 32 * 1024 * 1024,
    headersTimeoutMs: config.timeoutMs + 1000,
    idleTimeoutMs: config.timeoutMs + 1000,
    totalTimeoutMs: Math.max(15 * 60_000, config.timeoutMs * 10),
  })
}

export class ModelProviders {
  readonly #config: LlmConfig
  readonly #providers = new Map<LlmProviderName, ChatProvider>()

  constructor(config: LlmConfig, outbound: OutboundClient) {
    this.#config = config
    this.#providers.set('mock', new MockProvider())
    const fetch = modelFetch(outbound, config)
    if (config.openai) this.#providers.set('openai', new OpenAIProvider(config.openai, config.timeoutMs, fetch))
    if (config.anthropic) this.#providers.set('anthropic', new AnthropicProvider(config.anthropic, config.timeoutMs, fetch))
  }

  /** The instance default (AGENTBOX_LLM_PROVIDER and AGENTBOX_LLM_MODEL). */
  get default(): { provider: LlmProviderName; model: string } {
    return { provider: this.#config.provider, model: this.#config.model }
  }

  isConfigured(name: string): name is LlmProviderName {
    return this.#providers.has(name as LlmProviderName)
  }

  get(name: LlmProviderName): ChatProvider | null {
    return this.#providers.get(name) ?? null
  }

  /** The model used when a chat_model names a provider but no model: the instance default's, or the mock's own. */
  defaultModelFor(name: LlmProviderName): string | null {
    if (name === this.#config.provider) return this.#config.model
    return name === 'mock' ? 'mock' : null
  }

  /** Provider names as they appear in configuration, for error messages. */
  configuredNames(): LlmProviderName[] {
    return [...this.#providers.keys()]
  }
}
