// The applications an agent uses (the draft's `applications` part): each is served as tools on the
// agent's MCP endpoints. Saving checks that every application exists, that the owner saving it may see it, and that
// the operations named exist, so a typo is a 422 at save time rather than a tool that silently never appears.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { canSeeShared } from '../../platform/auth/shared-items.ts'
import type { Database } from '../../platform/db/schema.ts'
import { invalidInput, type InputIssue } from '../../platform/errors.ts'
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

/** The uses as stored: duplicates merged (a whole application wins over a subset), operation ids de-duplicated. */
export async function checkApplicationUses(db: Kysely<Database>, principal: Principal, uses: readonly ApplicationUse[]): Promise<ApplicationUse[]> {
  const issues: InputIssue[] = []
  const merged = new Map<string, ApplicationUse>()
  for (const [index, use] of uses.entries()) {
    const loc = ['applications', index]
    const app = await db.selectFrom('applications').select(['id', 'owner_id', 'global_spec']).where('api_name', '=', use.api_name).executeTakeFirst()
    if (!app || !canSeeShared(principal, app)) {
      issues.push({ loc: [...loc, 'api_name'], msg: `Application not found: '${use.api_name}'`, type: 'value_error', input: use.api_name })
      continue
    }
    if (use.operation_ids) {
      const known = new Set(
        (
          await db
            .selectFrom('application_operations')
            .select('operation_id')
            .where('application_id', '=', app.id)
            .where('operation_id', 'in', use.operation_ids.length > 0 ? use.operation_ids : [''])
            .execute()
        ).map((row) => row.operation_id),
      )
      for (const [i, id] of use.operation_ids.entries())
        if (!known.has(id))
          issues.push({ loc: [...loc, 'operation_ids', i], msg: `Operation not found in ${use.api_name}: '${id}'`, type: 'value_error', input: id })
    }
    const before = merged.get(use.api_name)
    if (before && (!before.operation_ids || !use.operation_ids)) merged.set(use.api_name, { api_name: use.api_name })
    else if (before) merged.set(use.api_name, { api_name: use.api_name, operation_ids: [...new Set([...before.operation_ids!, ...use.operation_ids!])] })
    else merged.set(use.api_name, use.operation_ids ? { api_name: use.api_name, operation_ids: [...new Set(use.operation_ids)] } : { api_name: use.api_name })
  }
  if (issues.length > 0) throw invalidInput(...issues)
  return [...merged.values()]
}
