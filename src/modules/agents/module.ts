// The agents capability as the server wires it: agents, versions and members, over one store (database + clock).
import { Elysia } from 'elysia'
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'
import type { AgentsStore } from './draft.ts'
import { memberRoutes } from './member-routes.ts'
import { agentRoutes } from './routes.ts'
import { versionRoutes } from './version-routes.ts'

export function createAgentsModule(ctx: ModuleContext): CapabilityModule {
  const store: AgentsStore = { db: ctx.database.db, clock: ctx.clock }
  const routes = new Elysia({ name: 'agents-routes' }).use(agentRoutes(ctx.guard, store)).use(versionRoutes(ctx.guard, store)).use(memberRoutes(ctx.guard, store))
  return { routes }
}
