// /api/interaction: record MCP tool calls and summarise interactions over time (spec "Record MCP tool", "Interaction summary").
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { RecordedInteraction, RecordMcpToolBody, SummaryBody, SummaryResponse } from './schema.ts'
import type { InteractionsService } from './service.ts'
import type { SummaryService } from './summary.ts'

const JSON_HEADERS = { 'content-type': 'application/json' }

export function interactionsRoutes(guard: AuthGuard, interactions: InteractionsService, summaries: SummaryService) {
  const tags = ['interactions']
  return new Elysia({ name: 'interactions-routes' })
    .use(guard)
    .post(
      '/api/interaction/record-mcp-tool',
      async ({ principal, body }) => ({ ...(await interactions.recordMcpToolCall(principal.userId, body)), recorded: true as const }),
      {
        auth: 'member',
        body: RecordMcpToolBody,
        response: { 200: RecordedInteraction },
        detail: { tags, summary: 'Record an MCP tool call for the caller', description: 'is_error is derived from result.isError.' },
      },
    )
    .post(
      '/api/interaction/summary',
      // The service writes the JSON itself (up to days × titles entries): validating and serialising it again here would
      // cost more than the query. The response schema still documents it.
      async ({ principal, body }) => new Response(await summaries.summariseAsJson(principal, body), { headers: JSON_HEADERS }),
      {
        // A read sent as POST: it keeps working when the licence has lapsed.
        auth: { role: 'member', whenLicenseLapsed: 'allowed' },
        body: SummaryBody,
        response: { 200: SummaryResponse },
        detail: {
          tags,
          summary: 'Count interactions per day, ISO week or month (UTC)',
          description: "Members count their own interactions, admins the organisation's (or one user's with user_id). Every bucket of the range is present.",
          responses: { 403: { description: "A member asked for another user's interactions" }, 404: { description: 'No user with that user_id' } },
        },
      },
    )
}
