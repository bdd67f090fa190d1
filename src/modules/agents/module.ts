// The agents capability as the server wires it: agents, versions and members, over one store (database + clock).
import { Elysia } from 'elysia'
import type { Principal } from '../../platform/auth/principal.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ApplicationUsesCheck } from './application-uses.ts'
import type { AgentDesignStore } from './draft.ts'
import { memberRoutes } from './member-routes.ts'
import { agentRoutes } from './routes.ts'
import { agentVisibleTo, liveInstructions } from './service.ts'
import { versionRoutes } from './version-routes.ts'

/** What other modules may ask of agents (tasks check agent_id and run the live instructions). */
export interface AgentsDirectory {
  /** The live version's instructions; null when the agent does not exist or has no live version. */
  liveInstructions(agentId: string): Promise<string | null>
  visibleTo(agentId: string, principal: Principal): Promise<boolean>
}

export type AgentsModule = CapabilityModule<AgentsDirectory>

export interface AgentsDependencies {
  /** The applications module's check of the applications a save names. */
  readonly checkApplicationUses: ApplicationUsesCheck
}

export function createAgentsModule(ctx: ModuleContext, deps: AgentsDependencies): AgentsModule {
  const store: AgentDesignStore = { db: ctx.database.db, clock: ctx.clock, checkApplicationUses: deps.checkApplicationUses }
  const routes = new Elysia({ name: 'agents-routes' })
    .use(agentRoutes(ctx.guard, store))
    .use(versionRoutes(ctx.guard, store))
    .use(memberRoutes(ctx.guard, store))
  const service: AgentsDirectory = {
    liveInstructions: (agentId) => liveInstructions(store.db, agentId),
    visibleTo: (agentId, principal) => agentVisibleTo(store.db, agentId, principal),
  }
  return { routes, service }
}
