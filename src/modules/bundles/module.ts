// The bundles capability as the server wires it: export and import of agents as zip bundles.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ApplicationUsesCheck } from '../agents/index.ts'
import type { ApplicationsService } from '../applications/index.ts'
import { bundleRoutes } from './routes.ts'
import { BundlesService } from './service.ts'

export type BundlesModule = CapabilityModule<BundlesService>

export interface BundlesModuleDependencies {
  readonly applications: ApplicationsService
  /** The applications module's check of the applications an agent's save names. */
  readonly checkApplicationUses: ApplicationUsesCheck
}

export function createBundlesModule(ctx: ModuleContext, deps: BundlesModuleDependencies): BundlesModule {
  const service = new BundlesService({ db: ctx.database.db, clock: ctx.clock, ...deps })
  return { routes: bundleRoutes(ctx.guard, service), service }
}
