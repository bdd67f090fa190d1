// The skills capability as the server wires it: validation, an agent's skills, and the skill list.
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'
import { skillRoutes } from './routes.ts'

/** Skills are functions over the agents' store (skills live in the agent document); no service object yet. */
export type SkillsModule = CapabilityModule<null>

export function createSkillsModule(ctx: ModuleContext): SkillsModule {
  return { routes: skillRoutes(ctx.guard, { db: ctx.database.db, clock: ctx.clock }), service: null }
}
