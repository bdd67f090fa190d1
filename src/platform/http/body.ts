// Reads request bodies with a size cap and parses JSON leniently by content type (curl -d sends form content types).
import { HttpError } from './http-error.ts'
import { requestContext } from './request-context.ts'

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

const decoder = new TextDecoder('utf-8', { fatal: true })

function jsonInvalid(message: string): HttpError {
  return new HttpError(422, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', ctx: { error: message } }])
}

/** The deepest nesting of arrays and objects a JSON body may have; no request of the API needs more than a dozen levels. */
export const MAX_JSON_DEPTH = 128

/**
 * True when the JSON text nests arrays and objects deeper than `max`: one pass over the characters, strings skipped.
 * Run before JSON.parse, because every later walk of the value (schema checks, cleaning, cloning) recurses: 100,000
 * levels blocked the server for a second and then failed with a 500.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // Inside a string: skip to its closing quote, stepping over escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) i++
        else if (d === 0x22) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

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
  return async function parseRequestBody({ request, contentType }: { request: Request; contentType: string }) {
    if (request.method === 'GET' || request.method === 'HEAD') return undefined
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
    const bytes = await readBodyLimited(request, limits.largeJson?.(request.method, path) ?? limits.json)
    if (bytes.byteLength === 0) return undefined
    let text: string
    try {
      text = decoder.decode(bytes)
    } catch {
      throw jsonInvalid('Body is not valid UTF-8')
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw jsonInvalid(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw jsonInvalid((error as Error).message)
    }
    // Every JSON body of the API is an object. Checked here, not left to the route schemas: Elysia converts `42`,
    // `true` or `null` into `{}` for a schema whose fields are all optional and one of them numeric, so such a body
    // passed as "no changes" (or as an empty run input). A transport that takes arrays (JSON-RPC batches) parses its own.
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new HttpError(422, [{ loc: ['body'], msg: 'Input should be an object', type: 'model_type', input: parsed }])
    }
    const context = requestContext(request)
    if (context) context.parsedBody = parsed
    return parsed
  }
}
