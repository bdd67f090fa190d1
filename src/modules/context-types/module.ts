// The context-types capability as the server wires it.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { contextTypesRoutes } from './routes.ts'
import { ContextTypesService } from './service.ts'

export type ContextTypesModule = CapabilityModule<ContextTypesService>

export function createContextTypesModule(ctx: ModuleContext): ContextTypesModule {
  const service = new ContextTypesService(ctx.database.db, ctx.clock)
  return { routes: contextTypesRoutes(ctx.guard, service), service }
}
