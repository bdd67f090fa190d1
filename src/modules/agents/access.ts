// Who may do what with an agent: owners edit, viewers use the live version, admins see all, everyone else gets 404.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { compileOnce } from '../../platform/db/compiled-query.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { AgentsTable } from '../../platform/db/tables/agents.ts'
import { forbidden, notFound } from '../../platform/errors.ts'

export const AGENT_NOT_FOUND = 'Agent not found'
export const OWNERS_ONLY = 'Only owners can change this agent'
export const OWNERS_ONLY_DESIGN = 'Only owners can see the draft and versions of this agent'

/** The caller's standing: `admin` is an admin who is neither owner nor viewer (sees the live version, edits nothing). */
export type AgentRole = 'owner' | 'viewer' | 'admin'

/** What an action needs: `use` the live version, or `own` the agent (draft, versions, sharing, delete). */
export type AgentNeed = 'use' | 'own'

/** An agent row as the caller may see it, with the caller's role and the creator's e-mail. */
export type AgentRow = AgentsTable & { role: AgentRole; creator_email: string }

type Key = { name: string } | { id: string }

type FoundRow = AgentsTable & { member_role: 'owner' | 'viewer' | null; creator_email: string }

// Every agent request runs one of these two lookups; compiled once (compiled-query.ts).
const rowQuery = (by: 'agents.name' | 'agents.id') =>
  compileOnce<Database, 'key' | 'userId', FoundRow>(['key', 'userId'], (db, p) =>
    db
      .selectFrom('agents')
      .innerJoin('users as creator', 'creator.id', 'agents.created_by')
      .leftJoin('agent_members as m', (join) => join.onRef('m.agent_id', '=', 'agents.id').on('m.user_id', '=', p.userId))
      .selectAll('agents')
      .select(['m.role as member_role', 'creator.email as creator_email'])
      .where(by, '=', p.key),
  )
const byName = rowQuery('agents.name')
const byId = rowQuery('agents.id')

async function findRow(db: Kysely<Database>, key: Key, principal: Principal): Promise<AgentRow | null> {
  const [row] = 'name' in key ? await byName(db, { key: key.name, userId: principal.userId }) : await byId(db, { key: key.id, userId: principal.userId })
  if (!row) return null
  const { member_role, ...agent } = row
  const role: AgentRole | null = member_role ?? (principal.role === 'admin' ? 'admin' : null)
  return role ? { ...agent, role } : null
}

/**
 * The agent `name` as `principal` may see it, or the error to answer: 404 when the caller may not see it
 * (so its existence does not leak), 403 when they may see it but `need` is `own` and they are not an owner.
 */
export async function authorizeAgent(
  db: Kysely<Database>,
  name: string,
  principal: Principal,
  need: AgentNeed = 'use',
  forbiddenDetail = OWNERS_ONLY,
): Promise<AgentRow> {
  const row = await findRow(db, { name }, principal)
  if (!row) throw notFound(AGENT_NOT_FOUND)
  if (need === 'own' && row.role !== 'owner') throw forbidden(forbiddenDetail)
  return row
}

/** True when the agent exists and `principal` may use it: an owner, a viewer, or an admin. For tasks (docs/api.md "Tasks"). */
export async function agentVisibleTo(db: Kysely<Database>, agentId: string, principal: Principal): Promise<boolean> {
  return (await findRow(db, { id: agentId }, principal)) !== null
}
