// The streaming mode of the guarded client: the same address policy, pinning and redirect rules as safeFetch
// (followHops), but the response body is handed over as a stream with a byte limit that fails loudly, and the request
// body may itself be a stream. For git packs, Server-Sent Events and model replies, which must not be buffered whole.
//
// Time-outs suit long streams: `headersTimeoutMs` bounds everything up to the final response's headers (every hop),
// `idleTimeoutMs` bounds each wait for the next chunk of the body (only while the reader waits on the network, so a
// slow reader is not punished), `totalTimeoutMs` bounds the whole call. The caller's AbortSignal ends it at any time.
import { OutboundError } from './errors.ts'
import {
  allowListOf,
  errorCode,
  followHops,
  type Hop,
  OUTBOUND_LIMITS,
  type OutboundRequestBase,
  outboundFailure,
  outgoingHeaders,
  type SafeFetchDependencies,
  systemResolver,
  systemTimer,
} from './safe-fetch.ts'

export interface OutboundStreamRequest extends OutboundRequestBase {
  /** Bytes, text, or a stream sent as it is read (chunked); a stream cannot follow a 307/308 redirect. */
  readonly body?: string | Uint8Array | ReadableStream<Uint8Array> | null
  /** Default 1 MiB; a body past it fails the call with `request_too_large` (a stream as soon as it passes the limit). */
  readonly maxRequestBytes?: number
  /** Default 5 MiB; reading past it errors the body stream with `response_too_large`. */
  readonly maxResponseBytes?: number
  /** Up to the final response's headers, every hop included. Default 30 s. */
  readonly headersTimeoutMs?: number
  /** The longest wait for the next chunk of the body. Default 60 s. */
  readonly idleTimeoutMs?: number
  /** The whole call, body included. Default 10 min. */
  readonly totalTimeoutMs?: number
}

export interface OutboundStreamResponse {
  readonly status: number
  readonly headers: Headers
  /**
   * Read it or cancel it: the connection and the call's timers live until one of the two. It errors with an
   * OutboundError (`response_too_large`, `timeout`, `unreachable`) or the caller's abort reason, never ends early.
   */
  readonly body: ReadableStream<Uint8Array>
  /** The URL that answered (after redirects). It may carry secret query parameters: do not log it. */
  readonly url: string
  readonly redirects: number
}

export type SafeStreamFetch = (url: string | URL, request?: OutboundStreamRequest) => Promise<OutboundStreamResponse>

export const STREAM_LIMITS = Object.freeze({
  headersTimeoutMs: OUTBOUND_LIMITS.timeoutMs,
  idleTimeoutMs: 60_000,
  totalTimeoutMs: 10 * 60_000,
})

/** A stream that passes the caller's chunks on and fails once more than `limit` bytes went through. */
function cappedUpload(source: ReadableStream<Uint8Array>, limit: number, onTooLarge: (error: OutboundError) => void): ReadableStream<Uint8Array> {
  let size = 0
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength
        if (size > limit) {
          const error = new OutboundError('request_too_large')
          onTooLarge(error)
          controller.error(error)
          return
        }
        controller.enqueue(chunk)
      },
    }),
  )
}

function requestBody(body: OutboundStreamRequest['body'], limit: number, onTooLarge: (error: OutboundError) => void): Hop['body'] {
  if (body === null || body === undefined) return null
  if (body instanceof ReadableStream) return cappedUpload(body, limit, onTooLarge)
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body)
  if (bytes.byteLength > limit) throw new OutboundError('request_too_large')
  return bytes
}

const NO_BODY_STATUSES = new Set([101, 204, 205, 304])
/**
 * Every chunk of a long stream is garbage as soon as the reader is done with it, but the collector runs by allocation
 * pressure it judges on its own: a 50 MiB download read in 64 KiB pieces lifted RSS by ~25 MiB before it caught up.
 * Asking for an asynchronous collection (Bun.gc(false): a request, ~0.1 ms, no pause) every few MiB keeps RSS near
 * the live data (scripts/bench/outbound-stream.ts).
 */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024

