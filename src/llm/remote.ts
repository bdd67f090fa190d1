// What the openai and anthropic providers share: one overall deadline, shutdown aborts, and SDK errors turned into sentences.
import type { LlmProviderName } from '../config.ts'
import { isRetryableStatus, ProviderError, SHUTDOWN_REASON } from './provider.ts'

type ErrorClass = abstract new (...args: never[]) => Error

/** The error classes both client libraries (Stainless-generated) export under the same names. */
export interface SdkErrorClasses {
  APIError: ErrorClass
  APIConnectionError: ErrorClass
  APIConnectionTimeoutError: ErrorClass
}

export interface RemoteCall {
  provider: LlmProviderName
  /** How the provider is named in errors, e.g. `openai provider at http://127.0.0.1:11434/v1`. */
  label: string
  timeoutMs: number
  /** Scrubbed from every message, in case a server echoes it back. */
  apiKey: string | null
  errors: SdkErrorClasses
}

const MAX_DETAIL_CHARS = 300

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`)

/** The server's own words: OpenAI sends {error: {message}}, Anthropic {type: 'error', error: {type, message}}. */
function serverDetail(error: Error & { error?: unknown }): string {
  const body = error.error as { error?: { message?: unknown; type?: unknown }; message?: unknown } | string | undefined
  const candidates = typeof body === 'string' ? [body] : [body?.error?.message, body?.message, body?.error?.type]
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim().length > 0)
  // Without a body the SDK's message is "<status> status code (no body)"; drop the repeated status.
  const text = found ?? error.message.replace(/^\d{3}\s*/, '')
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text
}

interface Failure {
  message: string
  retryable: boolean
  status?: number
}

/** The sentence a failure becomes, and whether the same call is worth another try (decided here, not from the text). */
function describe(error: unknown, call: RemoteCall, deadline: AbortSignal, shutdown: AbortSignal | undefined): Failure {
  const { errors, label } = call
  if (error instanceof ProviderError) return { message: error.message, retryable: error.retryable, status: error.status }
  // Shutdown first: the deadline may also have fired, but the server is going away, so there is nothing to retry on.
  if (shutdown?.aborted) return { message: `Interrupted: ${SHUTDOWN_REASON}`, retryable: false }
  if (deadline.aborted || error instanceof errors.APIConnectionTimeoutError)
    return { message: `The ${label} did not answer within ${seconds(call.timeoutMs)}`, retryable: true }
  if (error instanceof errors.APIConnectionError) {
    const cause = (error as Error & { cause?: unknown }).cause
    const reason = cause instanceof Error ? cause.message : error.message
    return { message: `Could not reach the ${label}: ${reason}`, retryable: true }
  }
  if (error instanceof errors.APIError) {
    const status = (error as Error & { status?: number }).status
    if (status !== undefined) return { message: `The ${label} answered HTTP ${status}: ${serverDetail(error)}`, retryable: isRetryableStatus(status), status }
  }
  // Anything else is a bug or a malformed answer, which another try would not fix.
  return { message: `The ${label} failed: ${error instanceof Error ? error.message : String(error)}`, retryable: false }
}

/**
 * Runs one provider call under an overall deadline (the client library's own retries happen inside it) and turns
 * any failure into a ProviderError with a readable message and an explicit `retryable` (and `status` when the server answered).
 */
export async function callRemote(call: RemoteCall, shutdown: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<string>): Promise<string> {
  const deadline = AbortSignal.timeout(call.timeoutMs)
  const signal = shutdown ? AbortSignal.any([shutdown, deadline]) : deadline
  try {
    return await run(signal)
  } catch (error) {
    const { message, retryable, status } = describe(error, call, deadline, shutdown)
    throw new ProviderError(call.provider, call.apiKey ? message.replaceAll(call.apiKey, '[redacted]') : message, { retryable, status })
  }
}
