// What one MCP endpoint offers one caller: server identity, instructions, tools and resources. Built from the version
// it serves and kept (McpService), so a tools/list costs little more than answering with a list already made.
import { describeTool, type Tool } from '../../platform/tools/tool.ts'

export interface McpResource {
  readonly uri: string
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType: string
  /** MCP Apps' `_meta.ui` and the like: given on the list entry and on the read content alike (design/mcp.md §2). */
  readonly meta?: Readonly<Record<string, unknown>>
  readonly text: string
}

export interface McpSurface {
  /** The agent's or the application's name: the server name, and `mcp_server_name` of every recorded call. */
  readonly name: string
  readonly title: string
  readonly instructions?: string
  readonly tools: ReadonlyMap<string, Tool>
  /** The tools as tools/list shows them, in the contract's stable order, described once. */
  readonly listed: readonly ReturnType<typeof describeTool>[]
  readonly resources: ReadonlyMap<string, McpResource>
  readonly listedResources: readonly Record<string, unknown>[]
}

export function buildSurface(
  identity: { name: string; title: string; instructions?: string },
  tools: readonly Tool[],
  resources: readonly McpResource[] = [],
): McpSurface {
  return {
    ...identity,
    tools: new Map(tools.map((tool) => [tool.name, tool])),
    listed: tools.map((tool) => ({ ...describeTool(tool), ...(tool.meta && { _meta: tool.meta }) })),
    resources: new Map(resources.map((resource) => [resource.uri, resource])),
    listedResources: resources.map((resource) => ({
      uri: resource.uri,
      name: resource.name,
      ...(resource.title && { title: resource.title }),
      ...(resource.description && { description: resource.description }),
      mimeType: resource.mimeType,
      ...(resource.meta && { _meta: resource.meta }),
    })),
  }
}
