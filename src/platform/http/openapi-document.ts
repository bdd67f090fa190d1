// Builds the OpenAPI 3.1.0 document from the application's routes: the schemas that validate requests, the guard's requirements and the error contract (docs/api.md "Conventions").
import { OptionalKind } from '@sinclair/typebox'
import { AUTH_REQUIREMENT_KEY, type AuthRequirement } from '../auth/guard.ts'
import { BEFORE_BODY_KEY } from './before-body.ts'
import { isMultipartBody, isNoContent, toOpenApiSchema } from './openapi-schema.ts'

type JsonObject = Record<string, unknown>

/** What the builder reads of an Elysia route (`app.routes`). */
export interface RouteDescription {
  readonly method: string
  readonly path: string
  readonly hooks: { body?: unknown; query?: unknown; params?: unknown; response?: unknown; detail?: JsonObject }
}

/**
 * Where a route names security schemes of its own (`{name: scheme}`) besides the default bearer: they join the
 * document's `components.securitySchemes` (a GPT app's key in `x-api-key`).
 */
export const SECURITY_SCHEMES_KEY = 'x-agentbox-security-schemes'

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Methods whose body the server parses (and so can refuse as too large or not JSON). */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH'])

const SUCCESS_DESCRIPTIONS: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted', '204': 'No Content', '503': 'Service Unavailable' }

const jsonContent = (ref: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } })

const ERROR_DETAIL = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string', description: 'A human sentence' } },
}
const VALIDATION_ERROR = {
  type: 'object',
  required: ['loc', 'msg', 'type'],
  properties: {
    loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, description: 'Starts with body, query, path or header' },
    msg: { type: 'string' },
    type: { type: 'string', description: 'A pydantic v2 error type: missing, string_type, int_type, literal_error…' },
    input: { description: 'The failing value, left out for secrets' },
    ctx: { type: 'object' },
  },
}
const HTTP_VALIDATION_ERROR = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
}

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } } }
const WWW_AUTHENTICATE = { 'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string' } } }

/** The errors every route may answer according to its auth, parameters and body; `components.responses` by name. */
const ERROR_RESPONSES: Record<string, { name: string; response: JsonObject }> = {
  '401': {
    name: 'Unauthorized',
    response: {
      description: 'Not authenticated: the bearer token is missing, malformed, expired or revoked',
      headers: WWW_AUTHENTICATE,
      content: jsonContent('ErrorDetail'),
    },
  },
  '402': {
    name: 'LicenseLapsed',
    response: { description: 'The licence has expired and its grace period is over: changes are refused', content: jsonContent('ErrorDetail') },
  },
  '403': { name: 'Forbidden', response: { description: 'Authenticated but not allowed', content: jsonContent('ErrorDetail') } },
  '404': { name: 'NotFound', response: { description: 'No such resource, or not visible to the caller', content: jsonContent('ErrorDetail') } },
  '411': { name: 'LengthRequired', response: { description: 'A multipart body was sent without a Content-Length', content: jsonContent('ErrorDetail') } },
  '413': { name: 'PayloadTooLarge', response: { description: 'The request body is larger than the limit', content: jsonContent('ErrorDetail') } },
  '422': { name: 'ValidationFailed', response: { description: 'Validation error: every failing field', content: jsonContent('HTTPValidationError') } },
}

/** What a route may declare in `detail.responses` with only a description: the body and headers of docs/api.md "Conventions". */
function completeErrorResponse(status: string, declared: JsonObject): JsonObject {
  if ('content' in declared || '$ref' in declared || !/^[45]\d\d$/.test(status)) return declared
  const headers = status === '401' ? WWW_AUTHENTICATE : status === '429' ? RETRY_AFTER : undefined
  return { ...declared, ...(headers && { headers }), content: jsonContent(status === '422' ? 'HTTPValidationError' : 'ErrorDetail') }
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)

/** The ids @elysiajs/openapi gave (`getApiTaskByTask_id`), kept so clients generated from earlier documents still match. */
function operationId(method: string, path: string): string {
  let id = method.toLowerCase()
  for (const segment of path.split('/')) id += segment.startsWith(':') ? `By${capitalize(segment.slice(1))}` : capitalize(segment)
  return id
}

function objectProperties(schema: unknown): { properties: Record<string, JsonObject>; required: string[] } {
  const normalized = toOpenApiSchema(schema) as JsonObject | undefined
  return { properties: (normalized?.properties as Record<string, JsonObject>) ?? {}, required: (normalized?.required as string[]) ?? [] }
}

/** A parameter's description is the parameter's, not its schema's, so Swagger UI shows it. */
function parameter(name: string, location: 'path' | 'query', required: boolean, schema: JsonObject): JsonObject {
  const { description, ...rest } = schema
  return { name, in: location, required, ...(description !== undefined && { description }), schema: rest }
}

