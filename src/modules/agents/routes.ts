// /api/agents: create, list, get, save (PATCH edits the draft) and delete (docs/api.md "Agents and versions").
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { Agent, AgentParams, AgentSummary, CreateAgentBody, ListQuery, NoContent, SaveAgentBody } from './schema.ts'
import { createAgent, deleteAgent, getAgent, listAgents, saveAgent } from './service.ts'
import type { AgentDesignStore } from './draft.ts'

export const AGENT_TAGS = ['agents']

const jsonResponse = (value: unknown): Response => new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } })

export function agentRoutes(guard: AuthGuard, store: AgentDesignStore) {
  const tags = AGENT_TAGS
  return (
    new Elysia({ name: 'agent-routes' })
      .use(guard)
      .post(
        '/api/agents',
        async ({ body, principal, set }) => {
          set.status = 201
          return createAgent(store, principal, body)
        },
        {
          auth: 'member',
          body: CreateAgentBody,
          response: { 201: Agent },
          detail: {
            tags,
            summary: 'Create an agent (a draft; the creator is its owner)',
            description: 'The name is normalised to lowercase kebab-case; a taken name is 409.',
            responses: { 409: { description: 'An agent of that name exists' } },
          },
        },
      )
      // Serialised here rather than checked against the response schema: Elysia's response check and clean cost about
      // 2 µs per item, more than the query itself on a 10,000-agent list (docs/benchmarks.md). The records are built field
      // by field in toSummary, so nothing unlisted can leak; the schema still documents the response.
      .get('/api/agents', async ({ principal, query }) => jsonResponse(await listAgents(store.db, principal, query)), {
        auth: 'member',
        query: ListQuery,
        response: { 200: t.Array(AgentSummary) },
        detail: {
          tags,
          summary: 'List every agent the caller may see (never capped; limit/offset optional)',
          description: 'Admins see every agent. Oldest first.',
        },
      })
      .get('/api/agents/:name', ({ principal, params }) => getAgent(store.db, principal, params.name), {
        auth: 'member',
        params: AgentParams,
        response: { 200: Agent },
        detail: { tags, summary: 'Get an agent: owners see the draft, viewers and admins the live version' },
      })
      .patch('/api/agents/:name', ({ principal, params, body }) => saveAgent(store, principal, params.name, body), {
        auth: 'member',
        params: AgentParams,
        body: SaveAgentBody,
        response: { 200: Agent },
        detail: {
          tags,
          summary: 'Save: edit the draft (owners); live keeps serving until the next publish',
          responses: { 403: { description: 'The caller is not an owner of the agent' } },
        },
      })
      .delete(
        '/api/agents/:name',
        async ({ principal, params, set }) => {
          await deleteAgent(store.db, principal, params.name)
          set.status = 204
        },
        {
          auth: 'member',
          params: AgentParams,
          response: { 204: NoContent },
          detail: {
            tags,
            summary: 'Delete an agent with its versions and members (owners)',
            responses: { 403: { description: 'The caller is not an owner of the agent' } },
          },
        },
      )
  )
}
