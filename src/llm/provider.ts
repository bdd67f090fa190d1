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

/** What a caller may do about a failed call, decided where the error is made rather than read back from its text. */
export interface ProviderErrorFacts {
  /** True for time-outs, network failures, HTTP 408, 429 and 5xx: the same call may well succeed later. */
  retryable: boolean
  /** The HTTP status the provider answered with, when it answered at all. */
  status?: number
}

/** HTTP statuses worth another try: request time-out, rate limit, and any server-side failure. */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500

/**
 * The only error a provider throws. Its message is shown to users as the run's `error`, so it is one readable
 * sentence: no stack, no request body, never an API key. `retryable` and `status` are for code (workflow retries),
 * so nothing has to match the sentence.
 */
export class ProviderError extends Error {
  readonly provider: LlmProviderName
  readonly retryable: boolean
  readonly status: number | undefined
  constructor(provider: LlmProviderName, message: string, facts: ProviderErrorFacts = { retryable: false }) {
    super(message)
    this.name = 'ProviderError'
    this.provider = provider
    this.retryable = facts.retryable
    this.status = facts.status
  }
}

/** Shutdown aborts in-flight calls with this reason, so the run's error says why. */
export const SHUTDOWN_REASON = 'the server is shutting down'
