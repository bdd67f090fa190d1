// One tool per operation of the applications an agent uses (or of an MCP app, or of a GPT app's list): executed by the
// outbound call with the caller's credentials (or only the organisation's), described by the operation's own input
// schema. Tool names: the operation id when it is unique among the agent's applications, else
// `<api_name>__<operation_id>`, at most 64 characters. The agent toolbox puts these together with the other tools and
// records each call.
import { Type } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { sha256Hex } from '../../platform/ids.ts'
import { NO_CONTEXT, type Tool, type ToolContext } from '../../platform/tools/tool.ts'
import { canSee } from './access.ts'
import { operationOutcome, type OperationExecutor } from './execute.ts'
import { RevisionCache, type ApplicationsRevision } from './revision.ts'

/** What an agent's draft says it uses: a whole application, or some of its operations. */
export interface ApplicationRef {
  readonly api_name: string
  readonly operation_ids?: readonly string[]
}

/** An operation as tools and the operation search need it, read once per applications revision. */
export interface OperationInfo {
  readonly apiName: string
  /** The application's title. */
  readonly title: string
  readonly operationId: string
  readonly method: string
  readonly path: string
  readonly summary: string
  readonly description: string
  readonly tags: readonly string[]
  readonly deprecated: boolean
  /** Parsed on first use: an application may have tens of thousands of operations, most never described. */
  readonly inputSchema: Readonly<Record<string, unknown>>
}

/** A tool that calls one operation; `operation` says which (the dynamic mode searches and calls through it). */
export type OperationTool = Tool & { readonly operation: OperationInfo }

/** An application served as its own MCP endpoint (imported with create_mcp). */
export interface McpApplication {
  readonly apiName: string
  readonly title: string
  readonly description: string
}

interface ApplicationEntry {
  readonly apiName: string
  readonly title: string
  readonly description: string
  readonly ownerId: string
  readonly globalSpec: number
  readonly createMcp: boolean
  readonly operations: readonly OperationInfo[]
}

const MAX_NAME = 64
const MAX_DESCRIPTION = 1024
const ANY_ARGUMENTS = Type.Object({}, { additionalProperties: true })
/** Operations read per query: a 90,000-operation application is read in slices with the event loop turning between them. */
const READ_CHUNK = 2000

/**
 * A name of [A-Za-z0-9_-] (what model APIs accept; operation ids may hold dots or slashes) and at most 64 characters:
 * long ones keep their head and end in a hash of the whole, so they stay distinct.
 */
