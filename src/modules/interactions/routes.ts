// /api/interaction: record MCP tool calls and summarise interactions over time (spec "Record MCP tool", "Interaction summary");
// /api/interactions: the history itself, newest first.
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { InteractionHistory } from './history.ts'
import {
  HistoryPage,
  HistoryQuery,
  InteractionIdParams,
  InteractionItem,
  RecordedInteraction,
  RecordMcpToolBody,
  SummaryBody,
  SummaryResponse,
} from './schema.ts'
import type { InteractionsService } from './service.ts'
import type { SummaryService } from './summary.ts'

const JSON_HEADERS = { 'content-type': 'application/json' }

export function interactionsRoutes(guard: AuthGuard, interactions: InteractionsService, summaries: SummaryService, history: InteractionHistory) {
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
    .get(
      '/api/interactions',
      // The history writes its JSON itself too: the stored arguments and results are JSON already (history.ts).
      async ({ principal, query }) => new Response(await history.pageAsJson(principal, query), { headers: JSON_HEADERS }),
      {
        auth: 'member',
        query: HistoryQuery,
        response: { 200: HistoryPage },
        detail: {
          tags,
          summary: 'The interaction history: MCP tool calls and API actions, newest first',
          description:
            "Members see their own interactions, admins everyone's (or one user's with user_id). Keyset-paged: pass next_cursor as cursor for the next page; " +
            'rows recorded meanwhile never shift a page. A page examines a bounded number of interactions, so with rare filters it may hold fewer than limit items while next_cursor is not null.',
          responses: { 403: { description: "A member asked for another user's interactions" }, 404: { description: 'No user with that user_id' } },
        },
      },
    )
    .get('/api/interactions/:id', async ({ principal, params }) => new Response(await history.itemAsJson(principal, params.id), { headers: JSON_HEADERS }), {
      auth: 'member',
      params: InteractionIdParams,
      response: { 200: InteractionItem },
      detail: { tags, summary: 'One recorded interaction', responses: { 404: { description: "No such interaction, or another member's" } } },
    })
}
