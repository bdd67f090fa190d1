// Sharing: owners add owners and viewers by e-mail, change their role or remove them; an agent always keeps an owner.
import type { Kysely } from 'kysely'
import { isoTime } from '../../platform/clock.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { AgentMemberRole } from '../../platform/db/tables/agents.ts'
import { conflict, forbidden, invalidInput, notFound } from '../../platform/errors.ts'
import { authorizeAgent } from './access.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import type { AgentsStore } from './draft.ts'

export const LAST_OWNER = 'An agent must keep at least one owner'
export const MEMBER_NOT_FOUND = 'Member not found'
export const NO_SUCH_USER = 'No active user with this e-mail'
export const MEMBERS_HIDDEN = 'Only owners can see who this agent is shared with'

export interface MemberRecord {
  user_id: string
  email: string
  name: string
  role: AgentMemberRole
  added_at: string
  /** E-mail of who added the member or last changed their role. */
  added_by: string
}

export interface MemberChange {
  email: string
  role: AgentMemberRole
}

function membersQuery(db: Kysely<Database>, agentId: string) {
  return db
    .selectFrom('agent_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .innerJoin('users as adder', 'adder.id', 'm.added_by')
    .select(['m.user_id', 'u.email', 'u.name', 'm.role', 'm.added_at', 'adder.email as added_by'])
    .where('m.agent_id', '=', agentId)
}

async function ownerCount(db: Kysely<Database>, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('agent_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Owners and admins (who oversee every agent) see the members; viewers do not. Owners first, then by e-mail. */
export async function listMembers(db: Kysely<Database>, principal: Principal, name: string): Promise<MemberRecord[]> {
  const agent = await authorizeAgent(db, name, principal)
  // An admin keeps their oversight even when they are also a viewer of this agent.
  if (agent.role === 'viewer' && principal.role !== 'admin') throw forbidden(MEMBERS_HIDDEN)
  return membersQuery(db, agent.id).orderBy('m.role').orderBy('u.email').execute()
}

/**
 * Adds a member, or changes the role of one already there (so the call is idempotent). Only active people can be
 * added; demoting the last owner is 409. `created` tells a new membership from a change.
 */
export async function putMember(
  store: AgentsStore,
  principal: Principal,
  name: string,
  change: MemberChange,
): Promise<{ member: MemberRecord; created: boolean }> {
  return inTransaction(store.db, async (trx) => {
    const agent = await authorizeAgent(trx, name, principal, 'own')
    const email = change.email.trim().toLowerCase()
    const user = await trx.selectFrom('users').select('id').where('email', '=', email).where('kind', '=', 'person').where('active', '=', 1).executeTakeFirst()
    if (!user) throw invalidInput({ loc: ['email'], msg: NO_SUCH_USER, type: 'value_error', input: change.email })
    const existing = await trx.selectFrom('agent_members').select('role').where('agent_id', '=', agent.id).where('user_id', '=', user.id).executeTakeFirst()
    if (existing?.role === 'owner' && change.role !== 'owner' && (await ownerCount(trx, agent.id)) <= 1) throw conflict(LAST_OWNER)
    const now = isoTime(store.clock.now())
    if (!existing) {
      await trx
        .insertInto('agent_members')
        .values({ agent_id: agent.id, user_id: user.id, role: change.role, added_at: now, added_by: principal.userId })
        .execute()
    } else if (existing.role !== change.role) {
      await trx
        .updateTable('agent_members')
        .set({ role: change.role, added_at: now, added_by: principal.userId })
        .where('agent_id', '=', agent.id)
        .where('user_id', '=', user.id)
        .execute()
    }
    const member = await membersQuery(trx, agent.id).where('m.user_id', '=', user.id).executeTakeFirstOrThrow()
    return { member, created: !existing }
  })
}

/** Owners remove anyone; any member may remove themselves (a viewer leaving a shared agent). The last owner stays (409). */
export async function removeMember(store: AgentsStore, principal: Principal, name: string, userId: string): Promise<void> {
  await inTransaction(store.db, async (trx) => {
    const agent = await authorizeAgent(trx, name, principal, userId === principal.userId ? 'use' : 'own')
    const member = await trx.selectFrom('agent_members').select('role').where('agent_id', '=', agent.id).where('user_id', '=', userId).executeTakeFirst()
    if (!member) throw notFound(MEMBER_NOT_FOUND)
    if (member.role === 'owner' && (await ownerCount(trx, agent.id)) <= 1) throw conflict(LAST_OWNER)
    await trx.deleteFrom('agent_members').where('agent_id', '=', agent.id).where('user_id', '=', userId).execute()
  })
}
