// The agent toolbox: the one place an agent's tools are put together (an agent version, an MCP app, or a list of
// applications) and run. Every transport — the MCP endpoints today, chat, the MCP gateway and GPT apps next — asks it
// for a ToolSet and runs calls through `run`, so all of them offer the same tools and leave the same records.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { InteractionKind } from '../../platform/db/tables/interactions.ts'
import { notFound } from '../../platform/errors.ts'
import type { Logger } from '../../platform/log.ts'
import type { CallOrigin } from '../../platform/tools/call-record.ts'
import type { Tool, ToolMode, ToolProvider } from '../../platform/tools/tool.ts'
import { applicationsOf, authorizeAgent, OWNERS_ONLY_DESIGN, readDraft, readLive, type AgentRow } from '../agents/index.ts'
import type { ApplicationRef, OperationTool, OperationTools } from '../applications/index.ts'
import type { InteractionsService } from '../interactions/index.ts'
import { skillsOf, type ApplicationSkills, type SkillToolsTarget, type StoredSkill } from '../skills/index.ts'
import type { WorkflowToolsTarget } from '../workflows/index.ts'
import type { TemplateCatalog } from '../ui-templates/index.ts'
import type { DesignTools } from './design-tools.ts'
import { dynamicOperationTools } from './dynamic-operations.ts'
import { type ExternalToolSource, externalToolSet } from './external-tools.ts'
import { runTool, type ToolRun } from './run-tool.ts'
import { ToolSetCache } from './set-cache.ts'
import { withTemplates } from './template-resources.ts'
import { toolSet, type ToolboxResource, type ToolSet } from './tool-set.ts'

export const APP_NOT_FOUND = 'Application not found'

/** The tool names an agent's sets give to their own tools; operation tools never take them. */
const RESERVED = ['run_workflow', 'resume_workflow', 'load_skill']

export interface ToolboxDependencies {
  readonly db: Kysely<Database>
  readonly logger: Logger
  readonly workflowTools: ToolProvider<WorkflowToolsTarget>
  readonly skillTools: ToolProvider<SkillToolsTarget>
  readonly operationTools: OperationTools
  readonly applicationSkills: ApplicationSkills
  /** The operations' UI templates, served as ui:// resources that the operation tools point at. */
  readonly templates: TemplateCatalog
  readonly designTools: DesignTools
  readonly interactions: InteractionsService
  /** True once the licence is past its grace period: tools that change things answer an error. */
  readonly licenseLapsed: () => boolean
  /** The organisation's `mcp_operation_tool_limit`: above it, operations are offered as find_operations + call_operation. */
  readonly operationToolLimit: () => Promise<number>
  /** The external MCP servers' tools (chat and the gateway); without it, no external tools are offered. */
  readonly externalServers?: ExternalToolSource
}

/** Which agent version, and whether calls run or are simulated. */
export interface AgentToolsRequest {
  /** `live`: the live version (everyone who may use the agent); `draft`: the draft with the design tools (owners). */
  readonly version: 'live' | 'draft'
  readonly mode: ToolMode
}

/** A set of applications' operations offered together (GPT apps), named for its records. */
export interface ApplicationsToolsRequest {
  /** The set's name: the server name, and `mcp_server_name` of its records when recorded as mcp_tool. */
  readonly name: string
  readonly title?: string
  readonly instructions?: string
  readonly applications: readonly ApplicationRef[]
  /** `organisation`: only applications with shared credentials can be called (a per-user one answers an error). */
  readonly credentials: 'caller' | 'organisation'
  /** `api_action` (default): each call recorded under its application's title and operation id; `mcp_tool`: under `name`. */
  readonly recordKind?: InteractionKind
  readonly mode: ToolMode
  /** Overrides the organisation's limit (Infinity: always one tool per operation). */
  readonly operationToolLimit?: number
}

/** A call of one tool of a set, with who asked as the transport knows it. */
export interface ToolCall extends CallOrigin {
  readonly name: string
  readonly arguments: Record<string, unknown>
}

/** What skill resources keep in memory (their bodies, for load_skill and resources/read). */
const skillBytes = (skills: readonly StoredSkill[]) => skills.reduce((sum, skill) => sum + skill.content.length, 0)

function skillResources(holder: string, skills: readonly StoredSkill[]): ToolboxResource[] {
  return skills.map((skill) => ({
    uri: `skill://${holder}/${skill.name}`,
    name: skill.name,
    description: skill.description,
    mimeType: 'text/markdown',
    read: async () => ({ text: skill.content }),
  }))
}

