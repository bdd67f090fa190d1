// safeFetch: the one HTTP client for calls that leave the machine (API operations, git remotes, external MCP
// servers, model providers), guarded against server-side request forgery.
//
// Steps performed for every hop (the first request and each redirect):
// 1. the URL must be absolute http(s) without user name or password;
// 2. the host is resolved once (an IP literal is its own answer; `localhost` and `*.localhost` are loopback
//    without asking DNS, RFC 6761);
// 3. unless the host name is on the allow list, every address must pass the address policy or lie in an
//    allow-listed address/CIDR: one refused address refuses the hop, before any connection is opened;
// 4. the request goes to the checked address itself (the URL rewritten to the IP, the original `Host` header, TLS
//    `serverName` = the host name), so nothing resolves the name a second time: no DNS-rebinding window;
// 5. redirects are followed by hand (at most 5), credentials dropped once a hop leaves the origin.
import { lookup } from 'node:dns/promises'
import { forbiddenReason, formatIpAddress, parseIpAddress, unmapIPv4, type IpAddress } from './address-policy.ts'
import { type AllowList, normalizeHostName } from './allow-list.ts'
import { OutboundError, type OutboundErrorCode } from './errors.ts'

/** Every address a host name resolves to, as text (`93.184.215.14`, `2606:2800::1`). */
export type Resolver = (hostName: string) => Promise<readonly string[]>
export type FetchFunction = (url: string, init: BunFetchRequestInit) => Promise<Response>
/** Called once per call: the operator's entries and the admin's org setting as they are now. */
export type AllowListSource = AllowList | (() => AllowList | Promise<AllowList>)
/** Starts a timer and returns its cancel function; tests pass one they fire by hand. */
export type StartTimer = (ms: number, fire: () => void) => () => void

export interface SafeFetchDependencies {
  readonly allow: AllowListSource
  /** Default: the system resolver (`dns.lookup`, every address, in the system's order). */
  readonly resolve?: Resolver
  /** Default: Bun's fetch. Tests inject one to prove a refused call never reaches it. */
  readonly fetch?: FetchFunction
  readonly startTimer?: StartTimer
}

/** What buffered and streamed calls take alike. */
export interface OutboundRequestBase {
  /** Default GET. */
  readonly method?: string
  /** `Host`, `Content-Length` and hop-by-hop headers are ignored: the client sets them. */
  readonly headers?: HeadersInit
  /**
   * Headers and query parameters the credential layer added (`X-API-Key`, `api_key`), dropped like
   * `Authorization`, `Cookie` and `Proxy-Authorization` as soon as a redirect leaves the origin.
   */
  readonly secretHeaders?: readonly string[]
  readonly secretQueryParams?: readonly string[]
  /** Default 5. */
  readonly maxRedirects?: number
  /** The caller's own cancellation: the call rejects with its reason. */
  readonly signal?: AbortSignal
}

export interface OutboundRequest extends OutboundRequestBase {
  readonly body?: string | Uint8Array | null
  /** Default 1 MiB; a larger body is refused with `request_too_large` before anything is sent. */
  readonly maxRequestBytes?: number
  /** Default 5 MiB; the body is read up to this many bytes, then `truncated` is true and the rest is dropped. */
  readonly maxResponseBytes?: number
  /** For the whole call (every hop and the body). Default 30 s. */
  readonly timeoutMs?: number
}

export interface OutboundResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: Uint8Array
  readonly truncated: boolean
  /** The URL that answered (after redirects). It may carry secret query parameters: do not log it. */
  readonly url: string
  readonly redirects: number
}

export type SafeFetch = (url: string | URL, request?: OutboundRequest) => Promise<OutboundResponse>

export const OUTBOUND_LIMITS = Object.freeze({
  maxRedirects: 5,
  maxRequestBytes: 1024 * 1024,
  maxResponseBytes: 5 * 1024 * 1024,
  timeoutMs: 30_000,
})

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization']
// RFC 9110 §7.6.1 hop-by-hop fields, plus the framing and routing headers only the client may set.
const CLIENT_OWNED_HEADERS = [
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'expect',
  'proxy-authorization',
]
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']
// Failures where nothing was sent, so the next address of the host may be tried even for a POST.
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ConnectionRefused', 'FailedToOpenSocket'])
const LOOPBACK: readonly IpAddress[] = [parseIpAddress('127.0.0.1')!, parseIpAddress('::1')!]

