// What one GPT offers: the operations of its applications (and of its agent's live applications), callable only with the
// organisation's shared credentials, and — for a GPT linked to an agent — that agent's own live tools (run_workflow,
// resume_workflow, load_skill), addressed with `api_name` = the agent's name. Both come from the agent toolbox and run
// through its one run step. An offering is kept per GPT until the applications change or the agent's live set does.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { DomainError, forbidden, notFound } from '../../platform/errors.ts'
import { describeTool, type Tool } from '../../platform/tools/tool.ts'
import { applicationsOf, authorizeAgent, readLive, type ApplicationUse } from '../agents/index.ts'
import type { ApplicationRef, OperationTool } from '../applications/index.ts'
import { CALL_OPERATION, FIND_OPERATIONS, type Toolbox, type ToolSet } from '../toolbox/index.ts'
import type { GptCaller } from './gpt-keys.ts'

export const OPERATION_NOT_FOUND = 'Operation not found'
/** The method an agent tool is listed with in operations_list (it is not an HTTP operation). */
export const AGENT_TOOL_METHOD = 'TOOL'
const LOAD_SKILL = 'load_skill'
/** Entries serialised per event-loop turn when apps_list is written: a 10,000-operation list never holds the loop. */
const LIST_SLICE = 500
const KEPT_OFFERINGS = 256

export const outsideApplications = (apiName: string) => forbidden(`'${apiName}' is not one of this GPT's applications`)

const isOperationTool = (tool: Tool): tool is OperationTool => 'operation' in tool
const entryKey = (apiName: string, operationId: string) => `${apiName}\n${operationId}`
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Where a call goes: the set whose run step runs and records it, and the tool's name in it. */
export interface ResolvedAction {
  readonly set: ToolSet
  readonly toolName: string
}

export interface GptOffering {
  /** The api_names this GPT may address. */
  readonly allowed: ReadonlySet<string>
  resolve(apiName: string, operationId: string): ResolvedAction | null
  /** GET /api/gpt_public/apps_list's answer, written once per offering. */
  appsListJson(): Promise<string>
}

interface AgentPart {
  readonly name: string
  readonly set: ToolSet
  /** Its own tools (not its operations, which the GPT runs with the organisation's credentials). */
  readonly tools: readonly Tool[]
  readonly applications: readonly ApplicationUse[]
}

export interface GptOfferingsDependencies {
  readonly db: Kysely<Database>
  readonly toolbox: Toolbox
  /** The applications revision: an offering built before it moved is rebuilt. */
  readonly applicationsRevision: () => number
}

/** The GPT's applications and its agent's, as one list of references: a whole application wins over some of its operations. */
function mergedRefs(gptApplications: readonly string[], agentApplications: readonly ApplicationUse[]): ApplicationRef[] {
  const merged = new Map<string, ApplicationRef>()
  for (const apiName of gptApplications) merged.set(apiName, { api_name: apiName })
  for (const use of agentApplications) {
    const before = merged.get(use.api_name)
    if (before && !before.operation_ids) continue
    if (!use.operation_ids) merged.set(use.api_name, { api_name: use.api_name })
    else merged.set(use.api_name, { api_name: use.api_name, operation_ids: [...new Set([...(before?.operation_ids ?? []), ...use.operation_ids])] })
  }
  return [...merged.values()]
}

function operationEntry(tool: OperationTool): Record<string, unknown> {
  const op = tool.operation
  return { api_name: op.apiName, operation_id: op.operationId, method: op.method, path: op.path, summary: op.summary, input_schema: op.inputSchema }
}

function agentToolEntry(agent: string, tool: Tool): Record<string, unknown> {
  return {
    api_name: agent,
    operation_id: tool.name,
    method: AGENT_TOOL_METHOD,
    path: `/agent/${agent}/mcp`,
    // An agent tool's description says what it offers (run_workflow lists the agent's workflows): all of it.
    summary: tool.description,
    input_schema: describeTool(tool).inputSchema,
  }
}

