// What one caller is offered by one agent version, MCP app or set of applications: server identity, instructions, the
// tools in the contract's stable order, and resources read when asked for. Built by the Toolbox and kept, so that a
// transport serving it (MCP tools/list, a chat turn's tool definitions) costs little more than reading a list.
import type { InteractionKind } from '../../platform/db/tables/interactions.ts'
import { describeTool, type Tool, type ToolMode } from '../../platform/tools/tool.ts'

/** A resource's body, produced when it is read. */
export type ResourceContents = { readonly text: string } | { readonly blob: string }

export interface ToolboxResource {
  /** `skill://{holder}/{name}`, or a UI template's `ui://{api_name}/{operation_id}/{template_id}`. */
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType: string
  /** MCP Apps' `_meta.ui` and the like: given on the list entry and on the read content alike. */
  readonly meta?: Readonly<Record<string, unknown>>
  /** The body, read when a client asks for it (a template may be large, or kept in a repository). */
  read(): Promise<ResourceContents>
}

/** How the operations of the set's applications are offered (the console shows it). */
export interface OperationsOffer {
  /** `per_operation`: one tool each; `dynamic`: find_operations and call_operation in their place. */
  readonly mode: 'per_operation' | 'dynamic'
  /** The operations the caller may call through this set. */
  readonly count: number
  /** The organisation's `mcp_operation_tool_limit` the set was built with. */
  readonly limit: number
}

/** A tool as MCP lists it; model APIs take name, description and inputSchema from the same entry. */
export type ToolDescription = ReturnType<typeof describeTool> & { _meta?: Readonly<Record<string, unknown>> }

export interface ToolSet {
  /** The agent's or application's name (or a GPT app's): the server name, and `mcp_server_name` of recorded calls. */
  readonly name: string
  readonly title: string
  readonly instructions?: string
  /** `mock`: every call is simulated (operations as dry runs, workflows as dry runs) and nothing is recorded. */
  readonly mode: ToolMode
  /** How calls through this set are recorded: `mcp_tool` under `name`, or `api_action` under each application's title. */
  readonly recordKind: InteractionKind
  /** In the contract's stable order. */
  readonly tools: readonly Tool[]
  tool(name: string): Tool | undefined
  readonly resources: readonly ToolboxResource[]
  resource(uri: string): ToolboxResource | undefined
  readonly operations: OperationsOffer
  /** The tools described for listing, made once per set. */
  described(): readonly ToolDescription[]
  /**
   * About how many bytes the set keeps (what a cache of sets is bounded by): its tools, hidden operation tools
   * included, at TOOL_BYTES each once described, its resources' list entries, and what their read callbacks hold
   * (skill bodies; never a template's HTML, which is read when asked for).
   */
  readonly weight: number
}

export interface ToolSetParts {
  readonly name: string
  readonly title: string
  readonly instructions?: string
  readonly mode: ToolMode
  readonly recordKind: InteractionKind
  readonly tools: readonly Tool[]
  readonly resources: readonly ToolboxResource[]
  readonly operations: OperationsOffer
  /** Tools held besides the listed ones (the operations behind call_operation). */
  readonly hiddenTools: number
  /** Bytes the resources' read callbacks keep in memory (skill bodies). */
  readonly heldBytes?: number
}

/**
 * What one described tool keeps, about: its name, description and input schema as listed (GitHub's 1,000+ operations
 * average about 1.5 KB each).
 */
export const TOOL_BYTES = 1536
/** A resource's list entry: URI, names, description and `_meta`. */
export const RESOURCE_BYTES = 512

export function toolSet(parts: ToolSetParts): ToolSet {
  const byName = new Map(parts.tools.map((tool) => [tool.name, tool]))
  const byUri = new Map(parts.resources.map((resource) => [resource.uri, resource]))
  let described: ToolDescription[] | undefined
  return {
    name: parts.name,
    title: parts.title,
    ...(parts.instructions && { instructions: parts.instructions }),
    mode: parts.mode,
    recordKind: parts.recordKind,
    tools: parts.tools,
    tool: (name) => byName.get(name),
    resources: parts.resources,
    resource: (uri) => byUri.get(uri),
    operations: parts.operations,
    described() {
      described ??= parts.tools.map((tool) => ({ ...describeTool(tool), ...(tool.meta && { _meta: tool.meta }) }))
      return described
    },
    weight: (parts.tools.length + parts.hiddenTools + 1) * TOOL_BYTES + parts.resources.length * RESOURCE_BYTES + (parts.heldBytes ?? 0),
  }
}
