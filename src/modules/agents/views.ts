// What callers see of an agent: owners the draft, viewers and admins the live version.
import type { Kysely } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import type { AgentRole, AgentRow } from './access.ts'
import { applicationsOf, type ApplicationUse } from './application-uses.ts'
import { readDraft, readLive } from './draft.ts'

export interface AgentSummaryRecord {
  id: string
  name: string
  description: string | null
  live_version: number | null
  has_unpublished_changes: boolean
  role: AgentRole
  created_by: string
  created_at: string
  updated_at: string
}

export interface AgentRecord extends AgentSummaryRecord {
  instructions: string | null
  applications: ApplicationUse[]
}

/** The columns a summary needs, whichever way the row was reached. */
export type SummaryRow = Pick<
  AgentRow,
  'id' | 'name' | 'description' | 'live_version' | 'live_description' | 'live_hash' | 'draft_hash' | 'role' | 'creator_email' | 'created_at' | 'updated_at'
>

export function toSummary(row: SummaryRow): AgentSummaryRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.role === 'owner' ? row.description : row.live_description,
    live_version: row.live_version,
    // Before the first publish live_hash is null, so a new agent shows the Draft chip.
    has_unpublished_changes: row.draft_hash !== row.live_hash,
    role: row.role,
    created_by: row.creator_email,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** Only owners see the draft (docs/api.md "Agents and versions"); everyone else sees the live version, or nulls before the first publish. */
export async function toAgent(db: Kysely<Database>, row: SummaryRow): Promise<AgentRecord> {
  const document = row.role === 'owner' ? await readDraft(db, row.id) : (await readLive(db, row.id))?.document
  return { ...toSummary(row), instructions: document?.instructions ?? null, applications: document ? applicationsOf(document) : [] }
}
