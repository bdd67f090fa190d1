// The marketplace capability as the server wires it: the built-in and organisation catalogs over the bundles service.
import type { BundlesService } from '../bundles/index.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { marketplaceRoutes } from './routes.ts'
import { MarketplaceService } from './service.ts'

export type MarketplaceModule = CapabilityModule<MarketplaceService>

export function createMarketplaceModule(ctx: ModuleContext, deps: { readonly bundles: BundlesService }): MarketplaceModule {
  const service = new MarketplaceService({ db: ctx.database.db, clock: ctx.clock, bundles: deps.bundles })
  return { routes: marketplaceRoutes(ctx.guard, service), service }
}
