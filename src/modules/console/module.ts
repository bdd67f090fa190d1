// The web console as the server wires it: its pages and assets; unprovisioned instances are sent to the setup wizard.
import type { CapabilityModule } from '../module-context.ts'
import type { TenantService } from '../tenant/index.ts'
import { consoleRoutes } from './routes.ts'

/** The console has no service of its own: it is a client of the API. */
export type ConsoleModule = CapabilityModule<null>

export function createConsoleModule(deps: { readonly tenant: TenantService }): ConsoleModule {
  return { routes: consoleRoutes(deps.tenant), service: null }
}
