// Who sees and who changes an application: global ones are visible to every member, others to their uploader and
// admins; only the uploader (owner) and admins change one. An application a caller cannot see does not exist for them.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { canSeeShared } from '../../platform/auth/shared-items.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { ApplicationsTable } from '../../platform/db/tables/applications.ts'
import { forbidden, notFound } from '../../platform/errors.ts'

export const applicationNotFound = () => notFound('Application not found')

export const canSee = (principal: Principal, app: Pick<ApplicationsTable, 'global_spec' | 'owner_id'>): boolean => canSeeShared(principal, app)

export const canChange = (principal: Principal, app: Pick<ApplicationsTable, 'owner_id'>): boolean =>
  principal.role === 'admin' || app.owner_id === principal.userId

/** The application as the caller may see it, or 404. */
export async function visibleApplication(db: Kysely<Database>, principal: Principal, apiName: string): Promise<ApplicationsTable> {
  const app = await db.selectFrom('applications').selectAll().where('api_name', '=', apiName).executeTakeFirst()
  if (!app || !canSee(principal, app)) throw applicationNotFound()
  return app
}

/** The application if the caller may change it: 404 when they cannot see it, 403 when they only see it. */
export async function changeableApplication(db: Kysely<Database>, principal: Principal, apiName: string): Promise<ApplicationsTable> {
  const app = await visibleApplication(db, principal, apiName)
  if (!canChange(principal, app)) throw forbidden('Only the owner of the application or an admin may change it')
  return app
}
