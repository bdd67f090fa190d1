// The HTTP plumbing every route shares: request ids, the body parser, the error contract and the access log (CONTRACT §0).
import { Elysia, ValidationError } from 'elysia'
import { errorFields, type Logger } from '../log.ts'
import { createBodyParser, type BodyLimits } from './body.ts'
import { HttpError, type ValidationIssue } from './http-error.ts'
import { beginRequest, requestContext, type RequestContext } from './request-context.ts'
import { toValidationIssues } from './validation.ts'

const JSON_HEADERS = { 'content-type': 'application/json' }

function errorResponse(status: number, detail: string | ValidationIssue[], context: RequestContext | undefined, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { ...JSON_HEADERS, ...extra }
  if (context) {
    headers['x-request-id'] = context.id
    context.errorStatus = status
  }
  return new Response(JSON.stringify({ detail }), { status, headers })
}

/** The cause Elysia wrapped: our parser's HttpError arrives inside a ParseError. */
function unwrap(error: unknown): unknown {
  if (error instanceof Error && (error as { code?: unknown }).code === 'PARSE' && error.cause !== undefined) return error.cause
  return error
}

export interface HttpPlatformOptions {
  readonly logger: Logger
  readonly limits: BodyLimits
}

export function httpPlatform({ logger, limits }: HttpPlatformOptions) {
  return new Elysia({ name: 'http-platform' })
    .onRequest(function assignRequestId({ request, set }) {
      set.headers['x-request-id'] = beginRequest(request).id
    })
    .onParse({ as: 'global' }, createBodyParser(limits))
    .onError({ as: 'global' }, function renderError({ code, error, request }) {
      const context = requestContext(request)
      const cause = unwrap(error)
      if (cause instanceof HttpError) return errorResponse(cause.status, cause.detail, context, { ...cause.headers })
      if (cause instanceof ValidationError) {
        const errors = cause.all as Parameters<typeof toValidationIssues>[1]
        const validator = cause.validator as { schema?: Record<string, unknown> } | undefined
        const value = cause.type === 'body' ? context?.parsedBody : cause.value
        return errorResponse(422, toValidationIssues(cause.type, errors, value, validator?.schema ?? (validator as Record<string, unknown>)), context)
      }
      switch (code) {
        case 'NOT_FOUND':
          return errorResponse(404, 'Not Found', context)
        case 'PARSE':
          return errorResponse(422, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }], context)
        case 'INVALID_COOKIE_SIGNATURE':
        case 'INVALID_FILE_TYPE':
          return errorResponse(400, 'Bad Request', context)
      }
      logger.error('unhandled error', { request_id: context?.id, method: request.method, path: new URL(request.url).pathname, ...errorFields(cause) })
      return errorResponse(500, 'Internal Server Error', context)
    })
    .onAfterResponse({ as: 'global' }, function logRequest({ request, set, path }) {
      const context = requestContext(request)
      logger.info('request', {
        request_id: context?.id,
        method: request.method,
        path,
        status: context?.errorStatus ?? (typeof set.status === 'number' ? set.status : 200),
        ms: context ? Math.round((performance.now() - context.startedAt) * 100) / 100 : undefined,
      })
    })
}
