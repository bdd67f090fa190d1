// /api/agents/{name}/members: sharing with owners and viewers (docs/api.md "Agents and versions").
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { AgentsStore } from './draft.ts'
import { listMembers, putMember, removeMember } from './members.ts'
import { AGENT_TAGS } from './routes.ts'
import { AgentParams, Member, MemberParams, NoContent, PutMemberBody } from './schema.ts'

export function memberRoutes(guard: AuthGuard, store: AgentsStore) {
  const tags = AGENT_TAGS
  return new Elysia({ name: 'agent-member-routes' })
    .use(guard)
    .get('/api/agents/:name/members', ({ principal, params }) => listMembers(store.db, principal, params.name), {
      auth: 'member',
      params: AgentParams,
      response: { 200: t.Array(Member) },
      detail: { tags, summary: 'List owners and viewers (owners and admins)', responses: { 403: { description: 'The caller is a viewer of the agent' } } },
    })
    .post(
      '/api/agents/:name/members',
      async ({ principal, params, body, set }) => {
        const { member, created } = await putMember(store, principal, params.name, body)
        set.status = created ? 201 : 200
        return member
      },
      {
        auth: 'member',
        params: AgentParams,
        body: PutMemberBody,
        response: { 200: Member, 201: Member },
        detail: {
          tags,
          summary: 'Share with a user by e-mail, or change their role (owners)',
          description: '201 when added, 200 when an existing member got the given role.',
          responses: {
            403: { description: 'The caller is not an owner of the agent' },
            409: { description: 'The change would leave the agent without an owner' },
          },
        },
      },
    )
    .delete(
      '/api/agents/:name/members/:user_id',
      async ({ principal, params, set }) => {
        await removeMember(store, principal, params.name, params.user_id)
        set.status = 204
      },
      {
        auth: 'member',
        params: MemberParams,
        response: { 204: NoContent },
        detail: {
          tags,
          summary: 'Remove a member (owners; anyone may remove themselves); the last owner stays',
          responses: { 403: { description: 'The caller is not an owner of the agent' }, 409: { description: 'The member is the last owner' } },
        },
      },
    )
}
