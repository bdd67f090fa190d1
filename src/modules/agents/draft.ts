// Reading and writing an agent's draft and live documents: the API other modules (tasks, workflows, skills) build on.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import { compileOnce } from '../../platform/db/compiled-query.ts'
import type { Database } from '../../platform/db/schema.ts'
import { inTransaction } from '../../platform/db/transaction.ts'
import { notFound, tooLarge } from '../../platform/errors.ts'
import { AGENT_NOT_FOUND, authorizeAgent, type AgentRow } from './access.ts'
import type { ApplicationUsesCheck } from './application-uses.ts'
import { documentHash, parseDocument, serialiseDocument, type AgentDocument } from './document.ts'

/** What writes need: the database (or a transaction already open) and the clock. */
export interface AgentsStore {
  readonly db: Kysely<Database>
  readonly clock: Clock
}

/** What saving an agent's fields needs besides a store: the applications module's check of the applications it names. */
export interface AgentDesignStore extends AgentsStore {
  readonly checkApplicationUses: ApplicationUsesCheck
}

/** A version's document with its number. */
export interface VersionDocument {
  version: number
  document: AgentDocument
}

// Read on every tool call, run and skill request: compiled once (compiled-query.ts).
const draftQuery = compileOnce<Database, 'agentId', { document: string }>(['agentId'], (db, p) =>
  db.selectFrom('agent_drafts').select('document').where('agent_id', '=', p.agentId),
)
const liveQuery = compileOnce<Database, 'agentId', { version: number; document: string }>(['agentId'], (db, p) =>
  db
    .selectFrom('agents')
    .innerJoin('agent_versions as v', (join) => join.onRef('v.agent_id', '=', 'agents.id').onRef('v.version', '=', 'agents.live_version'))
    .select(['v.version', 'v.document'])
    .where('agents.id', '=', p.agentId),
)

/** The draft document, or null when the agent does not exist. Callers check access first (authorizeAgent). */
export async function readDraft(db: Kysely<Database>, agentId: string): Promise<AgentDocument | null> {
  const [row] = await draftQuery(db, { agentId })
  return row ? parseDocument(row.document) : null
}

/**
 * Whether an agent may have version `version`: versions count up from 1, one per publish, so anything else (a request's
 * 1e20) names none, and is not asked of the database (PostgreSQL refuses an integer beyond 64 bits rather than finding
 * no row).
 */
export const mayBeAVersion = (version: number): boolean => Number.isSafeInteger(version) && version >= 1

/** A version's document, or null when the agent has no such version. */
export async function readVersion(db: Kysely<Database>, agentId: string, version: number): Promise<AgentDocument | null> {
  if (!mayBeAVersion(version)) return null
  const row = await db.selectFrom('agent_versions').select('document').where('agent_id', '=', agentId).where('version', '=', version).executeTakeFirst()
  return row ? parseDocument(row.document) : null
}

/** The live version's document: what chat, tasks, workflow runs (version=live) and `/agent/{name}/mcp` use. Null when the agent does not exist or was never published. */
export async function readLive(db: Kysely<Database>, agentId: string): Promise<VersionDocument | null> {
  const [row] = await liveQuery(db, { agentId })
  return row ? { version: row.version, document: parseDocument(row.document) } : null
}

/**
 * The live version's instructions, the system prompt of a task run with this agent (docs/api.md "Tasks").
 * Null when the agent does not exist or has no live version. Does not check access: callers do (agentVisibleTo).
 */
export async function liveInstructions(db: Kysely<Database>, agentId: string): Promise<string | null> {
  return (await readLive(db, agentId))?.document.instructions ?? null
}

/**
 * Every writer of a draft passes here (agent fields, skills, workflows, restore), so this is where its size is bounded:
 * each request is under 1 MiB, but saves add up, and every save, publish and run reads the whole document.
 */
export const MAX_DRAFT_BYTES = 2 * 1024 * 1024

/** Stores `document` as the draft and mirrors what lists show; a no-op when the content did not change. 413 past MAX_DRAFT_BYTES. */
export async function writeDraft(trx: Kysely<Database>, agentId: string, document: AgentDocument, actorId: string, now: string): Promise<boolean> {
  const json = serialiseDocument(document)
  const bytes = Buffer.byteLength(json)
  if (bytes > MAX_DRAFT_BYTES) {
    throw tooLarge(
      `The agent's draft would be ${Math.ceil(bytes / 1024)} KiB; a draft may hold at most ${MAX_DRAFT_BYTES / 1024 / 1024} MiB (remove workflows or skills it no longer needs)`,
    )
  }
  // Hash what a later read will see (JSON drops undefined and the like), so publish computes the same hash from the stored text.
  const hash = documentHash(parseDocument(json))
  const current = await trx.selectFrom('agents').select('draft_hash').where('id', '=', agentId).executeTakeFirst()
  if (!current) throw notFound(AGENT_NOT_FOUND)
  if (current.draft_hash === hash) return false
  await trx.updateTable('agent_drafts').set({ document: json, updated_at: now, updated_by: actorId }).where('agent_id', '=', agentId).execute()
  await trx.updateTable('agents').set({ description: document.description, draft_hash: hash, updated_at: now }).where('id', '=', agentId).execute()
  return true
}

/**
 * Changes the draft in one transaction: `mutate` gets a private copy of the draft to change in place (add a skill,
 * replace a workflow…) and may return a result; the draft is stored if its content changed. If `mutate` throws
 * (e.g. a 409 for a duplicate skill name), nothing is written. Publish snapshots whatever this stored, all parts at once.
 * Callers check that the actor owns the agent first (authorizeAgent(…, 'own')). 404 when the agent does not exist.
 */
export async function updateDraft<R>(store: AgentsStore, agentId: string, actorId: string, mutate: (draft: AgentDocument) => R | Promise<R>): Promise<R> {
  return inTransaction(store.db, async (trx) => {
    const draft = await readDraft(trx, agentId)
    if (!draft) throw notFound(AGENT_NOT_FOUND)
    const result = await mutate(draft)
    await writeDraft(trx, agentId, draft, actorId, isoTime(store.clock.now()))
    return result
  })
}

/** Which document a caller works on: the live version (anyone who may use the agent) or the draft (owners only). */
export type DocumentSource = 'live' | 'draft'

export interface SourceDocument {
  agent: AgentRow
  /** Null for the live source before the first publish. */
  document: AgentDocument | null
  /** The live version's number; null for the draft or before the first publish. */
  version: number | null
}

/**
 * The document `principal` works on at `source`, after checking they may: not found for agents they may not see,
 * forbidden (`ownersOnly`) when a non-owner asks for the draft. What runs, tools and skill listings read.
 */
export async function readSourceDocument(
  db: Kysely<Database>,
  principal: Principal,
  agentName: string,
  source: DocumentSource,
  ownersOnly: string,
): Promise<SourceDocument> {
  const agent = await authorizeAgent(db, agentName, principal, source === 'draft' ? 'own' : 'use', ownersOnly)
  if (source === 'draft') return { agent, document: await readDraft(db, agent.id), version: null }
  const live = await readLive(db, agent.id)
  return { agent, document: live?.document ?? null, version: live?.version ?? null }
}
