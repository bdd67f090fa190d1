// GET /api/insights (docs/api.md "Insights"): admins see the organisation, members themselves.
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { Insights, InsightsQuery } from './schema.ts'
import type { InsightsService } from './service.ts'

export function insightsRoutes(guard: AuthGuard, service: InsightsService) {
  return new Elysia({ name: 'insights-routes' }).use(guard).get(
    '/api/insights',
    // Serialised by the worker and sent as it is: checking a year's 730 day entries against the response schema on every
    // request cost as much as computing them (the schema below documents the answer; the test suite checks every one
    // against it).
    async ({ principal, query }) => new Response(await service.insightsAsJson(principal, query), { headers: { 'content-type': 'application/json' } }),
    {
      auth: 'member',
      query: InsightsQuery,
      response: { 200: Insights },
      detail: {
        tags: ['insights'],
        summary: 'Usage analytics over UTC days: interactions, tools, applications, errors, durations, active users, workflow runs, approvals',
        description:
          'Admins see the organisation, members their own interactions, runs and approvals. Read from rollups a few days at a time. ' +
          'from after to, or a range over 1000 days, is a 422.',
        responses: { 404: { description: 'agent_name names no agent the caller can see' } },
      },
    },
  )
}
