// What the openai and anthropic providers share: one overall deadline, shutdown aborts, and SDK errors turned into sentences.
import type { LlmProviderName } from '../config.ts'
import { ProviderError, SHUTDOWN_REASON } from './provider.ts'

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

function describe(error: unknown, call: RemoteCall, deadline: AbortSignal, shutdown: AbortSignal | undefined): string {
  const { errors, label } = call
  if (error instanceof ProviderError) return error.message
  if (shutdown?.aborted) return `Interrupted: ${SHUTDOWN_REASON}`
  if (deadline.aborted || error instanceof errors.APIConnectionTimeoutError) return `The ${label} did not answer within ${seconds(call.timeoutMs)}`
  if (error instanceof errors.APIConnectionError) {
    const cause = (error as Error & { cause?: unknown }).cause
    const reason = cause instanceof Error ? cause.message : error.message
    return `Could not reach the ${label}: ${reason}`
  }
  if (error instanceof errors.APIError) {
    const status = (error as Error & { status?: number }).status
    if (status !== undefined) return `The ${label} answered HTTP ${status}: ${serverDetail(error)}`
  }
  return `The ${label} failed: ${error instanceof Error ? error.message : String(error)}`
}

/**
 * Runs one provider call under an overall deadline (the client library's own retries happen inside it) and turns
 * any failure into a ProviderError with a readable message.
 */
export async function callRemote(call: RemoteCall, shutdown: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<string>): Promise<string> {
  const deadline = AbortSignal.timeout(call.timeoutMs)
  const signal = shutdown ? AbortSignal.any([shutdown, deadline]) : deadline
  try {
    return await run(signal)
  } catch (error) {
    let message = describe(error, call, deadline, shutdown)
    if (call.apiKey) message = message.replaceAll(call.apiKey, '[redacted]')
    throw new ProviderError(call.provider, message)
  }
}