export const systemResolver: Resolver = async (hostName) => (await lookup(hostName, { all: true, verbatim: true })).map((entry) => entry.address)
export const systemTimer: StartTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms)
  return () => clearTimeout(timer)
}

function parseTarget(input: string | URL, base: URL | undefined, code: OutboundErrorCode): URL {
  let url: URL
  try {
    url = new URL(input, base)
  } catch {
    throw new OutboundError(code, 'unparseable')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError(code, 'scheme')
  // `http://trusted@evil` reads as a trusted host to a human; credentials never travel in URLs here.
  if (url.username !== '' || url.password !== '') throw new OutboundError(code, 'userinfo')
  if (url.hostname === '') throw new OutboundError(code, 'host')
  return url
}

const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80)
const isLocalhostName = (host: string): boolean => /(^|\.)localhost$/.test(normalizeHostName(host))
export const errorCode = (error: unknown): string =>
  (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : null) ??
  (error instanceof Error ? error.name : 'error')

/** Rejects with the signal's reason as soon as it aborts, whatever the promise does. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** A copy for a caller's bytes, so a redirect resends exactly what the first hop sent. */
function encodeBody(body: string | Uint8Array | null | undefined, limit: number): Uint8Array<ArrayBuffer> | null {
  if (body === null || body === undefined) return null
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body)
  if (bytes.byteLength > limit) throw new OutboundError('request_too_large')
  return bytes
}

const CLIENT_OWNED = new Set(CLIENT_OWNED_HEADERS)

export function outgoingHeaders(init: HeadersInit | undefined): Headers {
  const headers = new Headers(init)
  const connection = headers.get('connection')
  if (connection === null) {
    // The usual case: look only at the few headers the call has instead of deleting every client-owned name.
    const owned: string[] = []
    for (const name of headers.keys()) if (CLIENT_OWNED.has(name)) owned.push(name)
    for (const name of owned) headers.delete(name)
    return headers
  }
  const listed = connection.split(',').map((name) => name.trim())
  for (const name of [...listed.filter((name) => name !== ''), ...CLIENT_OWNED_HEADERS]) headers.delete(name)
  return headers
}

/** Step 2 and 3: the addresses this hop may connect to, or the refusal. */
async function checkedAddresses(url: URL, allow: AllowList, resolve: Resolver, signal: AbortSignal): Promise<readonly IpAddress[]> {
  const port = portOf(url)
  const literal = parseIpAddress(url.hostname)
  let addresses: readonly (IpAddress | null)[]
  if (literal) addresses = [literal]
  else if (isLocalhostName(url.hostname)) addresses = LOOPBACK
  else {
    let answer: readonly string[]
    try {
      answer = await untilAborted(resolve(url.hostname), signal)
    } catch (error) {
      if (signal.aborted) throw error
      throw new OutboundError('unreachable', errorCode(error))
    }
    if (answer.length === 0) throw new OutboundError('unreachable', 'ENOTFOUND')
    addresses = answer.map(parseIpAddress)
  }
  // An allow-listed name is trusted with whatever it resolves to: the admin named it, not an address.
  const hostAllowed = !literal && allow.permitsHost(url.hostname, port)
  for (const address of addresses) {
    if (!address) throw new OutboundError('destination_not_allowed', 'unparseable_address')
    if (hostAllowed) continue
    const reason = forbiddenReason(address)
    if (reason && !allow.permitsAddress(address, port)) throw new OutboundError('destination_not_allowed', reason)
  }
  return addresses as readonly IpAddress[]
}

export interface Hop {
  readonly method: string
  readonly headers: Headers
  /** Bytes are resent as they are on a 307/308; a stream goes once. */
  readonly body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null
}

