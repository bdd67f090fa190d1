// The settings capability as the server wires it.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { settingsRoutes } from './routes.ts'
import { SettingsService } from './service.ts'

export type SettingsModule = CapabilityModule<SettingsService>

export function createSettingsModule(ctx: ModuleContext): SettingsModule {
  const service = new SettingsService(ctx.database.db, ctx.clock)
  return { routes: settingsRoutes(ctx.guard, service), service }
}