/** Builds the streaming guarded client over the same dependencies as createSafeFetch. */
export function createSafeStreamFetch(dependencies: SafeFetchDependencies): SafeStreamFetch {
  const resolve = dependencies.resolve ?? systemResolver
  const fetchImpl = dependencies.fetch ?? fetch
  const startTimer = dependencies.startTimer ?? systemTimer

  return async function safeStreamFetch(input, request = {}) {
    const maxResponseBytes = request.maxResponseBytes ?? OUTBOUND_LIMITS.maxResponseBytes
    const callerSignal = request.signal
    if (callerSignal?.aborted) throw callerSignal.reason
    const controller = new AbortController()
    let uploadTooLarge: OutboundError | null = null
    const first: Hop = {
      method: (request.method ?? 'GET').toUpperCase(),
      headers: outgoingHeaders(request.headers),
      body: requestBody(request.body, request.maxRequestBytes ?? OUTBOUND_LIMITS.maxRequestBytes, (error) => {
        uploadTooLarge = error
        controller.abort(error)
      }),
    }
    const allow = await allowListOf(dependencies.allow)

    // Every timer and listener of the call; `settle` clears them once the body is done with (read, failed, cancelled).
    const timers = new Set<() => void>()
    const arm = (ms: number, error: OutboundError): (() => void) => {
      const cancel = startTimer(ms, () => controller.abort(error))
      timers.add(cancel)
      return () => {
        cancel()
        timers.delete(cancel)
      }
    }
    const onCallerAbort = () => controller.abort(callerSignal!.reason)
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true })
    const settle = () => {
      for (const cancel of timers) cancel()
      timers.clear()
      callerSignal?.removeEventListener('abort', onCallerAbort)
    }
    const headersTimeout = new OutboundError('timeout', 'headers')
    arm(request.totalTimeoutMs ?? STREAM_LIMITS.totalTimeoutMs, new OutboundError('timeout', 'total'))
    const disarmHeaders = arm(request.headersTimeoutMs ?? STREAM_LIMITS.headersTimeoutMs, headersTimeout)

    let answered: Awaited<ReturnType<typeof followHops>>
    try {
      answered = await followHops({ allow, resolve, fetch: fetchImpl }, input, first, request, controller.signal)
    } catch (error) {
      settle()
      throw uploadTooLarge ?? outboundFailure(error, callerSignal, controller.signal, headersTimeout)
    }
    disarmHeaders()
    const { response, url, redirects } = answered
    const declared = Number(response.headers.get('content-length'))
    // Announced too large (and not compressed, where the header counts other bytes): refused before reading any.
    if (!response.headers.has('content-encoding') && Number.isFinite(declared) && declared > maxResponseBytes) {
      settle()
      response.body?.cancel().catch(() => {})
      throw new OutboundError('response_too_large', 'content_length')
    }
    if (!response.body || NO_BODY_STATUSES.has(response.status)) {
      settle()
      response.body?.cancel().catch(() => {})
      return { status: response.status, headers: response.headers, body: new ReadableStream({ start: (c) => c.close() }), url: url.href, redirects }
    }

    const idleMs = request.idleTimeoutMs ?? STREAM_LIMITS.idleTimeoutMs
    const reader = response.body.getReader()
    let size = 0
    let collectAt = COLLECT_EVERY_BYTES
    const failure = (error: unknown): unknown => {
      if (callerSignal?.aborted) return callerSignal.reason
      if (controller.signal.reason instanceof OutboundError) return controller.signal.reason
      if (error instanceof OutboundError) return error
      return new OutboundError('unreachable', errorCode(error))
    }
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(stream) {
          const disarmIdle = arm(idleMs, new OutboundError('timeout', 'idle'))
          let result: Awaited<ReturnType<typeof reader.read>>
          try {
            // The fetch holds the same signal: an abort (time-out, caller, cancel) rejects this read.
            result = await reader.read()
          } catch (error) {
            settle()
            reader.cancel().catch(() => {})
            stream.error(failure(error))
            return
          } finally {
            disarmIdle()
          }
          if (result.done) {
            settle()
            stream.close()
            return
          }
          size += result.value.byteLength
          if (size > maxResponseBytes) {
            // The chunk that crosses the limit is not delivered: the reader sees at most the limit, then this error.
            settle()
            reader.cancel().catch(() => {})
            stream.error(new OutboundError('response_too_large', 'stream'))
            return
          }
          stream.enqueue(result.value)
          if (size >= collectAt) {
            collectAt = size + COLLECT_EVERY_BYTES
            Bun.gc(false)
          }
        },
        cancel(reason) {
          settle()
          controller.abort(reason)
          return reader.cancel(reason).catch(() => {})
        },
      },
      // Pull only when the reader asks: nothing is read ahead, so memory stays at one chunk however long the stream.
      { highWaterMark: 0 },
    )
    return { status: response.status, headers: response.headers, body, url: url.href, redirects }
  }
}
