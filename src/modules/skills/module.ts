// The skills capability as the server wires it: validation, an agent's skills, and the skill list.
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'
import { skillRoutes } from './routes.ts'

export function createSkillsModule(ctx: ModuleContext): CapabilityModule {
  return { routes: skillRoutes(ctx.guard, { db: ctx.database.db, clock: ctx.clock }) }
}
