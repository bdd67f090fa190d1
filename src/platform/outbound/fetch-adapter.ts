// A WHATWG-fetch-shaped function over the streaming guarded client, for libraries that take a custom `fetch` (the
// model SDKs): their requests get the same address policy, pinning, redirect rules and limits as ours, and the reply
// reaches them as a stream (Server-Sent Events are read as they arrive, never buffered whole).
import type { OutboundStreamRequest, SafeStreamFetch } from './stream-fetch.ts'

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304])

async function bodyOf(body: BodyInit | null | undefined): Promise<OutboundStreamRequest['body']> {
  if (body === null || body === undefined) return null
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ReadableStream) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
  // Form data, URL parameters, blobs: what fetch would send, as bytes.
  return new Uint8Array(await new Response(body).arrayBuffer())
}

/** `limits` apply to every call (time-outs, byte limits); the library's own signal and headers pass through. */
export function guardedFetch(stream: SafeStreamFetch, limits: Omit<OutboundStreamRequest, 'method' | 'headers' | 'body' | 'signal'> = {}): FetchLike {
  return async (input, init = {}) => {
    const request = input instanceof Request ? input : null
    const url = request ? request.url : input
    const signals = [init.signal, request?.signal].filter((signal): signal is AbortSignal => !!signal)
    const answer = await stream(url instanceof URL ? url : String(url), {
      ...limits,
      method: init.method ?? request?.method ?? 'GET',
      headers: init.headers ?? request?.headers,
      body: await bodyOf(init.body ?? request?.body),
      signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
    })
    // The body arrives decoded (fetch undid any gzip), so the encoding and the encoded length no longer describe it.
    const headers = new Headers(answer.headers)
    if (headers.has('content-encoding')) {
      headers.delete('content-encoding')
      headers.delete('content-length')
    }
    if (NULL_BODY_STATUSES.has(answer.status)) {
      answer.body.cancel().catch(() => {})
      return new Response(null, { status: answer.status, headers })
    }
    return new Response(answer.body, { status: answer.status, headers })
  }
}
