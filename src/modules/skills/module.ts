// The skills capability as the server wires it: validation, an agent's and an MCP app's skills, the skill list, and
// load_skill.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ToolProvider } from '../../platform/tools/tool.ts'
import type { AgentsStore } from '../agents/index.ts'
import type { ApplicationSkills } from './home.ts'
import { skillRoutes } from './routes.ts'
import { skillTools, type SkillToolsTarget } from './tools.ts'

/** Skills are functions over the agents' store (skills live in the agent document); no service object yet. */
export interface SkillsModule extends CapabilityModule<null> {
  /** load_skill for an agent's live version or draft, or an MCP app (none when there are no skills). */
  readonly tools: ToolProvider<SkillToolsTarget>
}

export interface SkillsDependencies {
  /** MCP apps' skills, kept by the applications module. */
  readonly applications: ApplicationSkills
}

export function createSkillsModule(ctx: ModuleContext, deps: SkillsDependencies): SkillsModule {
  const store: AgentsStore = { db: ctx.database.db, clock: ctx.clock }
  return {
    routes: skillRoutes(ctx.guard, store, deps.applications),
    service: null,
    tools: (principal, target) => skillTools(store, deps.applications, principal, target),
  }
}
