// The threads capability as the server wires it: routes and the service tasks and chat write through.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { threadsRoutes } from './routes.ts'
import { ThreadsService } from './service.ts'

export type ThreadsModule = CapabilityModule<ThreadsService>

export function createThreadsModule(ctx: ModuleContext): ThreadsModule {
  const service = new ThreadsService({ db: ctx.database.db, clock: ctx.clock })
  return { routes: threadsRoutes(ctx.guard, service), service }
}
