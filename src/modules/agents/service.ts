// Agents: create, list, get, save (edit the draft) and delete; re-exports what other modules use (tasks, workflows, skills).
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import type { Kysely, SelectQueryBuilder } from 'kysely'
import { isoTime } from '../../platform/clock.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { conflict, invalidInput } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { authorizeAgent, type AgentRole } from './access.ts'
import { documentHash, newDocument, serialiseDocument } from './document.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { updateDraft, type AgentDesignStore, type AgentsStore } from './draft.ts'
import { agentNameIssue, normaliseAgentName } from './names.ts'
import type { ApplicationUse } from './application-uses.ts'
import { resolvePage, uncappedList, type Page } from '../../platform/http/paging.ts'
import { toAgent, toSummary, type AgentRecord, type AgentSummaryRecord, type SummaryRow } from './views.ts'

export { AGENT_NOT_FOUND, agentVisibleTo, authorizeAgent, OWNERS_ONLY_DESIGN, type AgentNeed, type AgentRole, type AgentRow } from './access.ts'
export type { AgentDocument, DocumentItem } from './document.ts'
export {
  liveInstructions,
  readDraft,
  readLive,
  readSourceDocument,
  readVersion,
  updateDraft,
  type AgentsStore,
  type DocumentSource,
  type SourceDocument,
  type VersionDocument,
} from './draft.ts'
export { agentNameIssue, normaliseAgentName } from './names.ts'
export { applicationsOf, type ApplicationUse, type ApplicationUsesCheck } from './application-uses.ts'
export type { AgentRecord, AgentSummaryRecord } from './views.ts'
export type { Page } from '../../platform/http/paging.ts'

export const NAME_IMMUTABLE = 'The name of an agent cannot be changed'

export interface NewAgent {
  name: string
  description: string
  instructions: string
}

export interface AgentChanges {
  name?: string
  description?: string
  instructions?: string
  applications?: ApplicationUse[]
}

const nameTaken = (name: string) => conflict(`An agent named '${name}' already exists`)

/** The creator becomes the first owner; the agent starts as a draft with no live version. */
export async function createAgent(store: AgentsStore, principal: Principal, input: NewAgent): Promise<AgentRecord> {
  const issue = agentNameIssue(input.name)
  if (issue) throw invalidInput(issue)
  const name = normaliseAgentName(input.name)
  const document = newDocument(input.description, input.instructions)
  const now = isoTime(store.clock.now())
  const id = newId()
  try {
    return await inTransaction(store.db, async (trx) => {
      if (await trx.selectFrom('agents').select('id').where('name', '=', name).executeTakeFirst()) throw nameTaken(name)
      await trx
        .insertInto('agents')
        .values({
          id,
          name,
          description: input.description,
          draft_hash: documentHash(document),
          live_version: null,
          live_description: null,
          live_hash: null,
          created_by: principal.userId,
          created_at: now,
          updated_at: now,
        })
        .execute()
      await trx
        .insertInto('agent_drafts')
        .values({ agent_id: id, document: serialiseDocument(document), updated_at: now, updated_by: principal.userId })
        .execute()
      await trx
        .insertInto('agent_members')
        .values({ agent_id: id, user_id: principal.userId, role: 'owner', added_at: now, added_by: principal.userId })
        .execute()
      return toAgent(trx, await authorizeAgent(trx, name, principal))
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(name)
    throw error
  }
}

/**
 * The list query, exported so tests can check its plan. Admins: every agent in id (creation) order, with their own
 * membership by primary key. Members: their memberships through agent_members_user (user_id, agent_id), each agent by
 * primary key; both orders are index order, so a page costs its size, not the table's.
 */
export function agentListQuery(db: Kysely<Database>, principal: Principal, page: Page = {}) {
  const columns = [
    'agents.id',
    'agents.name',
    'agents.description',
    'agents.live_version',
    'agents.live_description',
    'agents.live_hash',
    'agents.draft_hash',
    'agents.created_at',
    'agents.updated_at',
    'creator.email as creator_email',
    'm.role as member_role',
  ] as const
  const { limit, offset } = resolvePage(page, uncappedList)
  // biome-ignore lint/suspicious/noExplicitAny: any query over any tables; only limit/offset are applied
  const paged = <Q extends SelectQueryBuilder<any, any, any>>(q: Q): Q => q.limit(limit).offset(offset) as Q
  if (principal.role === 'admin') {
    return paged(
      db
        .selectFrom('agents')
        .innerJoin('users as creator', 'creator.id', 'agents.created_by')
        .leftJoin('agent_members as m', (join) => join.onRef('m.agent_id', '=', 'agents.id').on('m.user_id', '=', principal.userId))
        .select(columns)
        .orderBy('agents.id'),
    )
  }
  return paged(
    db
      .selectFrom('agent_members as m')
      .innerJoin('agents', 'agents.id', 'm.agent_id')
      .innerJoin('users as creator', 'creator.id', 'agents.created_by')
      .select(columns)
      .where('m.user_id', '=', principal.userId)
      .orderBy('m.agent_id'),
  )
}

/** Every agent the caller may see (admins: all), oldest first; `limit`/`offset` page it. */
export async function listAgents(db: Kysely<Database>, principal: Principal, page: Page = {}): Promise<AgentSummaryRecord[]> {
  const rows = await agentListQuery(db, principal, page).execute()
  return rows.map(({ member_role, ...row }) => toSummary({ ...row, role: (member_role ?? 'admin') as AgentRole } as SummaryRow))
}

/** Whether an agent has this name, visible to the caller or not (an import that must not take it). */
export async function agentNameTaken(db: Kysely<Database>, name: string): Promise<boolean> {
  return (await db.selectFrom('agents').select('id').where('name', '=', name).executeTakeFirst()) !== undefined
}

export async function getAgent(db: Kysely<Database>, principal: Principal, name: string): Promise<AgentRecord> {
  return toAgent(db, await authorizeAgent(db, name, principal))
}

/** Save: edits the draft only; chat and the MCP URL keep using the live version until the next publish. */
export async function saveAgent(store: AgentDesignStore, principal: Principal, name: string, changes: AgentChanges): Promise<AgentRecord> {
  return inTransaction(store.db, async (trx) => {
    const agent = await authorizeAgent(trx, name, principal, 'own')
    // A rename would move /agent/{name}/mcp and every workflow path under clients' feet; sending the same name back is fine.
    if (changes.name !== undefined && normaliseAgentName(changes.name) !== agent.name) {
      throw invalidInput({ loc: ['name'], msg: NAME_IMMUTABLE, type: 'value_error', input: changes.name })
    }
    const applications = changes.applications && (await store.checkApplicationUses(trx, principal, changes.applications))
    await updateDraft({ db: trx, clock: store.clock }, agent.id, principal.userId, (draft) => {
      if (changes.description !== undefined) draft.description = changes.description
      if (changes.instructions !== undefined) draft.instructions = changes.instructions
      if (applications) draft.applications = applications
    })
    return toAgent(trx, await authorizeAgent(trx, name, principal))
  })
}

/** Removes the agent with its draft, versions and members; the name becomes free again. */
export async function deleteAgent(db: Kysely<Database>, principal: Principal, name: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const agent = await authorizeAgent(trx, name, principal, 'own')
    for (const table of ['agent_members', 'agent_versions', 'agent_drafts'] as const) await trx.deleteFrom(table).where('agent_id', '=', agent.id).execute()
    await trx.deleteFrom('agents').where('id', '=', agent.id).execute()
  })
}
