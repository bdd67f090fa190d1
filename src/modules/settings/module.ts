// The settings capability as the server wires it.
import { Elysia } from 'elysia'
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'

export function createSettingsModule(_ctx: ModuleContext): CapabilityModule {
  return { routes: new Elysia({ name: 'settings-routes' }) }
}
