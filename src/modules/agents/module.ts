// The agents capability as the server wires it: agents, versions and members, over one store (database + clock).
import { Elysia } from 'elysia'
import type { Principal } from '../../platform/auth/principal.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { AgentsStore } from './draft.ts'
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

export function createAgentsModule(ctx: ModuleContext): AgentsModule {
  const store: AgentsStore = { db: ctx.database.db, clock: ctx.clock }
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
