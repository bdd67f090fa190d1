// The health module's public entry: the scheduler's state as health reports it.
export type { SchedulerState } from './service.ts'