function offering(caller: GptCaller, operations: ToolSet, agent: AgentPart | null): GptOffering {
  const byOperation = new Map<string, string>()
  for (const tool of operations.tools) if (isOperationTool(tool)) byOperation.set(entryKey(tool.operation.apiName, tool.operation.operationId), tool.name)
  const agentTools = new Map(agent?.tools.map((tool) => [tool.name, tool]))
  const allowed = new Set([...caller.applications, ...(agent?.applications.map((use) => use.api_name) ?? [])])
  if (caller.agentName !== null) allowed.add(caller.agentName)
  const instructions = [caller.instructions, agent?.set.instructions ?? ''].filter((text) => text.trim() !== '').join('\n\n')
  let listJson: Promise<string> | undefined

  const writeList = async (): Promise<string> => {
    const entries: (() => Record<string, unknown>)[] = []
    const own = agent ? agent.tools.filter((tool) => tool.name !== LOAD_SKILL) : []
    for (const tool of own) entries.push(() => agentToolEntry(agent!.name, tool))
    for (const tool of operations.tools) if (isOperationTool(tool)) entries.push(() => operationEntry(tool))
    if (agentTools.has(LOAD_SKILL)) entries.push(() => agentToolEntry(agent!.name, agentTools.get(LOAD_SKILL)!))
    const parts: string[] = []
    for (let start = 0; start < entries.length; start += LIST_SLICE) {
      if (start > 0) await nextTurn()
      parts.push(
        entries
          .slice(start, start + LIST_SLICE)
          .map((entry) => JSON.stringify(entry()))
          .join(','),
      )
    }
    return `{"instructions":${JSON.stringify(instructions)},"operations_list":[${parts.join(',')}],"execute_action":"app_execute_action"}`
  }

  return {
    allowed,
    resolve(apiName, operationId) {
      if (agent && apiName === agent.name && agentTools.has(operationId)) return { set: agent.set, toolName: operationId }
      const toolName = byOperation.get(entryKey(apiName, operationId))
      return toolName === undefined ? null : { set: operations, toolName }
    },
    appsListJson() {
      listJson ??= writeList()
      return listJson
    },
  }
}

interface Kept {
  readonly applicationsRevision: number
  readonly agentSet: ToolSet | null
  readonly offering: GptOffering
}

export class GptOfferings {
  readonly #deps: GptOfferingsDependencies
  readonly #kept = new Map<string, Kept>()

  constructor(deps: GptOfferingsDependencies) {
    this.#deps = deps
  }

  /**
   * Where `caller`'s call of (apiName, operationId) goes. Outside the GPT's applications → 403, decided from the GPT's
   * record before anything is looked up (for a GPT with an agent, after reading which applications the agent's live
   * version uses); an operation its applications do not have → 404.
   */
  async resolve(caller: GptCaller, apiName: string, operationId: string): Promise<ResolvedAction> {
    if (caller.agentName === null && !caller.applications.includes(apiName)) throw outsideApplications(apiName)
    const offered = await this.of(caller)
    if (!offered.allowed.has(apiName)) throw outsideApplications(apiName)
    const resolved = offered.resolve(apiName, operationId)
    if (!resolved) throw notFound(OPERATION_NOT_FOUND)
    return resolved
  }

  async of(caller: GptCaller): Promise<GptOffering> {
    const revision = this.#deps.applicationsRevision()
    const agentSet = caller.agentName === null ? null : await this.#agentSet(caller.principal, caller.agentName)
    const kept = this.#kept.get(caller.id)
    if (kept && kept.applicationsRevision === revision && kept.agentSet === agentSet) return kept.offering
    const built = await this.#build(caller, agentSet)
    if (this.#deps.applicationsRevision() === revision) {
      if (this.#kept.size >= KEPT_OFFERINGS) this.#kept.clear()
      this.#kept.set(caller.id, { applicationsRevision: revision, agentSet, offering: built })
    }
    return built
  }

  /** The agent's live set (kept by the toolbox per live version), or null when the agent no longer exists. */
  async #agentSet(principal: Principal, name: string): Promise<ToolSet | null> {
    try {
      return await this.#deps.toolbox.forAgent(principal, name, { version: 'live', mode: 'live' })
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return null
      throw error
    }
  }

  async #build(caller: GptCaller, agentSet: ToolSet | null): Promise<GptOffering> {
    let agent: AgentPart | null = null
    if (agentSet && caller.agentName !== null) {
      const row = await authorizeAgent(this.#deps.db, caller.agentName, caller.principal)
      const live = await readLive(this.#deps.db, row.id)
      agent = {
        name: caller.agentName,
        set: agentSet,
        tools: agentSet.tools.filter((tool) => !isOperationTool(tool) && tool.name !== FIND_OPERATIONS && tool.name !== CALL_OPERATION),
        applications: live ? applicationsOf(live.document) : [],
      }
    }
    const operations = await this.#deps.toolbox.forApplications(caller.principal, {
      name: caller.name,
      title: caller.name,
      applications: mergedRefs(caller.applications, agent?.applications ?? []),
      credentials: 'organisation',
      recordKind: 'api_action',
      mode: 'live',
      // Every operation is its own entry of operations_list: the GPT addresses them by api_name and operation_id.
      operationToolLimit: Number.POSITIVE_INFINITY,
    })
    return offering(caller, operations, agent)
  }
}
