// What an agent's MCP URLs and an MCP app's URL offer the caller, for the console: the tools in order, and whether
// the operations come one tool each or through find_operations and call_operation (the dynamic mode), with the count.
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { AgentToolsParams, AgentToolsQuery, ApplicationToolsParams, ToolsOffer } from './schema.ts'
import type { Toolbox } from './toolbox.ts'
import type { ToolSet } from './tool-set.ts'

function offerView(set: ToolSet, version: 'live' | 'draft' | null) {
  return {
    name: set.name,
    version,
    operation_mode: set.operations.mode,
    operation_count: set.operations.count,
    operation_tool_limit: set.operations.limit,
    tools: set.tools.map((tool) => ({ name: tool.name, ...(tool.title && { title: tool.title }) })),
    resources: set.resources.length,
  }
}

export function toolboxRoutes(guard: AuthGuard, toolbox: Toolbox) {
  const tags = ['mcp']
  return new Elysia({ name: 'toolbox-routes' })
    .use(guard)
    .get(
      '/api/agents/:name/tools',
      async ({ principal, params, query }) => {
        const version = query.version ?? 'live'
        return offerView(await toolbox.forAgent(principal, params.name, { version, mode: 'live' }), version)
      },
      {
        auth: 'member',
        params: AgentToolsParams,
        query: AgentToolsQuery,
        response: { 200: ToolsOffer },
        detail: {
          tags,
          summary: "The tools the agent's MCP URL (or, for owners, its design URL) offers the caller, and how its operations are offered",
          responses: {
            403: { description: 'version=draft from someone who is not an owner' },
            404: { description: 'No such agent, or the caller may not see it' },
          },
        },
      },
    )
    .get(
      '/api/applications/:api_name/tools',
      async ({ principal, params }) => offerView(await toolbox.forApplication(principal, params.api_name, { mode: 'live' }), null),
      {
        auth: 'member',
        params: ApplicationToolsParams,
        response: { 200: ToolsOffer },
        detail: {
          tags,
          summary: "The tools an MCP app's URL offers the caller, and how its operations are offered",
          responses: { 404: { description: 'No such application, not one the caller sees, or not imported with create_mcp' } },
        },
      },
    )
}
