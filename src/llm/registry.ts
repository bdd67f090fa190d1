// The configured model providers, built from Config: which exist, which one a task's chat_model picks, and its model.
import type { LlmConfig, LlmProviderName } from '../config.ts'
import { AnthropicProvider } from './anthropic.ts'
import { MockProvider } from './mock.ts'
import { OpenAIProvider } from './openai.ts'
import type { ChatProvider } from './provider.ts'

export class ModelProviders {
  readonly #config: LlmConfig
  readonly #providers = new Map<LlmProviderName, ChatProvider>()

  constructor(config: LlmConfig) {
    this.#config = config
    this.#providers.set('mock', new MockProvider())
    if (config.openai) this.#providers.set('openai', new OpenAIProvider(config.openai, config.timeoutMs))
    if (config.anthropic) this.#providers.set('anthropic', new AnthropicProvider(config.anthropic, config.timeoutMs))
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
