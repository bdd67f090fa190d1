// Request and response schemas of the interaction store (spec "MCP tool call record", "Summary request", docs/api.md "Interactions").
import type { TSchema } from '@sinclair/typebox'
import { t } from 'elysia'
import { IntegerField } from '../../platform/http/integer-field.ts'
import { DateTime } from '../../platform/http/schema-pieces.ts'
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT } from './history.ts'

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

const Filter = (description: string) => t.Optional(t.String({ minLength: 1, maxLength: 200, description }))

export const HistoryQuery = t.Object({
  kind: t.Optional(
    t.Union([t.Literal('mcp_tool'), t.Literal('api_action')], { description: 'mcp_tool (MCP tool calls) or api_action (operations called through Agentbox)' }),
  ),
  api_title: Filter('The MCP server name (mcp_tool) or the application title (api_action)'),
  tool_name: Filter('The tool name (mcp_tool) or the operation id (api_action)'),
  client_source: Filter('e.g. agentbox-copilot, agentbox-api, or an MCP client name'),
  conversation_id: Filter("One conversation's calls"),
  user_id: t.Optional(t.String({ maxLength: 100, description: "Admins: one user's interactions. Members: only their own id" })),
  from: t.Optional(Instant('Interactions at or after this instant (RFC 3339), or from the start of this UTC date')),
  to: t.Optional(Instant('Interactions at or before this instant (RFC 3339), or to the end of this UTC date')),
  is_error: t.Optional(t.BooleanString({ description: 'true: failed calls only; false: successful ones only' })),
  cursor: t.Optional(t.String({ maxLength: 200, description: "The previous page's next_cursor" })),
  limit: t.Optional(
    IntegerField({ minimum: 1, maximum: HISTORY_MAX_LIMIT, description: `Items per page, 1 to ${HISTORY_MAX_LIMIT}. Default ${HISTORY_DEFAULT_LIMIT}` }),
  ),
})

export const InteractionIdParams = t.Object({ id: t.String({ maxLength: 100 }) })

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()])

export const InteractionItem = t.Object({
  id: t.String(),
  kind: t.Union([t.Literal('mcp_tool'), t.Literal('api_action')]),
  api_title: t.String({ description: 'The MCP server name (mcp_tool) or the application title (api_action)' }),
  tool_name: t.String({ description: 'The tool name (mcp_tool) or the operation id (api_action)' }),
  mcp_server_name: Nullable(t.String({ description: 'For mcp_tool: the same as api_title' })),
  client_source: Nullable(t.String()),
  conversation_id: Nullable(t.String()),
  user_id: t.String(),
  user_email: t.String(),
  user_input: Nullable(t.String({ description: 'The user message that led to the call, when the recorder sent one' })),
  arguments: t.Unknown({ description: 'The arguments as recorded (secrets masked when recorded), or null' }),
  result: t.Unknown({ description: 'The result as recorded, or null. API actions: {status, truncated}, or {error} when no answer came' }),
  is_error: t.Boolean(),
  status: Nullable(t.Integer({ description: "API actions: the upstream's HTTP status; null for MCP tool calls and calls that got no answer" })),
  duration_seconds: Nullable(t.Number()),
  created_at: DateTime,
})

export const HistoryPage = t.Object({
  items: t.Array(InteractionItem, { description: 'Newest first' }),
  next_cursor: Nullable(
    t.String({
      description:
        'Pass as cursor for the next (older) page; null when no older interaction matches. A page may hold fewer than limit items, even none, while next_cursor is not null: each page examines a bounded number of interactions',
    }),
  ),
})
