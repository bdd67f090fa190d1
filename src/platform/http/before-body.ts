// What a route checks before its body is read: who is calling. A route's macro (the `auth` guard, the GPT key guard)
// leaves its check in the route's `detail` under BEFORE_BODY_KEY; the body parser runs it first, so a caller without
// valid credentials gets its 401 without the server reading, buffering or parsing what it sent (up to 7 MiB of JSON,
// 32 MiB of upload). The check keeps what it found for the route's own hook, which then looks nothing up again.

/** Authenticates (and admits) the request, or throws its 401/403/402/429 HttpError. */
export type BeforeBodyCheck = (request: Request) => void | Promise<void>

/**
 * What a before-body check threw that is not an answer of its own (an HttpError): a database outage, a bug. Elysia
 * reports anything thrown while parsing as a parse error (a 422); wrapped in this, the error handler answers it as
 * what it is (503 for an unreachable database, 500 otherwise).
 */
export class BeforeBodyFailure extends Error {
  constructor(cause: unknown) {
    super('the check before the body failed', { cause })
  }
}

/** The `detail` key of a route's before-body check; removed from the OpenAPI document like the guard's requirement. */
export const BEFORE_BODY_KEY = 'x-agentbox-before-body'

/** What is read of an Elysia route (`app.routes`). */
export interface RouteBeforeBody {
  readonly method: string
  readonly path: string
  readonly hooks: { readonly detail?: unknown }
}

/**
 * The check of a route, by its method and its path as declared (Elysia's `route`, `/a/:id`): one map read a request.
 * `routes` is read on the first call, once every module has added its routes.
 */
export function beforeBodyChecksOf(routes: () => readonly RouteBeforeBody[]): (method: string, route: string) => BeforeBodyCheck | undefined {
  let table: Map<string, Map<string, BeforeBodyCheck>> | undefined
  return function beforeBodyCheck(method, route) {
    if (!table) {
      table = new Map()
      for (const entry of routes()) {
        const check = (entry.hooks.detail as Record<string, unknown> | undefined)?.[BEFORE_BODY_KEY]
        if (typeof check !== 'function') continue
        const byMethod = table.get(entry.path) ?? new Map<string, BeforeBodyCheck>()
        byMethod.set(entry.method, check as BeforeBodyCheck)
        table.set(entry.path, byMethod)
      }
    }
    return table.get(route)?.get(method)
  }
}