/** Step 4: the request to the checked address itself; the next address only when this one took no connection. */
async function sendPinned(fetchImpl: FetchFunction, url: URL, addresses: readonly IpAddress[], hop: Hop, signal: AbortSignal): Promise<Response> {
  // Each hop's headers are its own (made by outgoingHeaders, or copied for a redirect), so no copy is needed here.
  const headers = hop.headers
  headers.set('host', url.host)
  const named = parseIpAddress(url.hostname) === null
  for (const [index, address] of addresses.entries()) {
    const target = new URL(url.href)
    const connectTo = unmapIPv4(address)
    target.hostname = connectTo.family === 6 ? `[${formatIpAddress(connectTo)}]` : formatIpAddress(connectTo)
    const init: BunFetchRequestInit = { method: hop.method, headers, body: hop.body, redirect: 'manual', signal, proxy: false }
    // SNI and the certificate check use the name, not the IP we dial (RFC 6066: no trailing dot in SNI).
    if (url.protocol === 'https:' && named) init.tls = { serverName: normalizeHostName(url.hostname) }
    try {
      return await fetchImpl(target.href, init)
    } catch (error) {
      // A streamed body may be partly read already, so it is never offered to a second address.
      const last = index === addresses.length - 1 || hop.body instanceof ReadableStream
      if (signal.aborted || last || !CONNECT_FAILURES.has(errorCode(error))) throw error
    }
  }
  throw new OutboundError('unreachable', 'no_address')
}

/**
 * The length a response declares for what fetch hands over, or null: unknown (chunked), or for a compressed body, whose
 * declared length is the compressed one (fetch inflates it, so it says nothing about the size read).
 */
function declaredLength(response: Response): number | null {
  const header = response.headers.get('content-length')
  if (header === null || response.headers.has('content-encoding') || !/^\d{1,15}$/.test(header)) return null
  return Number(header)
}

/**
 * `bodyFollowsSignal`: the response came from Bun's own fetch, whose body reads reject with the signal's reason as soon
 * as it aborts (measured on Bun 1.4.5, also for a declared length never delivered), so the one-piece read needs no
 * listener and promise of its own (~1 % of an execute call). An injected fetch is not trusted to do the same.
 */
async function readCapped(
  response: Response,
  limit: number,
  signal: AbortSignal,
  bodyFollowsSignal: boolean,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!response.body) return { body: new Uint8Array(0), truncated: false }
  const length = declaredLength(response)
  if (length !== null && length <= limit) {
    // The whole body in one read when it is known to fit: the stream's reader costs a few µs per call more, and
    // small answers are what most calls get. Capped all the same, should more arrive than was declared.
    const read = response.arrayBuffer()
    const bytes = new Uint8Array(await (bodyFollowsSignal ? read : untilAborted(read, signal)))
    return bytes.byteLength > limit ? { body: bytes.subarray(0, limit), truncated: true } : { body: bytes, truncated: false }
  }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let truncated = false
  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), signal)
      if (done) break
      if (size + value.byteLength > limit) {
        chunks.push(value.subarray(0, limit - size))
        size = limit
        truncated = true
        break
      }
      chunks.push(value)
      size += value.byteLength
    }
  } finally {
    if (truncated || signal.aborted) reader.cancel().catch(() => {})
    else reader.releaseLock()
  }
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  return { body, truncated }
}

