// The settings capability as the server wires it.
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'
import { settingsRoutes } from './routes.ts'
import { SettingsService } from './service.ts'

export function createSettingsModule(ctx: ModuleContext): CapabilityModule {
  return { routes: settingsRoutes(ctx.guard, new SettingsService(ctx.database.db, ctx.clock)) }
}
