// The model-provider interface a task run talks to, and ProviderError: the readable sentence a failed call becomes.
import type { LlmProviderName } from '../config.ts'

export interface ChatMessage {
  role: 'user' | 'assistant'
  content: string
}

export interface ChatRequest {
  model: string
  /** The agent's live instructions, when the task names an agent. */
  system: string | null
  /** Oldest first; the last one is the prompt of this run. */
  messages: ChatMessage[]
  /** Aborts the call (shutdown); the provider's own deadline is applied inside. */
  signal?: AbortSignal
}

export interface ChatReply {
  text: string
}

export interface ChatProvider {
  readonly name: LlmProviderName
  complete(request: ChatRequest): Promise<ChatReply>
}

/**
 * The only error a provider throws. Its message is shown to users as the run's `error`, so it is one readable
 * sentence: no stack, no request body, never an API key.
 */
export class ProviderError extends Error {
  readonly provider: LlmProviderName
  constructor(provider: LlmProviderName, message: string) {
    super(message)
    this.name = 'ProviderError'
    this.provider = provider
  }
}

/** Shutdown aborts in-flight calls with this reason, so the run's error says why. */
export const SHUTDOWN_REASON = 'the server is shutting down'
