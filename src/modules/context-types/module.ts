// The context-types capability as the server wires it.
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'
import { contextTypesRoutes } from './routes.ts'
import { ContextTypesService } from './service.ts'

export function createContextTypesModule(ctx: ModuleContext): CapabilityModule {
  return { routes: contextTypesRoutes(ctx.guard, new ContextTypesService(ctx.database.db, ctx.clock)) }
}
