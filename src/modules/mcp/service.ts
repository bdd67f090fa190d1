// The MCP endpoints' service: who may reach which endpoint, the surface each caller sees (built once per version and
// kept), and tools/call run through the one tool model and recorded as an `mcp_tool` interaction.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { canSeeShared } from '../../platform/auth/shared-items.ts'
import type { Database } from '../../platform/db/schema.ts'
import { notFound } from '../../platform/errors.ts'
import type { Logger } from '../../platform/log.ts'
import { callTool, ToolError, type Tool, type ToolOutcome, type ToolProvider } from '../../platform/tools/tool.ts'
import { authorizeAgent, OWNERS_ONLY_DESIGN, type AgentRow } from '../agents/access.ts'
import { applicationsOf } from '../agents/applications.ts'
import { readDraft, readLive } from '../agents/draft.ts'
import type { OperationTools } from '../applications/tools.ts'
import type { InteractionsService } from '../interactions/service.ts'
import type { ApplicationSkills } from '../skills/home.ts'
import { skillsOf, type StoredSkill } from '../skills/records.ts'
import type { SkillToolsTarget } from '../skills/tools.ts'
import type { WorkflowToolsTarget } from '../workflows/tools.ts'
import { ClientNames } from './client-names.ts'
import type { DesignTools } from './design-tools.ts'
import { SurfaceCache } from './surface-cache.ts'
import { buildSurface, type McpResource, type McpSurface } from './surface.ts'
import type { CallResult, McpExchange } from './transport.ts'

/** Which endpoint a request reached. */
export type McpEndpoint = { kind: 'agent'; name: string; source: 'live' | 'draft' } | { kind: 'app'; apiName: string }

export interface McpServiceDependencies {
  readonly db: Kysely<Database>
  readonly logger: Logger
  readonly workflowTools: ToolProvider<WorkflowToolsTarget>
  readonly skillTools: ToolProvider<SkillToolsTarget>
  readonly operationTools: OperationTools
  readonly applicationSkills: ApplicationSkills
  readonly designTools: DesignTools
  readonly interactions: InteractionsService
  /** True once the licence is past its grace period: tools that change things answer an error result. */
  readonly licenseLapsed: () => boolean
}

export const APP_NOT_FOUND = 'Application not found'
/** What an interaction keeps of a tool's answer: enough to see what happened, never a whole API response. */
const RECORDED_TEXT = 2000
const SECRET_ARGUMENT = /auth|token|key|secret|password|cookie|session/i

/** The tool names an agent's endpoints give to their own tools; operation tools never take them. */
const RESERVED = new Set(['run_workflow', 'resume_workflow', 'load_skill'])

function maskArguments(args: Record<string, unknown>): Record<string, unknown> {
  const masked: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(args)) masked[key] = SECRET_ARGUMENT.test(key) && typeof value === 'string' ? '***' : value
  return masked
}

function toCallResult(outcome: ToolOutcome): CallResult {
  if (!outcome.ok) return { content: [{ type: 'text', text: outcome.error.message }], isError: true }
  const { content } = outcome
  const text = typeof content === 'string' ? content : (JSON.stringify(content) ?? 'null')
  const structured = content !== null && typeof content === 'object' && !Array.isArray(content)
  return { content: [{ type: 'text', text }], ...(structured && { structuredContent: content as Record<string, unknown> }) }
}

function skillResources(holder: string, skills: readonly StoredSkill[]): McpResource[] {
  return skills.map((skill) => ({
    uri: `skill://${holder}/${skill.name}`,
    name: skill.name,
    description: skill.description,
    mimeType: 'text/markdown',
    text: skill.content,
  }))
}

export class McpService {
  readonly #deps: McpServiceDependencies
  readonly #surfaces = new SurfaceCache()
  readonly #clients = new ClientNames()

  constructor(deps: McpServiceDependencies) {
    this.#deps = deps
  }

  /** The surface `principal` sees at `endpoint`; 404 for what they may not see, 403 for a viewer at a design endpoint. */
  async surface(principal: Principal, endpoint: McpEndpoint): Promise<McpSurface> {
    if (endpoint.kind === 'app') return this.#appSurface(principal, endpoint.apiName)
    const agent = await authorizeAgent(this.#deps.db, endpoint.name, principal, endpoint.source === 'draft' ? 'own' : 'use', OWNERS_ONLY_DESIGN)
    const version = endpoint.source === 'live' ? `${agent.live_version}:${agent.live_hash}` : agent.draft_hash
    const key = `agent|${agent.id}|${endpoint.source}|${version}|${this.#deps.operationTools.revision}|${principal.userId}|${principal.role}`
    return this.#cached(key, () => this.#agentSurface(principal, agent, endpoint.source))
  }

  async #cached(key: string, build: () => Promise<McpSurface>): Promise<McpSurface> {
    const kept = this.#surfaces.get(key)
    if (kept) return kept
    const surface = await build()
    this.#surfaces.set(key, surface)
    return surface
  }

