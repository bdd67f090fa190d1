// Executing an operation: arguments checked against its schema, the caller's (or the organisation's) credential
// applied, the request sent through the guarded outbound client, the upstream's answer returned in an envelope and
// recorded as an `api_action` interaction. A dry run answers from the document and touches nothing.
import type { Kysely } from 'kysely'
import type { ApplicationsTable } from '../../platform/db/tables/applications.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { badGateway, badRequest, gatewayTimeout, invalidInput, notFound, tooLarge } from '../../platform/errors.ts'
import { OutboundError } from '../../platform/outbound/errors.ts'
import type { OutboundResponse, SafeFetch } from '../../platform/outbound/safe-fetch.ts'
import type { InteractionsService } from '../interactions/service.ts'
import { applicationNotFound, canSee } from './access.ts'
import { RevisionCache, type ApplicationsRevision } from './revision.ts'
import type { ArgumentChecker } from './arguments.ts'
import type { ApplicationCredentials } from './credentials.ts'
import type { SampleResponse } from './document/examples.ts'
import type { ArgumentTarget } from './document/operations.ts'
import type { SecurityRequirement } from './document/security.ts'
import { buildRequest } from './request-builder.ts'

export interface ExecuteRequest {
  arguments?: Record<string, unknown>
  dry_run?: boolean
  /** False when the caller records the call itself (an MCP tools/call is one `mcp_tool` interaction, not two). */
  record?: boolean
}

export interface ExecuteResult {
  status: number
  headers: Record<string, string>
  body: unknown
  /** The body was longer than 5 MiB and was cut there. */
  truncated: boolean
  duration_ms: number
  /** The recorded interaction; null for a dry run. */
  interaction_id: string | null
  dry_run: boolean
}

/** Response headers worth passing on: what the body is, paging, rate limits and caching. Never cookies. */
const SAFE_RESPONSE_HEADERS = new Set([
  'content-type',
  'content-language',
  'cache-control',
  'etag',
  'last-modified',
  'date',
  'location',
  'retry-after',
  'link',
  'x-request-id',
  'x-total-count',
])
const isSafeHeader = (name: string) => SAFE_RESPONSE_HEADERS.has(name) || name.startsWith('x-ratelimit-') || name.startsWith('ratelimit')
const SECRET_ARGUMENT = /auth|token|key|secret|password|cookie|session/i
const TEXT_TYPE = /^(text\/|application\/(.+\+)?(json|xml)\b|application\/(x-www-form-urlencoded|javascript|yaml))/i
const JSON_TYPE = /^application\/(.+\+)?json\b/i
const TIMEOUT_MS = 30_000
const decoder = new TextDecoder()

/** What a call needs of its application and operation, read and parsed once per revision. */
interface PreparedOperation {
  app: ApplicationsTable
  operation: {
    method: string
    path: string
    input_schema: string
    security: SecurityRequirement[]
    targets: ArgumentTarget[]
    sample: SampleResponse
    bodySchema: Record<string, unknown> | undefined
  } | null
}

export interface OperationExecutorDependencies {
  db: Kysely<Database>
  credentials: ApplicationCredentials
  checker: ArgumentChecker
  fetch: SafeFetch
  interactions: InteractionsService
  revision: ApplicationsRevision
  userAgent: string
  /** Monotonic milliseconds. */
  now?: () => number
}