function parameters(route: RouteDescription): JsonObject[] {
  const list: JsonObject[] = []
  const params = objectProperties(route.hooks.params)
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) list.push(parameter(name!, 'path', true, params.properties[name!] ?? { type: 'string' }))
  const query = objectProperties(route.hooks.query)
  for (const [name, schema] of Object.entries(query.properties)) list.push(parameter(name, 'query', query.required.includes(name), schema))
  return list
}

/** A body schema that is `t.Optional(…)` or a union with `t.Undefined()` may be left out. */
function isOptionalBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false
  if (OptionalKind in body) return true
  const members = (body as { anyOf?: unknown[] }).anyOf
  return Array.isArray(members) && members.some(isNoContent)
}

function successResponses(response: unknown): Record<string, JsonObject> {
  if (response === undefined) return {}
  const isStatusMap =
    typeof response === 'object' && response !== null && Object.keys(response).length > 0 && Object.keys(response).every((key) => /^\d{3}$/.test(key))
  const byStatus = isStatusMap ? (response as JsonObject) : { 200: response }
  const responses: Record<string, JsonObject> = {}
  for (const [status, raw] of Object.entries(byStatus)) {
    const description = SUCCESS_DESCRIPTIONS[status] ?? `Status ${status}`
    responses[status] =
      status === '204' || isNoContent(raw) ? { description } : { description, content: { 'application/json': { schema: toOpenApiSchema(raw) } } }
  }
  return responses
}

function operation(route: RouteDescription, usedResponses: Set<string>, securitySchemes: JsonObject): JsonObject {
  const {
    hide: _hide,
    responses: declared,
    [AUTH_REQUIREMENT_KEY]: auth,
    [BEFORE_BODY_KEY]: _beforeBody,
    [SECURITY_SCHEMES_KEY]: schemes,
    ...detail
  } = (route.hooks.detail ?? {}) as JsonObject
  Object.assign(securitySchemes, schemes)
  const requirement = auth as AuthRequirement | undefined
  const secured = Array.isArray(detail.security) ? detail.security.length > 0 : true
  const params = parameters(route)
  const op: JsonObject = { ...detail, operationId: (detail.operationId as string | undefined) ?? operationId(route.method, route.path) }
  if (params.length > 0) op.parameters = params
  if (route.hooks.body !== undefined && WITH_BODY.has(route.method)) {
    // A body with a file is an upload: the server parses it as multipart/form-data, and only such a body (body.ts).
    const mediaType = isMultipartBody(route.hooks.body) ? 'multipart/form-data' : 'application/json'
    op.requestBody = { required: !isOptionalBody(route.hooks.body), content: { [mediaType]: { schema: toOpenApiSchema(route.hooks.body) } } }
  }

  const responses: Record<string, JsonObject> = successResponses(route.hooks.response)
  const generic = new Set<string>()
  if (secured) generic.add('401')
  if (requirement && MUTATING.has(route.method) && requirement.whenLicenseLapsed !== 'allowed') generic.add('402')
  if (requirement?.role === 'admin') generic.add('403')
  if (route.path.includes(':')) generic.add('404')
  if (WITH_BODY.has(route.method)) generic.add('411').add('413')
  if (WITH_BODY.has(route.method) || params.length > 0) generic.add('422')
  const declaredStatuses = (declared as Record<string, JsonObject> | undefined) ?? {}
  for (const status of generic) {
    // A route's own description of the status replaces the shared one, which it then does not use.
    if (status in declaredStatuses) continue
    usedResponses.add(status)
    responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]!.name}` }
  }
  for (const [status, response] of Object.entries(declaredStatuses)) responses[status] = completeErrorResponse(status, response)
  op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))
  return op
}

/** The whole document for `routes`; a pure function of the routes' schemas and details, whatever Elysia compiled before. */
export function buildOpenApiDocument(routes: readonly RouteDescription[], version: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {}
  const usedResponses = new Set<string>()
  const securitySchemes: JsonObject = { bearer: { type: 'http', scheme: 'bearer', description: 'An access token from /api/auth/login, or an abx_ API token' } }
  for (const route of routes) {
    if (!METHODS.has(route.method) || route.hooks.detail?.hide || route.path.includes('*')) continue
    const path = toOpenApiPath(route.path)
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = operation(route, usedResponses, securitySchemes)
  }
  const responses = Object.fromEntries([...usedResponses].sort().map((status) => [ERROR_RESPONSES[status]!.name, ERROR_RESPONSES[status]!.response]))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agentbox',
      version: '1.0.0',
      description: `The Agentbox agent platform API (server ${version}). Errors are FastAPI-shaped: \`{"detail": …}\`.`,
    },
    servers: [{ url: '/', description: 'This Agentbox server' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: { ErrorDetail: ERROR_DETAIL, HTTPValidationError: HTTP_VALIDATION_ERROR, ValidationError: VALIDATION_ERROR },
      responses,
      securitySchemes,
    },
  }
}