/** Fetch's rule: 303 turns anything but GET/HEAD into GET, and 301/302 turn POST into GET; the body goes with it. */
const becomesGet = (status: number, method: string): boolean =>
  (status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')

/** What one call needs besides its request: the allow list read for it, the resolver and the fetch. */
export interface HopContext {
  readonly allow: AllowList
  readonly resolve: Resolver
  readonly fetch: FetchFunction
}

export interface Answered {
  readonly response: Response
  readonly url: URL
  readonly redirects: number
}

/**
 * Steps 1-5 for every hop: the first request and each redirect, checked, pinned, credentials dropped across origins.
 * Answers with the first response that is not a followed redirect; its body is the caller's to read or cancel.
 */
export async function followHops(context: HopContext, input: string | URL, first: Hop, request: OutboundRequestBase, signal: AbortSignal): Promise<Answered> {
  const maxRedirects = request.maxRedirects ?? OUTBOUND_LIMITS.maxRedirects
  const secretHeaders = [...CREDENTIAL_HEADERS, ...(request.secretHeaders ?? [])]
  let url = parseTarget(input, undefined, 'invalid_url')
  let hop = first
  for (let redirects = 0; ; redirects++) {
    const addresses = await checkedAddresses(url, context.allow, context.resolve, signal)
    const response = await sendPinned(context.fetch, url, addresses, hop, signal)
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null
    if (location === null) return { response, url, redirects }
    response.body?.cancel().catch(() => {})
    if (redirects === maxRedirects) throw new OutboundError('too_many_redirects')
    const next = parseTarget(location, url, 'destination_not_allowed')
    next.hash = ''
    const headers = new Headers(hop.headers)
    if (next.origin !== url.origin) {
      // Dropped for good: a later hop back to the first origin was chosen by someone else.
      for (const name of secretHeaders) headers.delete(name)
      for (const name of request.secretQueryParams ?? []) if (next.searchParams.has(name)) next.searchParams.delete(name)
    }
    if (becomesGet(response.status, hop.method)) {
      for (const name of BODY_HEADERS) headers.delete(name)
      hop = { method: 'GET', headers, body: null }
    } else {
      // A streamed body was sent once and is gone: a 307/308 would need it again (fetch refuses the same way).
      if (hop.body instanceof ReadableStream) throw new OutboundError('unreachable', 'redirect_needs_streamed_body')
      hop = { ...hop, headers }
    }
    url = next
  }
}

/** Resolves the allow list source for one call. */
export const allowListOf = async (source: AllowListSource): Promise<AllowList> => (typeof source === 'function' ? await source() : source)

/** Builds the guarded client; `allow` is read once per call, so an admin's change applies to the next call. */
export function createSafeFetch(dependencies: SafeFetchDependencies): SafeFetch {
  const resolve = dependencies.resolve ?? systemResolver
  const fetchImpl = dependencies.fetch ?? fetch
  const startTimer = dependencies.startTimer ?? systemTimer

  return async function safeFetch(input, request = {}) {
    const maxResponseBytes = request.maxResponseBytes ?? OUTBOUND_LIMITS.maxResponseBytes
    const first: Hop = {
      method: (request.method ?? 'GET').toUpperCase(),
      headers: outgoingHeaders(request.headers),
      body: encodeBody(request.body, request.maxRequestBytes ?? OUTBOUND_LIMITS.maxRequestBytes),
    }
    const allow = await allowListOf(dependencies.allow)

    const callerSignal = request.signal
    if (callerSignal?.aborted) throw callerSignal.reason
    const controller = new AbortController()
    // Made when the timer fires: an Error (its stack) costs microseconds on every call, and almost none time out.
    const cancelTimer = startTimer(request.timeoutMs ?? OUTBOUND_LIMITS.timeoutMs, () => controller.abort(new OutboundError('timeout')))
    const onCallerAbort = () => controller.abort(callerSignal!.reason)
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true })
    try {
      const { response, url, redirects } = await followHops({ allow, resolve, fetch: fetchImpl }, input, first, request, controller.signal)
      const { body, truncated } = await readCapped(response, maxResponseBytes, controller.signal, fetchImpl === fetch)
      return { status: response.status, headers: response.headers, body, truncated, url: url.href, redirects }
    } catch (error) {
      throw outboundFailure(error, callerSignal, controller.signal)
    } finally {
      cancelTimer()
      callerSignal?.removeEventListener('abort', onCallerAbort)
    }
  }
}

/** What a failed call rejects with: the caller's own abort reason, an OutboundError as thrown, or one made from the cause. */
export function outboundFailure(error: unknown, callerSignal: AbortSignal | undefined, signal: AbortSignal, timeout?: OutboundError): unknown {
  if (callerSignal?.aborted) return callerSignal.reason
  if (error instanceof OutboundError) return error
  if (timeout !== undefined && signal.reason === timeout) return timeout
  if (signal.reason instanceof OutboundError) return signal.reason
  return new OutboundError('unreachable', errorCode(error))
}