function responseBody(response: OutboundResponse): unknown {
  if (response.body.byteLength === 0) return null
  const type = response.headers.get('content-type') ?? ''
  if (!TEXT_TYPE.test(type) && type !== '') return Buffer.from(response.body).toString('base64')
  const text = decoder.decode(response.body)
  if (JSON_TYPE.test(type) && !response.truncated) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

/** What the interaction keeps of the arguments: header and cookie values that look like secrets are masked. */
function recordedArguments(args: Record<string, unknown>, targets: readonly ArgumentTarget[]): Record<string, unknown> {
  const masked = { ...args }
  for (const target of targets)
    if ((target.in === 'header' || target.in === 'cookie') && SECRET_ARGUMENT.test(target.name) && target.arg in masked) masked[target.arg] = '***'
  return masked
}

export class OperationExecutor {
  readonly #deps: OperationExecutorDependencies
  readonly #now: () => number
  readonly #prepared: RevisionCache<PreparedOperation | null>

  constructor(dependencies: OperationExecutorDependencies) {
    this.#deps = dependencies
    this.#now = dependencies.now ?? (() => performance.now())
    this.#prepared = new RevisionCache(dependencies.revision)
  }

  #prepare(apiName: string, operationId: string): Promise<PreparedOperation | null> {
    return this.#prepared.get(`${apiName}\n${operationId}`, async () => {
      const { db } = this.#deps
      const app = await db.selectFrom('applications').selectAll().where('api_name', '=', apiName).executeTakeFirst()
      if (!app) return null
      const row = await db
        .selectFrom('application_operations')
        .select(['method', 'path', 'input_schema', 'security', 'targets', 'sample'])
        .where('application_id', '=', app.id)
        .where('operation_id', '=', operationId)
        .executeTakeFirst()
      if (!row) return { app, operation: null }
      const inputSchema = JSON.parse(row.input_schema) as { properties?: Record<string, Record<string, unknown>> }
      return {
        app,
        operation: {
          method: row.method,
          path: row.path,
          input_schema: row.input_schema,
          security: JSON.parse(row.security),
          targets: JSON.parse(row.targets),
          sample: JSON.parse(row.sample),
          bodySchema: inputSchema.properties?.body,
        },
      }
    })
  }

  async execute(principal: Principal, apiName: string, operationId: string, request: ExecuteRequest): Promise<ExecuteResult> {
    const prepared = await this.#prepare(apiName, operationId)
    if (!prepared || !canSee(principal, prepared.app)) throw applicationNotFound()
    const { app, operation } = prepared
    if (!operation) throw notFound('Operation not found')
    const args = request.arguments ?? {}
    const issues = this.#deps.checker.check(`${app.id}:${app.revision}:${operationId}`, operation.input_schema, args)
    if (issues.length > 0) throw invalidInput(...issues.map((issue) => ({ ...issue, loc: ['arguments', ...issue.loc] })))

    if (request.dry_run === true) {
      const sample = operation.sample
      return {
        status: sample.status,
        headers: sample.content_type ? { 'content-type': sample.content_type } : {},
        body: sample.body,
        truncated: false,
        duration_ms: 0,
        interaction_id: null,
        dry_run: true,
      }
    }

    const credentials = await this.#deps.credentials.forCall(principal, app, operation.security)
    const base = app.base_url ?? app.server_url
    let baseUrl: URL | null = null
    try {
      baseUrl = base ? new URL(base) : null
    } catch {
      baseUrl = null
    }
    if (!baseUrl || (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:'))
      throw badRequest('The application has no absolute http(s) server URL: its owner or an admin sets base_url')
    const targets = operation.targets
    const built = await buildRequest({
      baseUrl,
      method: operation.method,
      path: operation.path,
      targets,
      bodySchema: operation.bodySchema,
      args,
      credentials,
      userAgent: this.#deps.userAgent,
    })

    const started = this.#now()
    let response: OutboundResponse | null = null
    let failure: OutboundError | null = null
    try {
      response = await this.#deps.fetch(built.url, {
        method: built.method,
        headers: built.headers,
        body: built.body,
        secretHeaders: built.secretHeaders,
        secretQueryParams: built.secretQueryParams,
        timeoutMs: TIMEOUT_MS,
      })
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error
      if (error.code === 'request_too_large') throw tooLarge('The request to the API would be larger than 1 MiB')
      failure = error
    }
    const durationMs = Math.round((this.#now() - started) * 1000) / 1000
    const recorded =
      request.record === false
        ? null
        : await this.#deps.interactions.record(principal.userId, {
            kind: 'api_action',
            apiTitle: app.title,
            action: operationId,
            isError: response === null || response.status >= 400,
            durationSeconds: durationMs / 1000,
            clientSource: 'agentbox-api',
            arguments: recordedArguments(args, targets),
            result: response ? { status: response.status, truncated: response.truncated } : { error: failure!.code },
          })
    if (!response) {
      if (failure!.code === 'timeout') throw gatewayTimeout(`The API did not answer within ${TIMEOUT_MS / 1000} s`)
      throw badGateway(failure!.message)
    }
    const headers: Record<string, string> = {}
    for (const [name, value] of response.headers) if (isSafeHeader(name)) headers[name] = value
    return {
      status: response.status,
      headers,
      body: responseBody(response),
      truncated: response.truncated,
      duration_ms: durationMs,
      interaction_id: recorded?.id ?? null,
      dry_run: false,
    }
  }
}
