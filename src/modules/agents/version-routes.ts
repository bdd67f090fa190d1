// /api/agents/{name}: publish, versions, restore and switch live (docs/api.md "Agents and versions").
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { AgentsStore } from './draft.ts'
import { AGENT_TAGS } from './routes.ts'
import { Agent, AgentParams, ListQuery, PublishBody, SwitchLiveBody, Version, VersionDetail, VersionParams } from './schema.ts'
import { getAgentVersion, listAgentVersions, publishAgentVersion, restoreAgentVersion, switchLiveVersion } from './versions.ts'

export function versionRoutes(guard: AuthGuard, store: AgentsStore) {
  const tags = AGENT_TAGS
  return new Elysia({ name: 'agent-version-routes' })
    .use(guard)
    .post(
      '/api/agents/:name/publish',
      async ({ principal, params, body, set }) => {
        const version = await publishAgentVersion(store, principal, params.name, body?.note ?? null)
        set.status = 201
        return version
      },
      {
        auth: 'member',
        params: AgentParams,
        // The body is optional: a publish without a note may send none.
        body: t.Optional(PublishBody),
        response: { 201: Version },
        detail: {
          tags,
          summary: 'Publish the draft as version N+1 and point live at it',
          description: '409 when the draft matches the live version.',
          responses: { 403: { description: 'The caller is not an owner of the agent' }, 409: { description: 'The draft matches the live version' } },
        },
      },
    )
    .get('/api/agents/:name/versions', ({ principal, params, query }) => listAgentVersions(store.db, principal, params.name, query), {
      auth: 'member',
      params: AgentParams,
      query: ListQuery,
      response: { 200: t.Array(Version) },
      detail: { tags, summary: 'List versions, newest first (owners)', responses: { 403: { description: 'The caller is not an owner of the agent' } } },
    })
    .get('/api/agents/:name/versions/:version', ({ principal, params }) => getAgentVersion(store.db, principal, params.name, params.version), {
      auth: 'member',
      params: VersionParams,
      response: { 200: VersionDetail },
      detail: { tags, summary: "Read a version's snapshot (owners)", responses: { 403: { description: 'The caller is not an owner of the agent' } } },
    })
    .post('/api/agents/:name/versions/:version/restore', ({ principal, params }) => restoreAgentVersion(store, principal, params.name, params.version), {
      auth: 'member',
      params: VersionParams,
      response: { 200: Agent },
      detail: {
        tags,
        summary: 'Replace the draft with a version (owners); live does not move',
        responses: { 403: { description: 'The caller is not an owner of the agent' } },
      },
    })
    .post('/api/agents/:name/live', ({ principal, params, body }) => switchLiveVersion(store, principal, params.name, body.version), {
      auth: 'member',
      params: AgentParams,
      body: SwitchLiveBody,
      response: { 200: Agent },
      detail: {
        tags,
        summary: 'Point live at a version (owners); the MCP URL does not change',
        responses: { 403: { description: 'The caller is not an owner of the agent' } },
      },
    })
}
