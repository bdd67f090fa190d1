// The workflows capability as the server wires it.
import { Elysia } from 'elysia'
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'

export function createWorkflowsModule(_ctx: ModuleContext): CapabilityModule {
  return { routes: new Elysia({ name: 'workflows-routes' }) }
}
