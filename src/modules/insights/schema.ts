// Request and response schemas of GET /api/insights.
import { t } from 'elysia'

const Day = t.String({ description: 'A UTC day, YYYY-MM-DD' })
const Count = t.Integer({ minimum: 0 })

export const InsightsQuery = t.Object({
  from: t.Optional(t.String({ description: 'First UTC day (YYYY-MM-DD), inclusive. Default: 29 days before `to`' })),
  to: t.Optional(t.String({ description: 'Last UTC day (YYYY-MM-DD), inclusive. Default: today' })),
  agent_name: t.Optional(t.String({ description: 'Only this agent: calls through its MCP server, its workflow runs and approvals' })),
})

export const Insights = t.Object({
  from: Day,
  to: Day,
  interactions_per_day: t.Array(t.Object({ date: Day, mcp_tool: Count, api_action: Count, total: Count }), {
    description: 'Every day of the range, oldest first',
  }),
  top_tools: t.Array(t.Object({ tool_name: t.String(), mcp_server_name: t.String(), count: Count }), { description: 'MCP tools by calls, at most 10' }),
  top_applications: t.Array(t.Object({ api_title: t.String(), count: Count }), { description: 'Applications by API actions, at most 10' }),
  error_rate: t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()], { description: 'Failed ÷ all interactions; null without any' }),
  duration_ms: t.Object(
    { p50: t.Union([t.Number(), t.Null()]), p95: t.Union([t.Number(), t.Null()]) },
    { description: 'Nearest-rank percentiles over interactions with a duration, within 2 %' },
  ),
  active_users_per_day: t.Array(t.Object({ date: Day, count: Count }), { description: 'Users with at least one interaction that day' }),
  workflow_runs: t.Object(
    { running: Count, waiting_human: Count, succeeded: Count, failed: Count, rejected: Count, cancelled: Count },
    { description: 'Recorded runs started in the range, by their status now' },
  ),
  approvals: t.Object({
    waiting: Count,
    median_decision_s: t.Union([t.Number(), t.Null()], { description: 'Median wait of the gates decided in the range (or timed out)' }),
  }),
})
