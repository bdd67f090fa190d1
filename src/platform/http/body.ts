// Reads request bodies with a size cap and parses JSON leniently by content type (curl -d sends form content types).
import { BeforeBodyFailure, type BeforeBodyCheck } from './before-body.ts'
import type { BodySchemaCheck } from './body-schema-check.ts'
import { HttpError } from './http-error.ts'
import { createJsonWorkerParser, type JsonParser } from './json-off-thread.ts'
import { MAX_LARGE_BODY_VALUES, parseJsonBytes } from './json-text.ts'
import { requestContext } from './request-context.ts'

export { MAX_JSON_DEPTH, nestsDeeperThan } from './json-text.ts'

const TOO_LARGE = 'Request body too large'

export interface BodyLimits {
  /** Cap for JSON and every other body (1 MiB). */
  readonly json: number
  /** Cap for multipart uploads (10 MiB). */
  readonly upload: number
  /** Paths whose uploads may be larger, with their cap (API descriptions: 32 MiB). */
  readonly largeUploads?: Readonly<Record<string, number>>
  /**
   * Routes whose JSON bodies may be larger than `json`, with their cap: a route that takes a field of a fixed byte size
   * (a UI template's HTML) needs room for it however its JSON escapes it. Undefined: the `json` cap.
   */
  readonly largeJson?: (method: string, path: string) => number | undefined
  /** Paths whose routes read the body themselves (MCP: JSON-RPC batches, and its own parse-error answer); still capped there. */
  readonly ownBody?: RegExp
  /** Whether a route takes multipart/form-data (a file upload); any other route's body must be JSON. Default: every route. */
  readonly acceptsMultipart?: (method: string, path: string) => boolean
  /**
   * What a route checks before its body is read (before-body.ts), by method and declared route path: who is calling.
   * Its 401 (or 403, 402, 429) answers the request with the body unread.
   */
  readonly beforeBody?: (method: string, route: string) => BeforeBodyCheck | undefined
  /**
   * The body schema check of a route (body-schema-check.ts), by method and declared route path: run here on every body
   * of a route with a larger JSON cap (`largeJson`), so that Elysia's own check of it never fails (its failure writes
   * the whole body as JSON, megabytes for such a body).
   */
  readonly bodySchemaCheck?: (method: string, route: string) => BodySchemaCheck | undefined
  /** Where bodies above `offThreadBytes` (default OFF_THREAD_JSON_BYTES) are parsed; default: the JSON worker. */
  readonly offThreadParser?: JsonParser
  readonly offThreadBytes?: number
}

/**
 * Reads at most `limit` bytes. A declared Content-Length over the limit is refused before reading a byte;
 * a chunked body is counted as it streams, so a client cannot get past the cap by leaving the length out.
 */
export async function readBodyLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > limit) throw new HttpError(413, TOO_LARGE)
  if (!request.body) return new Uint8Array()
  // A declared length is enforced by the HTTP framing itself, so the native read is safe and ~1.4x faster than the loop.
  if (declared !== null) return new Uint8Array(await request.arrayBuffer())
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      throw new HttpError(413, TOO_LARGE)
    }
    chunks.push(value)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

