// Versions: publish the draft as vN and point live at it, list and read versions, restore one into the draft, switch live.
import type { Kysely } from 'kysely'
import { isoTime } from '../../platform/clock.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import { applicationsOf, type ApplicationUse } from './application-uses.ts'
import { conflict, notFound } from '../../platform/errors.ts'
import { authorizeAgent, OWNERS_ONLY_DESIGN } from './access.ts'
import { documentHash, parseDocument, serialiseDocument } from './document.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { mayBeAVersion, readDraft, writeDraft, type AgentsStore } from './draft.ts'
import { resolvePage, uncappedList, type Page } from '../../platform/http/paging.ts'
import { toAgent, type AgentRecord } from './views.ts'

export const NOTHING_TO_PUBLISH = 'Nothing to publish: the draft matches the live version'
export const VERSION_NOT_FOUND = 'Version not found'

export interface VersionRecord {
  version: number
  note: string | null
  created_at: string
  /** The publisher's e-mail. */
  created_by: string
  /** Whether live points at this version. */
  live: boolean
}

export interface VersionDetailRecord extends VersionRecord {
  description: string
  instructions: string
  /** The applications whose operations this version's MCP endpoints offer. */
  applications: ApplicationUse[]
}

function versionsQuery(db: Kysely<Database>, agentId: string) {
  return db
    .selectFrom('agent_versions as v')
    .innerJoin('users as publisher', 'publisher.id', 'v.created_by')
    .select(['v.version', 'v.note', 'v.created_at', 'publisher.email as created_by'])
    .where('v.agent_id', '=', agentId)
}

/**
 * Snapshots the whole draft (every part: instructions, skills, workflows, templates) as version N+1 and points live at
 * it, in one transaction. A draft identical to the live version is refused with 409, so history holds only real changes.
 */
export async function publishAgentVersion(store: AgentsStore, principal: Principal, name: string, note: string | null = null): Promise<VersionRecord> {
  return inTransaction(store.db, async (trx) => {
    const agent = await authorizeAgent(trx, name, principal, 'own')
    if (agent.draft_hash === agent.live_hash) throw conflict(NOTHING_TO_PUBLISH)
    const draft = (await readDraft(trx, agent.id))!
    const hash = documentHash(draft)
    const latest = await trx
      .selectFrom('agent_versions')
      .select((eb) => eb.fn.max('version').as('n'))
      .where('agent_id', '=', agent.id)
      .executeTakeFirst()
    const version = Number(latest?.n ?? 0) + 1
    const now = isoTime(store.clock.now())
    await trx
      .insertInto('agent_versions')
      .values({ agent_id: agent.id, version, document: serialiseDocument(draft), hash, note, created_at: now, created_by: principal.userId })
      .execute()
    await trx
      .updateTable('agents')
      .set({ live_version: version, live_hash: hash, live_description: draft.description, updated_at: now })
      .where('id', '=', agent.id)
      .execute()
    return { version, note, created_at: now, created_by: principal.email, live: true }
  })
}

/** Newest first. Owners only: versions are design, like the draft. */
export async function listAgentVersions(db: Kysely<Database>, principal: Principal, name: string, page: Page = {}): Promise<VersionRecord[]> {
  const { limit, offset } = resolvePage(page, uncappedList)
  const agent = await authorizeAgent(db, name, principal, 'own', OWNERS_ONLY_DESIGN)
  const rows = await versionsQuery(db, agent.id).orderBy('v.version', 'desc').limit(limit).offset(offset).execute()
  return rows.map((row) => ({ ...row, live: row.version === agent.live_version }))
}

export async function getAgentVersion(db: Kysely<Database>, principal: Principal, name: string, version: number): Promise<VersionDetailRecord> {
  const agent = await authorizeAgent(db, name, principal, 'own', OWNERS_ONLY_DESIGN)
  const row = mayBeAVersion(version) ? await versionsQuery(db, agent.id).select('v.document').where('v.version', '=', version).executeTakeFirst() : undefined
  if (!row) throw notFound(VERSION_NOT_FOUND)
  const { document, ...meta } = row
  const parsed = parseDocument(document)
  return {
    ...meta,
    live: row.version === agent.live_version,
    description: parsed.description,
    instructions: parsed.instructions,
    applications: applicationsOf(parsed),
  }
}

/** Replaces the whole draft with a version's snapshot; live does not move. Restoring what the draft already holds changes nothing. */
export async function restoreAgentVersion(store: AgentsStore, principal: Principal, name: string, version: number): Promise<AgentRecord> {
  return inTransaction(store.db, async (trx) => {
    const agent = await authorizeAgent(trx, name, principal, 'own')
    const row = mayBeAVersion(version)
      ? await trx.selectFrom('agent_versions').select('document').where('agent_id', '=', agent.id).where('version', '=', version).executeTakeFirst()
      : undefined
    if (!row) throw notFound(VERSION_NOT_FOUND)
    await writeDraft(trx, agent.id, parseDocument(row.document), principal.userId, isoTime(store.clock.now()))
    return toAgent(trx, await authorizeAgent(trx, name, principal))
  })
}

/** Points live at any existing version (a rollback, or forward again); the draft and the MCP URL do not change. */
export async function switchLiveVersion(store: AgentsStore, principal: Principal, name: string, version: number): Promise<AgentRecord> {
  return inTransaction(store.db, async (trx) => {
    const agent = await authorizeAgent(trx, name, principal, 'own')
    const row = mayBeAVersion(version)
      ? await trx.selectFrom('agent_versions').select(['document', 'hash']).where('agent_id', '=', agent.id).where('version', '=', version).executeTakeFirst()
      : undefined
    if (!row) throw notFound(VERSION_NOT_FOUND)
    if (agent.live_version !== version) {
      const { description } = parseDocument(row.document)
      await trx
        .updateTable('agents')
        .set({ live_version: version, live_hash: row.hash, live_description: description, updated_at: isoTime(store.clock.now()) })
        .where('id', '=', agent.id)
        .execute()
    }
    return toAgent(trx, await authorizeAgent(trx, name, principal))
  })
}
