// The skills capability as the server wires it.
import { Elysia } from 'elysia'
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'

export function createSkillsModule(_ctx: ModuleContext): CapabilityModule {
  return { routes: new Elysia({ name: 'skills-routes' }) }
}
