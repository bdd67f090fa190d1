// Executing an operation: arguments checked against its schema, the caller's (or the organisation's) credential
// applied, the request sent through the guarded outbound client, the upstream's answer returned in an envelope. Every
// real call leaves one interaction, built by platform/tools/call-record.ts: `POST …/execute` writes it here (api_action);
// a tool call's is written by the agent toolbox's run step (mcp_tool), with the credentials this call reports. A dry
// run answers from the document and touches nothing.
import type { Kysely } from 'kysely'
import type { ApplicationsTable } from '../../platform/db/tables/applications.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { badGateway, badRequest, DomainError, gatewayTimeout, invalidInput, notFound, tooLarge } from '../../platform/errors.ts'
import { OutboundError } from '../../platform/outbound/errors.ts'
import type { OutboundResponse, SafeFetch } from '../../platform/outbound/safe-fetch.ts'
import { MIN_SECRET_LENGTH } from '../../platform/secret-masking.ts'
import { recordedCall } from '../../platform/tools/call-record.ts'
import { ToolError, type ToolOutcome } from '../../platform/tools/tool.ts'
import type { InteractionsService } from '../interactions/index.ts'
import { applicationNotFound, canSee } from './access.ts'
import { RevisionCache, type ApplicationsRevision } from './revision.ts'
import type { ArgumentChecker } from './arguments.ts'
import type { ApplicationCredentials, OpenedCredential } from './credentials.ts'
import type { SampleResponse } from './document/examples.ts'
import type { ArgumentTarget } from './document/operations.ts'
import type { SecurityRequirement } from './document/security.ts'
import { buildRequest } from './request-builder.ts'

export interface ExecuteRequest {
  arguments?: Record<string, unknown>
  dry_run?: boolean
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

/** One call made for a tool: the answer, and what its one record needs (the run step of the agent toolbox writes it). */
export interface OperationCall {
  /** The application's title: how errors name it. */
  readonly title: string
  readonly result: ExecuteResult
  /** The credential values sent: masked wherever they appear in the record. */
  readonly secrets: readonly string[]
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

/** Upstream error bodies quoted in an error text: enough for a model or a person to correct the call, never a whole page. */
const MAX_ERROR_BODY = 2000

function bodyText(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return text.length > MAX_ERROR_BODY ? `${text.slice(0, MAX_ERROR_BODY)}…` : text
}

/** What a call's answer is as a tool's outcome: the envelope, or an error when the upstream answered 4xx/5xx. */
export function operationOutcome(title: string, operationId: string, result: ExecuteResult): ToolOutcome {
  if (result.status >= 400)
    return { ok: false, error: new ToolError('upstream_failed', `${title} answered ${result.status} to ${operationId}: ${bodyText(result.body)}`) }
  return { ok: true, content: { status: result.status, body: result.body, truncated: result.truncated, duration_ms: result.duration_ms } }
}

/** The values a credential puts on the wire, as sent and as encoded into a URL, a form or a header. */
function credentialValues(credentials: readonly OpenedCredential[]): string[] {
  const values = new Set<string>()
  for (const credential of credentials) {
    if (credential.type === 'basic') {
      values.add(credential.password)
      values.add(Buffer.from(`${credential.username}:${credential.password}`).toString('base64'))
    } else {
      const secret = credential.type === 'bearer' ? credential.token : credential.api_key
      values.add(secret)
      // How a URL (query, cookie) or a form carries it, when that differs from the value itself.
      if (/[^A-Za-z0-9._~-]/.test(secret)) {
        values.add(encodeURIComponent(secret))
        values.add(new URLSearchParams({ v: secret }).toString().slice(2))
      }
    }
  }
  return [...values].filter((value) => value.length >= MIN_SECRET_LENGTH)
}

/** Argument problems located relative to the arguments (`['id']`), as tools report them. */
function relativeToArguments(error: DomainError): DomainError {
  if (error.kind !== 'invalid_input') return error
  return invalidInput(...error.issues.map((issue) => ({ ...issue, loc: issue.loc[0] === 'arguments' ? issue.loc.slice(1) : issue.loc })))
}

/** What reached the upstream, or why nothing came back. */
type Sent = { response: OutboundResponse; failure: null } | { response: null; failure: OutboundError }

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

