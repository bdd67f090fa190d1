// What the openai and anthropic providers share: the deadline (for the first event, then for each next one), shutdown
// and caller aborts, and SDK errors turned into sentences.
import type { LlmProviderName } from '../config.ts'
import { OutboundError } from '../platform/outbound/errors.ts'
import { isRetryableStatus, ProviderError, type ProviderErrorCode, SHUTDOWN_REASON } from './provider.ts'

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
  code: ProviderErrorCode
}

/** The guarded client's own words for why a connection failed (`Destination not allowed`, `… (ECONNREFUSED)`). */
function connectionReason(error: Error): string {
  const cause = (error as Error & { cause?: unknown }).cause
  if (cause instanceof OutboundError) return cause.reason && cause.code !== 'destination_not_allowed' ? `${cause.message} (${cause.reason})` : cause.message
  return cause instanceof Error ? cause.message : error.message
}

/** The sentence a failure becomes, and whether the same call is worth another try (decided here, not from the text). */
function describe(error: unknown, call: RemoteCall, deadline: AbortSignal, shutdown: AbortSignal | undefined): Failure {
  const { errors, label } = call
  if (error instanceof ProviderError) return { message: error.message, retryable: error.retryable, status: error.status, code: error.code }
  // Shutdown first: the deadline may also have fired, but the server is going away, so there is nothing to retry on.
  if (shutdown?.aborted) {
    // A plain abort() is the server's shutdown; a caller that aborts with its own Error gets its own words.
    const own = shutdown.reason instanceof Error && shutdown.reason.name !== 'AbortError'
    const reason = own ? (shutdown.reason as Error).message : SHUTDOWN_REASON
    return { message: `Interrupted: ${reason}`, retryable: false, code: 'interrupted' }
  }
  if (deadline.aborted || error instanceof errors.APIConnectionTimeoutError)
    return { message: `The ${label} did not answer within ${seconds(call.timeoutMs)}`, retryable: true, code: 'timeout' }
  if (error instanceof errors.APIConnectionError)
    return { message: `Could not reach the ${label}: ${connectionReason(error)}`, retryable: true, code: 'unreachable' }
  if (error instanceof OutboundError) {
    if (error.code === 'timeout') return { message: `The ${label} did not answer within ${seconds(call.timeoutMs)}`, retryable: true, code: 'timeout' }
    return { message: `The ${label} stopped answering: ${error.message}${error.reason ? ` (${error.reason})` : ''}`, retryable: true, code: 'unreachable' }
  }
  if (error instanceof errors.APIError) {
    const status = (error as Error & { status?: number }).status
    if (status !== undefined)
      return { message: `The ${label} answered HTTP ${status}: ${serverDetail(error)}`, retryable: isRetryableStatus(status), status, code: 'http' }
    // An error event inside a stream (no status): the provider's own words.
    return { message: `The ${label} reported an error: ${serverDetail(error)}`, retryable: false, code: 'http' }
  }
  // Anything else is a bug or a malformed answer, which another try would not fix.
  return { message: `The ${label} failed: ${error instanceof Error ? error.message : String(error)}`, retryable: false, code: 'bad_response' }
}

function providerError(error: unknown, call: RemoteCall, deadline: AbortSignal, shutdown: AbortSignal | undefined): ProviderError {
  const { message, retryable, status, code } = describe(error, call, deadline, shutdown)
  return new ProviderError(call.provider, call.apiKey ? message.replaceAll(call.apiKey, '[redacted]') : message, { retryable, status, code })
}

/**
 * Runs one streamed provider call: `open` sends the request (the client library's own retries happen inside it) and
 * answers with the wire events, which `map` turns into ours. The deadline covers the wait for the first event, then is
 * renewed by each event, so a long answer that keeps coming is never cut while a silent server is; shutdown and the
 * caller's abort end it at once. Any failure, mid-stream too, is a ProviderError with a readable message.
 */
export async function* streamRemote<Chunk, Event>(
  call: RemoteCall,
  abort: AbortSignal | undefined,
  open: (signal: AbortSignal) => Promise<AsyncIterable<Chunk>>,
  map: (chunks: AsyncIterable<Chunk>) => AsyncIterable<Event>,
): AsyncGenerator<Event> {
  const deadline = new AbortController()
  let timer = setTimeout(() => deadline.abort(), call.timeoutMs)
  const renew = () => {
    clearTimeout(timer)
    timer = setTimeout(() => deadline.abort(), call.timeoutMs)
  }
  const signal = abort ? AbortSignal.any([abort, deadline.signal]) : deadline.signal
  async function* watched(chunks: AsyncIterable<Chunk>): AsyncGenerator<Chunk> {
    for await (const chunk of chunks) {
      renew()
      yield chunk
    }
    // The client libraries end a stream quietly when its signal aborts: an aborted stream is a failure, not an answer,
    // and it fails here, before the final events (usage, stop) that would make it look whole.
    if (signal.aborted) throw signal.reason
  }
  // An iteration ended early by the caller aborts the call, so its connection does not stay open.
  const stop = new AbortController()
  const all = AbortSignal.any([signal, stop.signal])
  try {
    const chunks = await open(all)
    for await (const event of map(watched(chunks))) yield event
  } catch (error) {
    throw providerError(error, call, deadline.signal, abort)
  } finally {
    clearTimeout(timer)
    stop.abort()
  }
}
