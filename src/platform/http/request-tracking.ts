// Wraps the app's fetch: gives each request its id and client address, echoes the id, writes the access log line.
import type { Server } from 'bun'
import type { Logger } from '../log.ts'
import { systemClock } from '../clock.ts'
import { ClientAddresses } from './client-address.ts'
import { requestTraffic } from './traffic.ts'
import { beginRequest } from './request-context.ts'

/**
 * Seen at the default log level (warn): a request that waited this long for its answer says which one it was (a
 * stream's headers come first, so a long stream is not slow by this measure).
 */
export const SLOW_REQUEST_MS = 2000

export type FetchHandler = (request: Request, server?: Server<unknown>) => Promise<Response>

/** The path of an absolute request URL without building a URL object (this runs on every request). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const query = url.indexOf('?', start)
  return query < 0 ? url.slice(start) : url.slice(start, query)
}

/**
 * Elysia finds the path by searching for '/' from a fixed offset (11: just past `http://` and a 4-character host), so
 * with `Host: x` the URL `http://x/zz/api/auth/me` would be routed as `/api/auth/me`. A host that short is rare and
 * legal (`Host: db`), so such a request is re-addressed to `localhost` (same path, method, headers and body) rather
 * than refused; every other request pays one indexOf.
 */
const ELYSIA_PATH_OFFSET = 11
function routable(request: Request): Request {
  const url = request.url
  const slash = url.indexOf('/', url.indexOf('//') + 2)
  if (slash < 0 || slash >= ELYSIA_PATH_OFFSET) return request
  return new Request(`${url.slice(0, url.indexOf('//') + 2)}localhost${url.slice(slash)}`, request)
}

/**
 * Outside Elysia on purpose: setting a header through Elysia's `set` makes it rebuild every response with merged
 * headers (~2.5 µs a request, docs/benchmarks.md), and only here is the final status known for the access log,
 * whether the response came from a handler or from the error handler.
 */
export function withRequestTracking(
  handle: (request: Request) => Response | Promise<Response>,
  logger: Logger,
  /** Who the client is (trusted proxies); by default every peer is the client and X-Forwarded-For is ignored. */
  addresses: ClientAddresses = new ClientAddresses([], systemClock),
  /** A response later than this (ms from arrival to its headers) is also logged as a warning. */
  slowRequestMs = SLOW_REQUEST_MS,
): FetchHandler {
  const logRequests = logger.isEnabled('info')
  return async function serveRequest(received, server) {
    const request = routable(received)
    // With X-Forwarded-For the peer is read at once: whether it is a trusted proxy decides the client, and one that is
    // not is noticed for health. Without it the peer is read only if something asks.
    const forwardedFor = request.headers.get('x-forwarded-for')
    const clientAddress =
      forwardedFor === null
        ? () => addresses.ofPeer(server?.requestIP(received)?.address)
        : addresses.forwarded(server?.requestIP(received)?.address, forwardedFor)
    const context = beginRequest(request, clientAddress, () => server?.timeout(received, 0))
    requestTraffic.begin()
    let response = await handle(request)
    try {
      response.headers.set('x-request-id', context.id)
    } catch {
      // A response with immutable headers (a proxied fetch) is copied once to carry the id.
      response = new Response(response.body, response)
      response.headers.set('x-request-id', context.id)
    }
    // No browser may guess a type for an API answer (a JSON error echoing input rendered as HTML).
    response.headers.set('x-content-type-options', 'nosniff')
    const ms = performance.now() - context.startedAt
    if (logRequests || ms >= slowRequestMs) {
      const fields = { request_id: context.id, method: request.method, path: pathOf(request.url), status: response.status, ms: Math.round(ms * 100) / 100 }
      if (logRequests) logger.info('request', fields)
      if (ms >= slowRequestMs) logger.warn('slow request', fields)
    }
    return response
  }
}