export function shortToolName(raw: string): string {
  const name = raw.replace(/[^A-Za-z0-9_-]/g, '_')
  if (name.length <= MAX_NAME) return name
  const hash = sha256Hex(name).slice(0, 8)
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`
}

function describe(op: OperationInfo): string {
  const head = op.summary || `${op.method.toUpperCase()} ${op.path}`
  const body = op.description && op.description !== op.summary ? `\n\n${op.description}` : ''
  const text = `${head}${body}\n\n(${op.title}: ${op.method.toUpperCase()} ${op.path}${op.deprecated ? '; deprecated' : ''})`
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text
}

interface OperationRow {
  seq: number
  operation_id: string
  method: string
  path: string
  summary: string
  description: string
  tags: string
  deprecated: number
  input_schema: string
}

function operationInfo(app: { api_name: string; title: string }, row: OperationRow): OperationInfo {
  let schema: Record<string, unknown> | undefined
  return {
    apiName: app.api_name,
    title: app.title,
    operationId: row.operation_id,
    method: row.method,
    path: row.path,
    summary: row.summary,
    description: row.description,
    tags: JSON.parse(row.tags) as string[],
    deprecated: row.deprecated === 1,
    get inputSchema() {
      schema ??= JSON.parse(row.input_schema) as Record<string, unknown>
      return schema
    },
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

export interface OperationToolsDependencies {
  readonly db: Kysely<Database>
  readonly executor: OperationExecutor
  readonly revision: ApplicationsRevision
}

/** How the tools call: with the caller's credentials (agents, MCP apps), or only with the organisation's (GPT apps). */
export interface OperationToolOptions {
  /** Names the tools must not take (the endpoint's own tools): such an operation is prefixed with its api_name. */
  readonly reserved?: ReadonlySet<string>
  /** Calls to an application whose credentials are each user's own answer an error instead of running. */
  readonly sharedCredentialsOnly?: boolean
}

export class OperationTools {
  readonly #deps: OperationToolsDependencies
  readonly #applications: RevisionCache<ApplicationEntry | null>

  constructor(deps: OperationToolsDependencies) {
    this.#deps = deps
    this.#applications = new RevisionCache(deps.revision, 256)
  }

  /** Moves whenever an application, operation or credential changes: what a cache of tools built from them is keyed by. */
  get revision(): number {
    return this.#deps.revision.value
  }

  /** The revision once it reflects changes committed on any instance before the call (a key for kept tool sets). */
  async currentRevision(): Promise<number> {
    const syncing = this.#deps.revision.sync?.()
    if (syncing) await syncing
    return this.#deps.revision.value
  }

  /** The application with its operations in document order; cached until any application changes. */
  #application(apiName: string): Promise<ApplicationEntry | null> {
    return this.#applications.get(apiName, async () => {
      const { db } = this.#deps
      const app = await db
        .selectFrom('applications')
        .select(['id', 'api_name', 'title', 'description', 'owner_id', 'global_spec', 'create_mcp'])
        .where('api_name', '=', apiName)
        .executeTakeFirst()
      if (!app) return null
      const operations: OperationInfo[] = []
      for (let after = -1; ; ) {
        const rows = await db
          .selectFrom('application_operations')
          .select(['seq', 'operation_id', 'method', 'path', 'summary', 'description', 'tags', 'deprecated', 'input_schema'])
          .where('application_id', '=', app.id)
          .where('seq', '>', after)
          .orderBy('seq')
          .limit(READ_CHUNK)
          .execute()
        for (const row of rows) operations.push(operationInfo(app, row))
        if (rows.length < READ_CHUNK) break
        after = rows.at(-1)!.seq
        await nextTurn()
      }
      return {
        apiName: app.api_name,
        title: app.title,
        description: app.description,
        ownerId: app.owner_id,
        globalSpec: app.global_spec,
        createMcp: app.create_mcp === 1,
        operations,
      }
    })
  }

  /** The MCP app `apiName` if it exists, was imported with create_mcp, and `principal` sees it; else null. */
  async mcpApplication(principal: Principal, apiName: string): Promise<McpApplication | null> {
    const app = await this.#application(apiName)
    if (!app?.createMcp || !canSee(principal, { owner_id: app.ownerId, global_spec: app.globalSpec })) return null
    return { apiName: app.apiName, title: app.title, description: app.description }
  }

  /**
   * The tools for `refs`, in their order and each application's document order. Applications that no longer exist or
   * that `principal` may not see give no tools (an agent's owner may use an application its viewers cannot).
   */
  async tools(principal: Principal, refs: readonly ApplicationRef[], options: OperationToolOptions = {}): Promise<OperationTool[]> {
    const reserved = options.reserved ?? new Set<string>()
    const chosen: OperationInfo[] = []
    for (const ref of refs) {
      const app = await this.#application(ref.api_name)
      if (!app || !canSee(principal, { owner_id: app.ownerId, global_spec: app.globalSpec })) continue
      const wanted = ref.operation_ids ? new Set(ref.operation_ids) : null
      for (const op of app.operations) if (!wanted || wanted.has(op.operationId)) chosen.push(op)
    }
    const uses = new Map<string, number>()
    for (const op of chosen) uses.set(op.operationId, (uses.get(op.operationId) ?? 0) + 1)
    const taken = new Set(reserved)
    const tools: OperationTool[] = []
    for (const op of chosen) {
      const unique = uses.get(op.operationId) === 1 && !reserved.has(op.operationId)
      let name = shortToolName(unique ? op.operationId : `${op.apiName}__${op.operationId}`)
      for (let n = 2; taken.has(name); n++) name = shortToolName(`${op.apiName}__${op.operationId}_${n}`)
      taken.add(name)
      tools.push(this.#tool(name, op, options.sharedCredentialsOnly === true))
      if (tools.length % READ_CHUNK === 0) await nextTurn()
    }
    return tools
  }

  #tool(name: string, op: OperationInfo, sharedOnly: boolean): OperationTool {
    const executor = this.#deps.executor
    const method = op.method.toLowerCase()
    const call = async (principal: Principal, args: Record<string, unknown>, dryRun: boolean, context: ToolContext) => {
      const { useSecrets, reportStatus } = context
      const done = await executor.callForTool(principal, op.apiName, op.operationId, args, { dryRun, sharedOnly })
      useSecrets(done.secrets)
      if (!dryRun) reportStatus(done.result.status)
      const outcome = operationOutcome(done.title, op.operationId, done.result)
      if (!outcome.ok) throw outcome.error
      return dryRun ? { ...(outcome.content as object), dry_run: true } : outcome.content
    }
    return {
      name,
      title: op.summary || undefined,
      // Made when asked (listing describes each tool once): a large application's tools are mostly never listed.
      get description() {
        return describe(op)
      },
      inputSchema: ANY_ARGUMENTS,
      get jsonSchema() {
        return op.inputSchema
      },
      annotations: {
        readOnlyHint: method === 'get' || method === 'head',
        idempotentHint: method !== 'post' && method !== 'patch',
        destructiveHint: method === 'delete',
        openWorldHint: true,
      },
      meta: { 'agentbox/operation': { api_name: op.apiName, operation_id: op.operationId } },
      operation: op,
      handler: (principal, args, context) => call(principal, args as Record<string, unknown>, false, context),
      mock: (principal, args) => call(principal, args as Record<string, unknown>, true, NO_CONTEXT),
    }
  }
}