/** In mock mode run_workflow always dry-runs: same arguments, `dry_run` forced. */
function dryRunWorkflows(tools: readonly Tool[]): Tool[] {
  return tools.map((tool) =>
    tool.name === 'run_workflow'
      ? { ...tool, mock: (principal, args, context) => tool.handler(principal, { ...(args as object), dry_run: true }, context) }
      : tool,
  )
}

/** The operation tools as offered: one each up to `limit`, else the two dynamic tools standing in for them all. */
function offeredOperations(operations: readonly OperationTool[], limit: number) {
  const dynamic = operations.length > limit
  return {
    tools: dynamic ? dynamicOperationTools(operations) : operations,
    offer: { mode: dynamic ? ('dynamic' as const) : ('per_operation' as const), count: operations.length, limit },
    hidden: dynamic ? operations.length : 0,
  }
}

export class Toolbox {
  readonly #deps: ToolboxDependencies
  readonly #sets = new ToolSetCache()

  constructor(deps: ToolboxDependencies) {
    this.#deps = deps
  }

  /**
   * The tools of agent `name` for `principal`: 404 for an agent they may not see, 403 for a non-owner asking for the
   * draft. Live: run_workflow, resume_workflow, the operations (or find_operations + call_operation), load_skill; draft:
   * the design tools, resume_workflow, the operations, load_skill. Resources: the version's skills.
   */
  async forAgent(principal: Principal, name: string, request: AgentToolsRequest): Promise<ToolSet> {
    const agent = await authorizeAgent(this.#deps.db, name, principal, request.version === 'draft' ? 'own' : 'use', OWNERS_ONLY_DESIGN)
    const version = request.version === 'live' ? `${agent.live_version}:${agent.live_hash}` : agent.draft_hash
    const limit = await this.#deps.operationToolLimit()
    const key = `agent|${agent.id}|${request.version}|${version}|${await this.#revisions()}|${principal.userId}|${principal.role}|${limit}`
    return inMode(await this.#cached(key, () => this.#agentSet(principal, agent, request.version, limit)), request.mode)
  }

  /** The tools of the MCP app `apiName` (imported with create_mcp): its operations and load_skill; 404 when not one the caller sees. */
  async forApplication(principal: Principal, apiName: string, request: { readonly mode: ToolMode }): Promise<ToolSet> {
    const app = await this.#deps.operationTools.mcpApplication(principal, apiName)
    if (!app) throw notFound(APP_NOT_FOUND)
    const limit = await this.#deps.operationToolLimit()
    const key = `app|${app.apiName}|${await this.#revisions()}|${principal.userId}|${principal.role}|${limit}`
    const set = await this.#cached(key, async () => {
      const [listed, skills] = await Promise.all([
        this.#deps.operationTools.tools(principal, [{ api_name: app.apiName }], { reserved: new Set(['load_skill']) }),
        this.#deps.applicationSkills.ofMcpApp(principal, app.apiName),
      ])
      const operations = await withTemplates(this.#deps.templates, listed)
      const skill = await this.#deps.skillTools(principal, { holder: app.apiName, skills: skills ?? [] })
      const offered = offeredOperations(operations.tools, limit)
      return toolSet({
        name: app.apiName,
        title: app.title,
        instructions: app.description || undefined,
        mode: 'live',
        recordKind: 'mcp_tool',
        tools: [...offered.tools, ...skill],
        resources: [...operations.resources, ...skillResources(app.apiName, skills ?? [])],
        operations: offered.offer,
        hiddenTools: offered.hidden,
        heldBytes: skillBytes(skills ?? []),
      })
    })
    return inMode(set, request.mode)
  }

  /**
   * The operations of `request.applications` the caller may see, as one set (GPT apps: the organisation's credentials
   * only). Not cached: the caller keeps the set as long as it needs it.
   */
  async forApplications(principal: Principal, request: ApplicationsToolsRequest): Promise<ToolSet> {
    const operations = await withTemplates(
      this.#deps.templates,
      await this.#deps.operationTools.tools(principal, request.applications, { sharedCredentialsOnly: request.credentials === 'organisation' }),
    )
    const offered = offeredOperations(operations.tools, request.operationToolLimit ?? (await this.#deps.operationToolLimit()))
    return toolSet({
      name: request.name,
      title: request.title ?? request.name,
      instructions: request.instructions,
      mode: request.mode,
      recordKind: request.recordKind ?? 'api_action',
      tools: offered.tools,
      resources: operations.resources,
      operations: offered.offer,
      hiddenTools: offered.hidden,
    })
  }

  /**
   * The tools of the external MCP servers `principal` can use now (a server without auth, or one they connected), as
   * `<server>__<tool>`, in one set named `gateway`: what the MCP gateway serves and chat adds to an agent's tools. Each
   * user's tool lists are kept briefly by the external servers module, so this does not ask every server every time.
   */
  async forExternalServers(principal: Principal, request: { readonly mode: ToolMode }): Promise<ToolSet> {
    const source = this.#deps.externalServers
    const listings = source ? await source.toolsOf(principal) : []
    return externalToolSet(listings, source ?? NO_EXTERNAL_SERVERS, request.mode)
  }

  /** The chat port: the caller's external tools in `mode`, or null when they have none. */
  async externalTools(principal: Principal, mode: ToolMode): Promise<ToolSet | null> {
    const set = await this.forExternalServers(principal, { mode })
    return set.tools.length > 0 ? set : null
  }

  /**
   * Runs one call of a tool of `set` as `principal` (the principal the set was made for) and records it once, unless
   * the set is in mock mode. Resolves when the tool has answered; the record commits after (see ToolRun.recorded).
   */
  run(principal: Principal, set: ToolSet, call: ToolCall): Promise<ToolRun> {
    return runTool({ interactions: this.#deps.interactions, logger: this.#deps.logger, licenseLapsed: this.#deps.licenseLapsed }, principal, set, call)
  }

  /** What kept sets are built from besides the agent's version: applications (operations, credentials) and templates. */
  async #revisions(): Promise<string> {
    return `${await this.#deps.operationTools.currentRevision()}.${this.#deps.templates.revision}`
  }

  async #cached(key: string, build: () => Promise<ToolSet>): Promise<ToolSet> {
    const kept = this.#sets.get(key)
    if (kept) return kept
    const set = await build()
    this.#sets.set(key, set)
    return set
  }

  async #agentSet(principal: Principal, agent: AgentRow, source: 'live' | 'draft', limit: number): Promise<ToolSet> {
    const { db } = this.#deps
    const document = source === 'live' ? (await readLive(db, agent.id))?.document : await readDraft(db, agent.id)
    // The set is kept per version and caller, and each request checks the caller first: load_skill may answer from
    // this version's skills.
    const skills = document ? skillsOf(document) : []
    const [workflow, skill] = await Promise.all([
      this.#deps.workflowTools(principal, { agent: agent.name, source, channel: 'mcp' }),
      this.#deps.skillTools(principal, { holder: agent.name, skills }),
    ])
    const runWorkflow = dryRunWorkflows(workflow.filter((tool) => tool.name === 'run_workflow'))
    const resumeWorkflow = workflow.filter((tool) => tool.name === 'resume_workflow')
    const design = source === 'draft' ? this.#deps.designTools.tools(agent.name, runWorkflow) : []
    const reserved = new Set([...RESERVED, ...design.map((tool) => tool.name)])
    const operations = await withTemplates(
      this.#deps.templates,
      document ? await this.#deps.operationTools.tools(principal, applicationsOf(document), { reserved }) : [],
    )
    const offered = offeredOperations(operations.tools, limit)
    const tools =
      source === 'live' ? [...runWorkflow, ...resumeWorkflow, ...offered.tools, ...skill] : [...design, ...resumeWorkflow, ...offered.tools, ...skill]
    const instructions =
      source === 'draft'
        ? `This is the design endpoint of the agent ${agent.name}: its tools read and change the draft, which chat and the live MCP URL do not use until you publish it.`
        : document?.instructions || undefined
    return toolSet({
      name: agent.name,
      title: agent.name,
      instructions,
      mode: 'live',
      recordKind: 'mcp_tool',
      tools,
      resources: [...operations.resources, ...skillResources(agent.name, skills)],
      operations: offered.offer,
      hiddenTools: offered.hidden,
      heldBytes: skillBytes(skills),
    })
  }
}

const NO_EXTERNAL_SERVERS: ExternalToolSource = {
  toolsOf: async () => [],
  call: async () => {
    throw new Error('no external MCP servers are wired')
  },
}

/** Sets are built and kept once; a mock view shares the tools and their descriptions and differs only in how calls run. */
function inMode(set: ToolSet, mode: ToolMode): ToolSet {
  return set.mode === mode ? set : { ...set, mode }
}
