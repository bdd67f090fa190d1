// One tool per operation of the applications an agent uses (or of an MCP app): executed by the outbound call with the
// caller's credentials, described by the operation's own input schema. A tool is named after its operation: the operation
// id when it is unique among the agent's applications, else `<api_name>__<operation_id>`, at most 64 characters.
import { Type } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { sha256Hex } from '../../platform/ids.ts'
import { ToolError, type Tool } from '../../platform/tools/tool.ts'
import { canSee } from './access.ts'
import type { OperationExecutor } from './execute.ts'
import { RevisionCache, type ApplicationsRevision } from './revision.ts'

/** What an agent's draft says it uses: a whole application, or some of its operations. */
export interface ApplicationRef {
  readonly api_name: string
  readonly operation_ids?: readonly string[]
}

/** An operation as a tool needs it, read once per applications revision. */
interface OperationEntry {
  readonly operationId: string
  readonly method: string
  readonly path: string
  readonly summary: string
  readonly description: string
  readonly deprecated: boolean
  readonly inputSchema: Readonly<Record<string, unknown>>
}

interface ApplicationEntry {
  readonly apiName: string
  readonly title: string
  readonly ownerId: string
  readonly globalSpec: number
  readonly operations: readonly OperationEntry[]
}

const MAX_NAME = 64
const MAX_DESCRIPTION = 1024
/** Upstream error bodies quoted in a tool's error text: enough for a model to correct itself, never a whole page. */
const MAX_ERROR_BODY = 2000
const ANY_ARGUMENTS = Type.Object({}, { additionalProperties: true })

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

function describe(app: ApplicationEntry, op: OperationEntry): string {
  const head = op.summary || `${op.method.toUpperCase()} ${op.path}`
  const body = op.description && op.description !== op.summary ? `\n\n${op.description}` : ''
  const text = `${head}${body}\n\n(${app.title}: ${op.method.toUpperCase()} ${op.path}${op.deprecated ? '; deprecated' : ''})`
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text
}

function bodyText(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return text.length > MAX_ERROR_BODY ? `${text.slice(0, MAX_ERROR_BODY)}…` : text
}

export interface OperationToolsDependencies {
  readonly db: Kysely<Database>
  readonly executor: OperationExecutor
  readonly revision: ApplicationsRevision
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

  /** The application with its operations in document order; cached until any application changes. */
  #application(apiName: string): Promise<ApplicationEntry | null> {
    return this.#applications.get(apiName, async () => {
      const { db } = this.#deps
      const app = await db
        .selectFrom('applications')
        .select(['id', 'api_name', 'title', 'owner_id', 'global_spec'])
        .where('api_name', '=', apiName)
        .executeTakeFirst()
      if (!app) return null
      const rows = await db
        .selectFrom('application_operations')
        .select(['operation_id', 'method', 'path', 'summary', 'description', 'deprecated', 'input_schema'])
        .where('application_id', '=', app.id)
        .orderBy('seq')
        .execute()
      return {
        apiName: app.api_name,
        title: app.title,
        ownerId: app.owner_id,
        globalSpec: app.global_spec,
        operations: rows.map((row) => ({
          operationId: row.operation_id,
          method: row.method,
          path: row.path,
          summary: row.summary,
          description: row.description,
          deprecated: row.deprecated === 1,
          inputSchema: JSON.parse(row.input_schema) as Record<string, unknown>,
        })),
      }
    })
  }

  /**
   * The tools for `refs`, in their order and each application's document order. Applications that no longer exist or
   * that `principal` may not see give no tools (an agent's owner may use an application its viewers cannot).
   */
  async tools(principal: Principal, refs: readonly ApplicationRef[], reserved: ReadonlySet<string> = new Set()): Promise<Tool[]> {
    const chosen: { app: ApplicationEntry; op: OperationEntry }[] = []
    for (const ref of refs) {
      const app = await this.#application(ref.api_name)
      if (!app || !canSee(principal, { owner_id: app.ownerId, global_spec: app.globalSpec })) continue
      const wanted = ref.operation_ids ? new Set(ref.operation_ids) : null
      for (const op of app.operations) if (!wanted || wanted.has(op.operationId)) chosen.push({ app, op })
    }
    const uses = new Map<string, number>()
    for (const { op } of chosen) uses.set(op.operationId, (uses.get(op.operationId) ?? 0) + 1)
    const taken = new Set(reserved)
    return chosen.map(({ app, op }) => {
      const unique = uses.get(op.operationId) === 1 && !reserved.has(op.operationId)
      let name = shortToolName(unique ? op.operationId : `${app.apiName}__${op.operationId}`)
      for (let n = 2; taken.has(name); n++) name = shortToolName(`${app.apiName}__${op.operationId}_${n}`)
      taken.add(name)
      return this.#tool(name, app, op)
    })
  }

  #tool(name: string, app: ApplicationEntry, op: OperationEntry): Tool {
    const executor = this.#deps.executor
    const method = op.method.toLowerCase()
    return {
      name,
      title: op.summary || undefined,
      description: describe(app, op),
      inputSchema: ANY_ARGUMENTS,
      jsonSchema: op.inputSchema,
      annotations: {
        readOnlyHint: method === 'get' || method === 'head',
        idempotentHint: method !== 'post' && method !== 'patch',
        destructiveHint: method === 'delete',
        openWorldHint: true,
      },
      meta: { 'agentbox/operation': { api_name: app.apiName, operation_id: op.operationId } },
      async handler(principal, args) {
        const result = await executor.execute(principal, app.apiName, op.operationId, { arguments: args as Record<string, unknown>, record: false })
        if (result.status >= 400)
          throw new ToolError('upstream_failed', `${app.title} answered ${result.status} to ${op.operationId}: ${bodyText(result.body)}`)
        return { status: result.status, body: result.body, truncated: result.truncated, duration_ms: result.duration_ms }
      },
    }
  }
}
