// Request and response schemas of the toolbox's own routes: what an agent's or MCP app's endpoint offers the caller.
import { t } from 'elysia'

export const AgentToolsParams = t.Object({ name: t.String() })
export const ApplicationToolsParams = t.Object({ api_name: t.String() })
export const AgentToolsQuery = t.Object({
  version: t.Optional(
    t.Union([t.Literal('live'), t.Literal('draft')], { description: "live (default): the live MCP URL's tools; draft: the design endpoint's (owners)" }),
  ),
})

export const ToolsOffer = t.Object({
  name: t.String({ description: "The agent's or application's name: the MCP server name" }),
  version: t.Union([t.Literal('live'), t.Literal('draft'), t.Null()], { description: 'Which agent version; null for an MCP app' }),
  operation_mode: t.Union([t.Literal('per_operation'), t.Literal('dynamic')], {
    description:
      "per_operation: one tool per operation; dynamic: more operations than the organisation's mcp_operation_tool_limit, offered as find_operations and call_operation",
  }),
  operation_count: t.Integer({ description: 'The operations the caller can call through this endpoint' }),
  operation_tool_limit: t.Integer({ description: "The organisation's mcp_operation_tool_limit" }),
  tools: t.Array(t.Object({ name: t.String(), title: t.Optional(t.String()) }), {
    description: 'The tools tools/list shows the caller, in order',
  }),
  resources: t.Integer({ description: 'Resources offered (skills)' }),
})