  async #agentSurface(principal: Principal, agent: AgentRow, source: 'live' | 'draft'): Promise<McpSurface> {
    const { db } = this.#deps
    const document = source === 'live' ? (await readLive(db, agent.id))?.document : await readDraft(db, agent.id)
    const target = { agent: agent.name, source, channel: 'mcp' as const }
    // The surface is kept per version and caller, and each request checks the caller first: load_skill may answer from
    // this version's skills.
    const skills = document ? skillsOf(document) : []
    const [workflow, skill] = await Promise.all([this.#deps.workflowTools(principal, target), this.#deps.skillTools(principal, { holder: agent.name, skills })])
    const runWorkflow = workflow.filter((tool) => tool.name === 'run_workflow')
    const resumeWorkflow = workflow.filter((tool) => tool.name === 'resume_workflow')
    const design = source === 'draft' ? this.#deps.designTools.tools(agent.name, runWorkflow) : []
    const reserved = new Set([...RESERVED, ...design.map((tool) => tool.name)])
    const operations = document ? await this.#deps.operationTools.tools(principal, applicationsOf(document), reserved) : []
    const tools: Tool[] =
      source === 'live' ? [...runWorkflow, ...resumeWorkflow, ...operations, ...skill] : [...design, ...resumeWorkflow, ...operations, ...skill]
    const instructions =
      source === 'draft'
        ? `This is the design endpoint of the agent ${agent.name}: its tools read and change the draft, which chat and the live MCP URL do not use until you publish it.`
        : document?.instructions || undefined
    return buildSurface({ name: agent.name, title: agent.name, instructions }, tools, skillResources(agent.name, skills))
  }

  async #appSurface(principal: Principal, apiName: string): Promise<McpSurface> {
    const app = await this.#deps.db
      .selectFrom('applications')
      .select(['id', 'api_name', 'title', 'description', 'owner_id', 'global_spec', 'create_mcp'])
      .where('api_name', '=', apiName)
      .executeTakeFirst()
    const visible = app && app.create_mcp === 1 && canSeeShared(principal, app)
    if (!app || !visible) throw notFound(APP_NOT_FOUND)
    const key = `app|${app.id}|${this.#deps.operationTools.revision}|${principal.userId}|${principal.role}`
    return this.#cached(key, async () => {
      const [operations, skills] = await Promise.all([
        this.#deps.operationTools.tools(principal, [{ api_name: app.api_name }], new Set(['load_skill'])),
        this.#deps.applicationSkills.ofMcpApp(principal, app.api_name),
      ])
      const skill = await this.#deps.skillTools(principal, { holder: app.api_name, skills: skills ?? [] })
      const identity = { name: app.api_name, title: app.title, instructions: app.description || undefined }
      return buildSurface(identity, [...operations, ...skill], skillResources(app.api_name, skills ?? []))
    })
  }

  /** One request's exchange: the surface, the caller, and how its tool calls run and are recorded. */
  exchange(principal: Principal, surface: McpSurface, callerKey: string): McpExchange {
    return {
      surface,
      clientName: (fromEnvelope) => fromEnvelope ?? this.#clients.get(callerKey),
      rememberClient: (name) => this.#clients.set(callerKey, name),
      callTool: (name, args, clientName) => this.#call(principal, surface, name, args, clientName),
    }
  }

  async #call(principal: Principal, surface: McpSurface, name: string, args: Record<string, unknown>, clientName: string | undefined): Promise<CallResult> {
    const tool = surface.tools.get(name)!
    const started = performance.now()
    let outcome: ToolOutcome
    if (this.#deps.licenseLapsed() && tool.annotations?.readOnlyHint !== true) {
      outcome = { ok: false, error: new ToolError('license_required', 'License expired: only read-only tools can be used until an admin applies a licence') }
    } else {
      try {
        outcome = await callTool(tool, principal, args)
      } catch (error) {
        this.#deps.logger.error('MCP tool failed', { tool: name, server: surface.name, error: error instanceof Error ? error.message : String(error) })
        outcome = { ok: false, error: new ToolError('failed', 'The tool failed unexpectedly; the server log has the details') }
      }
    }
    const result = toCallResult(outcome)
    const text = result.content[0]!.text
    // Not awaited: the caller asked for the tool, not for its analytics record. The record commits with the next group
    // commit (one event-loop turn later, or at shutdown's flush), so a call does not wait for a write it never asked for.
    void this.#deps.interactions
      .record(principal.userId, {
        kind: 'mcp_tool',
        apiTitle: surface.name,
        action: name,
        isError: result.isError === true,
        durationSeconds: (performance.now() - started) / 1000,
        clientSource: clientName,
        arguments: maskArguments(args),
        result: { isError: result.isError === true, text: text.length > RECORDED_TEXT ? `${text.slice(0, RECORDED_TEXT)}…` : text },
      })
      .catch((error: unknown) => {
        this.#deps.logger.error('MCP tool call not recorded', {
          tool: name,
          server: surface.name,
          error: error instanceof Error ? error.message : String(error),
        })
      })
    return result
  }
}
