// Per-request facts the platform needs across hooks (request id, client address, start time), keyed by the Request object itself.

export interface RequestContext {
  readonly id: string
  readonly startedAt: number
  /**
   * The client's address: the socket's peer, or behind a trusted proxy the client it forwarded for
   * (client-address.ts); 'unknown' when the request did not come through a server, as in tests. Looked up on first
   * read when the request carries no X-Forwarded-For: only the sign-in throttle and registration limit need it, and
   * asking the server costs ~1.3 µs a request.
   */
  readonly clientAddress: string
  /** The body as parsed, before Elysia's normalisation reshapes it (a JSON array arrives as an object of undefineds). */
  parsedBody?: unknown
  /**
   * Lifts the listening server's idle time-out (10 s) for this request: for answers that may take minutes (a chat turn
   * with a model and tools) or stream with pauses. A no-op when the request did not come through a server.
   */
  allowLongRequest(): void
}

const contexts = new WeakMap<Request, RequestContext>()

/** Ids we echo back: short and free of anything that could break a header or a log line. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function beginRequest(
  request: Request,
  clientAddress: () => string | undefined = () => undefined,
  allowLongRequest: () => void = () => {},
): RequestContext {
  const given = request.headers.get('x-request-id')
  let address: string | undefined
  const context: RequestContext = {
    id: given && ACCEPTABLE_ID.test(given) ? given : Bun.randomUUIDv7(),
    startedAt: performance.now(),
    get clientAddress() {
      return (address ??= clientAddress() ?? 'unknown')
    },
    allowLongRequest,
  }
  contexts.set(request, context)
  return context
}

export function requestContext(request: Request): RequestContext | undefined {
  return contexts.get(request)
}