function jsonInvalid(message: string): HttpError {
  return new HttpError(422, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', ctx: { error: message } }])
}

/**
 * Bodies larger than this are parsed in the JSON worker (json-off-thread.ts), smaller ones here. Up to 256 KiB parsing
 * holds the thread at most ~4 ms (empty objects, the worst shape) and under 1 ms for text, while the trip to the worker
 * adds 0.3–1 ms of latency; above it the inline parse grows to 28 ms at 1 MiB and 130 ms at 7 MiB
 * (scripts/bench/json-bodies.ts, docs/benchmarks.md "Large bodies").
 */
export const OFF_THREAD_JSON_BYTES = 256 * 1024

/** A path's own upload cap; `/a/` and `/a` are one route to the router, so they are one path here too. */
function largeUploadLimit(limits: BodyLimits, path: string): number | undefined {
  if (!limits.largeUploads) return undefined
  const trimmed = path.replace(/\/+$/, '')
  for (const [listed, limit] of Object.entries(limits.largeUploads)) if (listed.replace(/\/+$/, '') === trimmed) return limit
  return undefined
}

/** The `body` of a route that reads the request itself (BodyLimits.ownBody). */
const UNREAD = Object.freeze({})

/**
 * The app-wide body parser. Multipart goes to Elysia's own parser after the upload cap is checked, for the routes that
 * take uploads; everything else must be JSON (or empty), whatever Content-Type the client claimed.
 */
export function createBodyParser(limits: BodyLimits) {
  const offThreadBytes = limits.offThreadBytes ?? OFF_THREAD_JSON_BYTES
  let offThread = limits.offThreadParser
  // `route` is the matched route's declared path; naming it here makes Elysia set it on every request's context.
  return async function parseRequestBody({ request, contentType, route }: { request: Request; contentType: string; route: string }) {
    if (request.method === 'GET' || request.method === 'HEAD') return undefined
    // On SQLite the check is synchronous: no promise to wait for, no extra turn.
    const check = limits.beforeBody?.(request.method, route)
    if (check) {
      try {
        const checking = check(request)
        if (checking) await checking
      } catch (error) {
        // Its own answers (401, 403, 402, 429) as they are; anything else must not pass for a parse error.
        throw error instanceof HttpError ? error : new BeforeBodyFailure(error)
      }
    }
    const path = new URL(request.url).pathname
    // A value (not undefined) stops Elysia from trying its own parsers; the stream stays unread for the route.
    if (limits.ownBody?.test(path)) return UNREAD
    if (contentType.startsWith('multipart/form-data')) {
      // Elysia's multipart parser buffers what it is given, so an upload must say its size first (browsers always do).
      const declared = request.headers.get('content-length')
      if (declared === null) throw new HttpError(411, 'Length Required')
      // Elysia would parse a form for any route, and its fields would reach a JSON route as strings: only uploads take one.
      const upload = limits.acceptsMultipart?.(request.method, path) ?? true
      const limit = upload ? (largeUploadLimit(limits, path) ?? limits.upload) : limits.json
      if (Number(declared) > limit) throw new HttpError(413, TOO_LARGE)
      if (!upload) throw jsonInvalid('This endpoint takes a JSON body; multipart/form-data is for file uploads')
      return undefined
    }
    const largeCap = limits.largeJson?.(request.method, path)
    const bytes = await readBodyLimited(request, largeCap ?? limits.json)
    if (bytes.byteLength === 0) return undefined
    // A body over the API's JSON cap (a template's, up to 7 MiB) may hold only so many values: see MAX_LARGE_BODY_VALUES.
    const maxValues = bytes.byteLength > limits.json ? MAX_LARGE_BODY_VALUES : undefined
    const result = bytes.byteLength > offThreadBytes ? await (offThread ??= createJsonWorkerParser())(bytes, maxValues) : parseJsonBytes(bytes, maxValues)
    if (!result.ok) throw jsonInvalid(result.error)
    const parsed = result.value
    // Every JSON body of the API is an object. Checked here, not left to the route schemas: Elysia converts `42`,
    // `true` or `null` into `{}` for a schema whose fields are all optional and one of them numeric, so such a body
    // passed as "no changes" (or as an empty run input). A transport that takes arrays (JSON-RPC batches) parses its own.
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new HttpError(422, [{ loc: ['body'], msg: 'Input should be an object', type: 'model_type', input: parsed }])
    }
    const context = requestContext(request)
    if (context) context.parsedBody = parsed
    if (largeCap !== undefined) limits.bodySchemaCheck?.(request.method, route)?.(parsed)
    return parsed
  }
}
