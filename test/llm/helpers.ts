// Providers built the way the server builds them: ModelProviders over a guarded outbound client whose only opening is
// the provider's configured base URL (no AGENTBOX_OUTBOUND_ALLOW), so every test call also proves the implicit allow.
import type { LlmConfig, LlmProviderName } from '../../src/config.ts'
import type { ChatProvider } from '../../src/llm/provider.ts'
import { ModelProviders } from '../../src/llm/registry.ts'
import { createOutboundClient, type OutboundClient } from '../../src/platform/outbound/outbound-client.ts'

/** The guarded client with no allow entries at all: loopback is refused unless a provider's base URL opens it. */
export const guardedOutbound = (): OutboundClient => createOutboundClient({ operatorAllow: [], adminAllow: async () => [] })

export function llmConfig(format: Exclude<LlmProviderName, 'mock'>, baseUrl: string, apiKey: string | null, timeoutMs: number): LlmConfig {
  const endpoint = { baseUrl, apiKey }
  return { provider: 'mock', model: 'mock', openai: format === 'openai' ? endpoint : null, anthropic: format === 'anthropic' ? endpoint : null, timeoutMs }
}

export function makeProvider(format: Exclude<LlmProviderName, 'mock'>, baseUrl: string, apiKey: string | null = 'sk-test', timeoutMs = 2_000): ChatProvider {
  return new ModelProviders(llmConfig(format, baseUrl, apiKey, timeoutMs), guardedOutbound()).get(format)!
}
