// The check an agent's save runs on the applications its draft names (the agents module gets it from the registry):
// every application exists, the owner saving may see it, and the operations named exist, so a typo is a 422 at save
// time rather than a tool that silently never appears.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { canSeeShared } from '../../platform/auth/shared-items.ts'
import type { Database } from '../../platform/db/schema.ts'
import { invalidInput, type InputIssue } from '../../platform/errors.ts'
import type { ApplicationUse, ApplicationUsesCheck } from '../agents/index.ts'

/** The uses as stored: duplicates merged (a whole application wins over a subset), operation ids de-duplicated. */
export const checkApplicationUses: ApplicationUsesCheck = async (db: Kysely<Database>, principal: Principal, uses: readonly ApplicationUse[]) => {
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
