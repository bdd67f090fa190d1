// The applications an agent uses (the draft's `applications` part): each is served as tools on the agent's MCP
// endpoints. The document keeps only names; whether they exist and may be used is the applications module's to say
// (ApplicationUsesCheck, handed to this module by the registry), so a typo is a 422 at save time.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { AgentDocument } from './document.ts'

export interface ApplicationUse {
  api_name: string
  /** Only these operations; all of the application's when absent. */
  operation_ids?: string[]
}

export const MAX_APPLICATIONS_PER_AGENT = 50

/** The draft's or a version's applications; documents written before the part existed have none. */
export function applicationsOf(document: AgentDocument): ApplicationUse[] {
  return Array.isArray(document.applications) ? (document.applications as ApplicationUse[]) : []
}

/**
 * Checks the uses a save names (each application exists, `principal` may see it, the operations named exist; an
 * `invalid_input` DomainError located at `applications.<i>…` otherwise) and returns them as stored: duplicates merged,
 * operation ids de-duplicated. Runs inside the saving transaction (`db`).
 */
export type ApplicationUsesCheck = (db: Kysely<Database>, principal: Principal, uses: readonly ApplicationUse[]) => Promise<ApplicationUse[]>
