// The organisation as the server wires it: its settings and its audit log, for admins.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { orgRoutes } from './routes.ts'

/** Settings and the audit log are platform pieces (src/platform/org-settings.ts, audit.ts) every module may use. */
export type OrganisationModule = CapabilityModule<null>

export function createOrganisationModule(ctx: ModuleContext): OrganisationModule {
  return { routes: orgRoutes(ctx.guard, ctx.database, ctx.clock), service: null }
}
