// Request and response schemas of the interaction store (spec "MCP tool call record", "Summary request", docs/api.md "Interactions").
import { t } from 'elysia'

export const RecordMcpToolBody = t.Object({
  tool_name: t.String({ minLength: 1, maxLength: 200, description: 'MCP tool name' }),
  mcp_server_name: t.String({ minLength: 1, maxLength: 200, description: 'MCP server / app name; summaries count it as the api_title' }),
  result: t.Optional(t.Unknown({ description: 'Any JSON: a content array, or an object with isError, error, content. isError true marks the call failed.' })),
  user_input: t.Optional(t.String({ description: 'The user message that led to the tool call' })),
  arguments: t.Optional(t.Record(t.String(), t.Unknown(), { description: 'Tool call arguments' })),
  duration_seconds: t.Optional(t.Number({ minimum: 0, description: 'Execution duration in seconds' })),
  conversation_id: t.Optional(t.String({ maxLength: 200 })),
  client_source: t.Optional(t.String({ maxLength: 200, description: 'e.g. agentbox-copilot' })),
})

export const RecordedInteraction = t.Object({ id: t.String(), recorded: t.Literal(true) })

export const SummaryType = t.Union([t.Literal('api_usage'), t.Literal('total')])
export const TimeFrame = t.Union([t.Literal('daily'), t.Literal('weekly'), t.Literal('monthly')])

// Not `format: 'date-time'`: the format Elysia registers accepts plain dates only for the years 1900–2099, so
// "2100-01-01" was refused. The service parses both forms strictly (buckets.ts parseInstant) and answers 422 itself.
const Instant = (description: string) => t.String({ maxLength: 64, examples: ['2026-11-24', '2026-11-24T09:30:00Z'], description })

export const SummaryBody = t.Object({
  summary_type: t.Optional(t.Union(SummaryType.anyOf, { description: 'api_usage (default): counts per api_title; total: one count per bucket' })),
  time_frame: t.Optional(t.Union(TimeFrame.anyOf, { description: 'daily (default) 2026-11-21, weekly (ISO) 2026-W47, monthly 2026-11; UTC' })),
  start_date: t.Optional(Instant('RFC 3339 date-time, or a date; the range covers whole UTC days. Default: 30 days, 12 weeks or 12 months before end_date')),
  end_date: t.Optional(Instant('RFC 3339 date-time, or a date; its whole UTC day is included. Default: now')),
  api_title: t.Optional(t.Array(t.String({ maxLength: 200 }), { maxItems: 100, description: 'Count only these titles; empty or omitted: all' })),
  user_id: t.Optional(t.String({ maxLength: 100, description: "Admins: one user's interactions instead of the organisation's. Members: only their own id" })),
})

/**
 * Bucket key → per-title counts (api_usage) or one count (total); every bucket of the range is present.
 * An object with additionalProperties rather than t.Record: Elysia's response normaliser rebuilds records key by key by
 * assignment, which drops a title such as "__proto__"; an object's extra properties are copied as they are.
 */
export const SummaryResponse = t.Object({}, { additionalProperties: t.Union([t.Integer(), t.Record(t.String(), t.Integer())]) })
