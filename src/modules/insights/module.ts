// The insights capability as the server wires it: one read-only route, its figures computed in a worker over the
// interaction and workflow rollups.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { insightsRoutes } from './routes.ts'
import { createInsightsRunner } from './run-insights.ts'
import { InsightsService } from './service.ts'

export type InsightsModule = CapabilityModule<InsightsService>

export function createInsightsModule(ctx: ModuleContext): InsightsModule {
  const runner = createInsightsRunner(ctx.database.target)
  const service = new InsightsService(ctx.database.db, ctx.clock, runner)
  return { routes: insightsRoutes(ctx.guard, service), service, stop: () => runner.close() }
}
