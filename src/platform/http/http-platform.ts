// The Elysia half of the HTTP plumbing: the body parser and the error contract (docs/api.md "Conventions"). Request ids and the access log live in request-tracking.ts.
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable } from '../db/unavailable.ts'
import { Elysia, ValidationError } from 'elysia'
import { errorFields, type Logger } from '../log.ts'
import { BeforeBodyFailure } from './before-body.ts'
import { createBodyParser, type BodyLimits } from './body.ts'
import { boundedIssues, errorBodyText } from '../bounded-errors.ts'
import { DomainError, type DomainErrorKind } from '../errors.ts'
import { HttpError, type ValidationIssue } from './http-error.ts'
import { requestContext } from './request-context.ts'
import { ELYSIA_MAX_ERRORS, toValidationIssues } from './validation.ts'

const JSON_HEADERS = { 'content-type': 'application/json' }
/** Where a located problem can be: a cut list's final entry is located in the same part as its first problem. */
const LOC_ROOTS = new Set(['body', 'query', 'path', 'header', 'cookie'])

/** Every error body of the API is written here, so none passes 64 KiB: long lists are cut, values shortened. */
function errorResponse(status: number, detail: string | ValidationIssue[], extra: Record<string, string> = {}): Response {
  const where = typeof detail === 'string' ? undefined : detail[0]?.loc[0]
  const text = errorBodyText(detail, [typeof where === 'string' && LOC_ROOTS.has(where) ? where : 'body'])
  return new Response(text, { status, headers: { ...JSON_HEADERS, ...extra } })
}

/** The cause Elysia wrapped: our parser's HttpError arrives inside a ParseError. */
function unwrap(error: unknown): unknown {
  if (error instanceof Error && (error as { code?: unknown }).code === 'PARSE' && error.cause !== undefined) return error.cause
  return error
}

/**
 * Elysia checks a coerced query number (t.Numeric) on its own and reports it as `property` with no name.
 * The name is recovered from the query string: the parameter whose value coerces to the failing one.
 */
function queryPropertyIssues(request: Request, errors: Parameters<typeof toValidationIssues>[1], failing: unknown): ValidationIssue[] {
  const names = [...new URL(request.url).searchParams].filter(([, raw]) => Number(raw) === failing).map(([name]) => name)
  const issues = toValidationIssues('query', errors, failing)
  for (const issue of issues) issue.loc = names.length === 1 ? ['query', names[0]!] : ['query']
  return issues
}

const STATUS_OF: Readonly<Record<DomainErrorKind, number>> = {
  invalid_input: 422,
  bad_request: 400,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  bad_gateway: 502,
  gateway_timeout: 504,
}

/** A service's error as the contract's body: issues located in the request by where their field came from. */
function domainErrorResponse(error: DomainError): Response {
  if (error.kind !== 'invalid_input') return errorResponse(STATUS_OF[error.kind], error.message)
  // Cut before locating, so the work does not grow with however many problems the service listed.
  return errorResponse(
    422,
    boundedIssues(error.issues).map(({ in: part = 'body', loc, ...issue }) => ({ loc: [part, ...loc], ...issue })),
  )
}

export interface HttpPlatformOptions {
  readonly logger: Logger
  readonly limits: BodyLimits
  /** The methods a path is served with (allowed-methods.ts): a path served with other methods answers 405, not 404. */
  readonly allowedMethods?: (path: string) => readonly string[]
}

export function httpPlatform({ logger, limits, allowedMethods }: HttpPlatformOptions) {
  return new Elysia({ name: 'http-platform' })
    .onParse({ as: 'global' }, createBodyParser(limits))
    .onError({ as: 'global' }, function renderError({ code, error, request, path }) {
      const context = requestContext(request)
      const unwrapped = unwrap(error)
      // A route's before-body check failed (a database outage, a bug): thrown while parsing, but not a parse error.
      const checkFailed = unwrapped instanceof BeforeBodyFailure
      const cause = checkFailed ? unwrapped.cause : unwrapped
      if (cause instanceof DomainError) return domainErrorResponse(cause)
      if (cause instanceof HttpError) return errorResponse(cause.status, cause.detail, { ...cause.headers })
      if (cause instanceof ValidationError) {
        // Elysia lists at most its first 64 errors; a full list means there may be more.
        const errors = cause.all as Parameters<typeof toValidationIssues>[1]
        const complete = errors.length < ELYSIA_MAX_ERRORS
        const validator = cause.validator as { schema?: Record<string, unknown> } | undefined
        if (cause.type === 'property') return errorResponse(422, queryPropertyIssues(request, errors, cause.value))
        // A JSON body as sent (before Elysia's coercions); a multipart body as Elysia parsed it (we do not parse those).
        const multipart = (request.headers.get('content-type') ?? '').startsWith('multipart/form-data')
        const value = cause.type === 'body' && !multipart ? context?.parsedBody : cause.value
        return errorResponse(422, toValidationIssues(cause.type, errors, value, validator?.schema ?? (validator as Record<string, unknown>), complete))
      }
      switch (checkFailed ? 'UNKNOWN' : code) {
        case 'NOT_FOUND': {
          const allow = allowedMethods?.(path) ?? []
          return allow.length > 0 ? errorResponse(405, 'Method Not Allowed', { allow: allow.join(', ') }) : errorResponse(404, 'Not Found')
        }
        case 'PARSE':
          return errorResponse(422, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }])
        case 'INVALID_COOKIE_SIGNATURE':
        case 'INVALID_FILE_TYPE':
          return errorResponse(400, 'Bad Request')
      }
      if (isDatabaseUnavailable(cause)) {
        logger.warn('database unavailable', {
          request_id: context?.id,
          method: request.method,
          path: new URL(request.url).pathname,
          error: errorMessage(cause),
        })
        return errorResponse(503, DATABASE_UNAVAILABLE, { 'retry-after': '5' })
      }
      logger.error('unhandled error', { request_id: context?.id, method: request.method, path: new URL(request.url).pathname, ...errorFields(cause) })
      return errorResponse(500, 'Internal Server Error')
    })
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error))
