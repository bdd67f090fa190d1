// The tools of the external MCP servers a user can use, as one tool set: what chat adds to an agent's tools and what
// the MCP gateway serves. Each tool is `<server>__<tool>`; its input schema is the server's, which the server checks;
// a call runs with the user's own token and is recorded as an mcp_tool interaction under the server's name and the
// tool's own name. In mock mode nothing reaches a server: every call answers a simulation, and nothing is recorded.
// A server's claim that a tool only reads is not trusted here: the licence block treats every external tool as one that
// may change things.
import { Type } from '@sinclair/typebox'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Tool, ToolAnnotations, ToolContext, ToolMode } from '../../platform/tools/tool.ts'
import { type ExternalServerTools, gatewayToolNames, type ListedTool } from '../mcp-servers/index.ts'
import { toolSet, type ToolSet } from './tool-set.ts'

/** The name of the set (the gateway's server name). */
export const EXTERNAL_SET = 'gateway'

/** What the toolbox needs of the external servers module. */
export interface ExternalToolSource {
  toolsOf(principal: Principal): Promise<readonly ExternalServerTools[]>
  call(principal: Principal, server: string, tool: string, args: Record<string, unknown>, context: ToolContext): Promise<unknown>
}

/** A tool of an external server: which server and which of its tools, for the call and its record. */
export interface ExternalTool extends Tool {
  readonly external: { readonly server: string; readonly tool: string }
}

export const isExternalTool = (tool: Tool): tool is ExternalTool => 'external' in tool

const ANY_ARGUMENTS = Type.Object({}, { additionalProperties: true })
const built = new WeakMap<ExternalServerTools, ExternalTool[]>()

function annotationsOf(listed: ListedTool): ToolAnnotations {
  const given = listed.annotations ?? {}
  const hint = (name: string) => (typeof given[name] === 'boolean' ? { [name]: given[name] as boolean } : {})
  return {
    ...(typeof given.title === 'string' && { title: given.title }),
    ...hint('destructiveHint'),
    ...hint('idempotentHint'),
    openWorldHint: true,
  }
}

function toolsOf(listing: ExternalServerTools, source: ExternalToolSource): ExternalTool[] {
  const kept = built.get(listing)
  if (kept) return kept
  const names = gatewayToolNames(
    listing.server,
    listing.tools.map((tool) => tool.name),
  )
  const tools = listing.tools.map((listed, i): ExternalTool => {
    const name = names[i]!
    const description = `${listed.description ?? listed.title ?? listed.name}\n\n(Tool ${listed.name} of the MCP server ${listing.server}.)`
    return {
      name,
      ...(listed.title && { title: listed.title }),
      description,
      inputSchema: ANY_ARGUMENTS,
      jsonSchema: listed.inputSchema,
      annotations: annotationsOf(listed),
      external: { server: listing.server, tool: listed.name },
      handler: (principal, args, context) => source.call(principal, listing.server, listed.name, args as Record<string, unknown>, context),
      mock: async () => ({
        simulated: true,
        tool: name,
        detail: `Mock mode: the tool ${listed.name} of the MCP server ${listing.server} was not called`,
      }),
    }
  })
  built.set(listing, tools)
  return tools
}

/** One set over `listings` (a user's usable servers), in the servers' order (by name) and each server's tool order. */
export function externalToolSet(listings: readonly ExternalServerTools[], source: ExternalToolSource, mode: ToolMode): ToolSet {
  const tools = listings.flatMap((listing) => toolsOf(listing, source))
  const servers = listings.filter((listing) => listing.problem === null).map((listing) => listing.server)
  const unavailable = listings.filter((listing) => listing.problem !== null).map((listing) => `${listing.server} (${listing.problem})`)
  const instructions = [
    servers.length > 0
      ? `Tools of the MCP servers you connected in Agentbox, each named <server>__<tool>: ${servers.join(', ')}.`
      : 'You have not connected an MCP server in Agentbox yet: connect servers on its MCP servers page.',
    ...(unavailable.length > 0 ? [`Unavailable just now: ${unavailable.join('; ')}.`] : []),
  ].join(' ')
  return toolSet({
    name: EXTERNAL_SET,
    title: 'Agentbox MCP gateway',
    instructions,
    mode,
    recordKind: 'mcp_tool',
    tools,
    resources: [],
    operations: { mode: 'per_operation', count: 0, limit: 0 },
    hiddenTools: 0,
  })
}
