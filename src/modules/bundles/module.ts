// The bundles capability as the server wires it: export and import of agents as zip bundles.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ApplicationsService } from '../applications/index.ts'
import { bundleRoutes } from './routes.ts'
import { BundlesService } from './service.ts'

export type BundlesModule = CapabilityModule<BundlesService>

export function createBundlesModule(ctx: ModuleContext, deps: { readonly applications: ApplicationsService }): BundlesModule {
  const service = new BundlesService({ db: ctx.database.db, clock: ctx.clock, applications: deps.applications })
  return { routes: bundleRoutes(ctx.guard, service), service }
}
