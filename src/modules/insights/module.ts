// The insights capability as the server wires it: one read-only route over the interaction and workflow rollups.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { insightsRoutes } from './routes.ts'
import { InsightsService } from './service.ts'

export type InsightsModule = CapabilityModule<InsightsService>

export function createInsightsModule(ctx: ModuleContext): InsightsModule {
  const service = new InsightsService(ctx.database.db, ctx.clock)
  return { routes: insightsRoutes(ctx.guard, service), service }
}
