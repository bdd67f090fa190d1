// What the server hands every capability module: configuration, time, logging, the database, the auth guard, background jobs.
import type { AnyElysia } from 'elysia'
import type { Config } from '../config.ts'
import type { AuthGuard } from '../platform/auth/guard.ts'
import type { Cluster } from '../platform/cluster/index.ts'
import type { Clock } from '../platform/clock.ts'
import type { DatabaseHandle } from '../platform/db/database.ts'
import type { BackgroundJobs } from '../platform/jobs.ts'
import type { Logger } from '../platform/log.ts'

export interface ModuleContext {
  readonly config: Config
  readonly clock: Clock
  readonly logger: Logger
  readonly database: DatabaseHandle
  /** `.use(ctx.guard)` in routes, then `{ auth: 'member' | 'admin' }` on each route. */
  readonly guard: AuthGuard
  readonly jobs: BackgroundJobs
  /** This instance among others on one database: its id, the shared revisions, the scheduler's leadership. */
  readonly cluster: Cluster
}

/**
 * One capability as the server sees it: its routes, its service (what other modules, transports and tests call), and
 * optional hooks around the listening lifetime. Every module is made by `create<X>Module(ctx, deps)`, where `deps` are
 * the other modules' services it needs, typed; src/modules/registry.ts wires them all.
 */
export interface CapabilityModule<Service = unknown> {
  readonly routes: AnyElysia
  readonly service: Service
  /** After boot, before the server takes traffic (e.g. rebuild scheduler jobs). */
  start?(): Promise<void> | void
  /** On shutdown, after requests drained and before the database closes. */
  stop?(): Promise<void> | void
}
