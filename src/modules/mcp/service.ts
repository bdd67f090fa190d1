// The MCP endpoints' service: which tool set each endpoint serves a caller (the agent toolbox makes and keeps them),
// the client names legacy callers gave, and tools/call run through the toolbox's one run step (recorded as mcp_tool).
import type { Principal } from '../../platform/auth/principal.ts'
import type { CallOrigin } from '../../platform/tools/call-record.ts'
import type { Toolbox, ToolRun, ToolSet } from '../toolbox/index.ts'
import type { ClientNames } from './client-names.ts'
import type { CallResult, McpExchange } from './transport.ts'

/** Which endpoint a request reached. */
export type McpEndpoint = { kind: 'agent'; name: string; source: 'live' | 'draft' } | { kind: 'app'; apiName: string } | { kind: 'gateway' }

/** A run as MCP answers it: the text always, structured content when the answer is an object. */
function toCallResult(run: ToolRun): CallResult {
  if (!run.outcome.ok) return { content: [{ type: 'text', text: run.text }], isError: true }
  const { content } = run.outcome
  const structured = content !== null && typeof content === 'object' && !Array.isArray(content)
  return { content: [{ type: 'text', text: run.text }], ...(structured && { structuredContent: content as Record<string, unknown> }) }
}

export class McpService {
  readonly #toolbox: Toolbox
  /** The names legacy callers gave in their initialize, shared by every instance on the database. */
  readonly clientNames: ClientNames

  constructor(toolbox: Toolbox, clientNames: ClientNames) {
    this.#toolbox = toolbox
    this.clientNames = clientNames
  }

  /**
   * The tools `principal` gets at `endpoint`; 404 for what they may not see, 403 for a viewer at a design endpoint. The
   * gateway serves the tools of the external MCP servers the caller can use, with their own tokens.
   */
  toolSet(principal: Principal, endpoint: McpEndpoint): Promise<ToolSet> {
    if (endpoint.kind === 'app') return this.#toolbox.forApplication(principal, endpoint.apiName, { mode: 'live' })
    if (endpoint.kind === 'gateway') return this.#toolbox.forExternalServers(principal, { mode: 'live' })
    return this.#toolbox.forAgent(principal, endpoint.name, { version: endpoint.source, mode: 'live' })
  }

  /** One request's exchange: the tool set, the caller, and how its tool calls run and are recorded. */
  exchange(principal: Principal, set: ToolSet, callerKey: string): McpExchange {
    return {
      set,
      clientName: async (fromEnvelope) => fromEnvelope ?? (await this.clientNames.get(callerKey)),
      rememberClient: (name) => this.clientNames.set(callerKey, name),
      callTool: async (name, args, clientName) => {
        const origin: CallOrigin = { clientSource: clientName }
        return toCallResult(await this.#toolbox.run(principal, set, { name, arguments: args, ...origin }))
      },
    }
  }
}
