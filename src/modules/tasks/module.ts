// The tasks capability as the server wires it.
import { Elysia } from 'elysia'
import type { CapabilityModule, ModuleContext } from '../../platform/module-context.ts'
import type { SchedulerState } from '../health/service.ts'

export interface TasksModule extends CapabilityModule {
  /** What /api/health reports under checks.scheduler. */
  schedulerState(): SchedulerState
}

export function createTasksModule(_ctx: ModuleContext): TasksModule {
  return { routes: new Elysia({ name: 'tasks-routes' }), schedulerState: () => ({ status: 'pass', jobs: 0 }) }
}