  /**
   * `POST …/execute`: the call, recorded as one `api_action` interaction. Argument problems are located under
   * `arguments` (the route puts them under the body). Refused calls (422, 400, 404) and dry runs are not recorded.
   */
  async execute(principal: Principal, apiName: string, operationId: string, request: ExecuteRequest): Promise<ExecuteResult> {
    const args = request.arguments ?? {}
    const ready = await this.#ready(principal, apiName, operationId, args)
    if (request.dry_run === true) return dryRun(ready.operation.sample)
    const { title, sent, durationMs, secrets } = await this.#send(principal, ready, args)
    const result: ExecuteResult | null = sent.response ? { ...envelope(sent.response, durationMs), interaction_id: null } : null
    const outcome: ToolOutcome = result
      ? operationOutcome(title, operationId, result)
      : { ok: false, error: new ToolError('upstream_failed', failureMessage(sent.failure!)) }
    const recorded = await this.#deps.interactions.record(
      principal.userId,
      recordedCall({
        kind: 'api_action',
        apiTitle: title,
        action: operationId,
        arguments: args,
        outcome,
        durationSeconds: durationMs / 1000,
        origin: { clientSource: 'agentbox-api' },
        secrets,
        status: result?.status,
      }),
    )
    if (!result) throw failureError(sent.failure!)
    return { ...result, interaction_id: recorded.id }
  }

  /**
   * One call for a tool, not recorded here: the caller's run step records it (with `secrets`). Argument problems are
   * located relative to the arguments; an unreachable upstream throws (502/504 as DomainErrors); an upstream 4xx/5xx is
   * in the result (operationOutcome words it). `dryRun` answers from the document. `sharedOnly`: refuse applications
   * whose calls use each user's own credentials (GPT apps call with the organisation's).
   */
  async callForTool(
    principal: Principal,
    apiName: string,
    operationId: string,
    args: Record<string, unknown>,
    options: { dryRun?: boolean; sharedOnly?: boolean } = {},
  ): Promise<OperationCall> {
    try {
      const ready = await this.#ready(principal, apiName, operationId, args)
      if (options.sharedOnly && ready.app.shared_security_info !== 1)
        throw badRequest(`${ready.app.title} uses each user's own credentials: only applications with shared credentials can be called here`)
      if (options.dryRun) return { title: ready.app.title, result: dryRun(ready.operation.sample), secrets: [] }
      const { title, sent, durationMs, secrets } = await this.#send(principal, ready, args)
      if (!sent.response) throw failureError(sent.failure)
      return { title, result: { ...envelope(sent.response, durationMs), interaction_id: null }, secrets }
    } catch (error) {
      throw error instanceof DomainError ? relativeToArguments(error) : error
    }
  }

  /** The application and operation `principal` may call, with `args` checked (422 under `arguments`). */
  async #ready(principal: Principal, apiName: string, operationId: string, args: Record<string, unknown>) {
    const prepared = await this.#prepare(apiName, operationId)
    if (!prepared || !canSee(principal, prepared.app)) throw applicationNotFound()
    const { app, operation } = prepared
    if (!operation) throw notFound('Operation not found')
    const issues = this.#deps.checker.check(`${app.id}:${app.revision}:${operationId}`, operation.input_schema, args)
    if (issues.length > 0) throw invalidInput(...issues.map((issue) => ({ ...issue, loc: ['arguments', ...issue.loc] })))
    return { app, operation }
  }

  /** Sends the call with the caller's (or the organisation's) credential; what came back, how long it took, and the secrets sent. */
  async #send(
    principal: Principal,
    { app, operation }: { app: ApplicationsTable; operation: NonNullable<PreparedOperation['operation']> },
    args: Record<string, unknown>,
  ): Promise<{ title: string; sent: Sent; durationMs: number; secrets: readonly string[] }> {
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
    const built = await buildRequest({
      baseUrl,
      method: operation.method,
      path: operation.path,
      targets: operation.targets,
      bodySchema: operation.bodySchema,
      args,
      credentials,
      userAgent: this.#deps.userAgent,
    })

    const started = this.#now()
    let sent: Sent
    try {
      const response = await this.#deps.fetch(built.url, {
        method: built.method,
        headers: built.headers,
        body: built.body,
        secretHeaders: built.secretHeaders,
        secretQueryParams: built.secretQueryParams,
        timeoutMs: TIMEOUT_MS,
      })
      sent = { response, failure: null }
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error
      if (error.code === 'request_too_large') throw tooLarge('The request to the API would be larger than 1 MiB')
      sent = { response: null, failure: error }
    }
    const durationMs = Math.round((this.#now() - started) * 1000) / 1000
    return { title: app.title, sent, durationMs, secrets: credentialValues(credentials) }
  }
}

function dryRun(sample: SampleResponse): ExecuteResult {
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

function envelope(response: OutboundResponse, durationMs: number): Omit<ExecuteResult, 'interaction_id'> {
  const headers: Record<string, string> = {}
  for (const [name, value] of response.headers) if (isSafeHeader(name)) headers[name] = value
  return { status: response.status, headers, body: responseBody(response), truncated: response.truncated, duration_ms: durationMs, dry_run: false }
}

const failureMessage = (failure: OutboundError) => (failure.code === 'timeout' ? `The API did not answer within ${TIMEOUT_MS / 1000} s` : failure.message)
const failureError = (failure: OutboundError) => (failure.code === 'timeout' ? gatewayTimeout(failureMessage(failure)) : badGateway(failureMessage(failure)))
