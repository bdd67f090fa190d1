// The interactions capability as the server wires it: routes, the retention job, and a last flush on shutdown.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { InteractionHistory } from './history.ts'
import { pruneInteractions } from './retention.ts'
import { interactionsRoutes } from './routes.ts'
import { InteractionsService } from './service.ts'
import { SummaryService } from './summary.ts'

/**
 * Checked hourly rather than daily: the cutoff moves one whole UTC day at a time, so each day is still pruned once (the
 * other runs find nothing, one index probe per user), but an instance restarted more often than every 24 h — the first
 * run comes one interval after boot — is pruned too.
 */
export const RETENTION_CHECK_MS = 60 * 60 * 1000

/** The service owns the group-commit queue: every module or transport that records (API actions, MCP calls, chat) uses this one. */
export type InteractionsModule = CapabilityModule<InteractionsService>

export function createInteractionsModule(ctx: ModuleContext): InteractionsModule {
  const { db } = ctx.database
  ctx.jobs.every('interaction-retention', RETENTION_CHECK_MS, async () => {
    const started = performance.now()
    const { cutoffDay, deleted } = await pruneInteractions(db, ctx.clock, ctx.config.interactionRetentionDays)
    if (deleted > 0) ctx.logger.info('interactions pruned', { cutoff_day: cutoffDay, deleted, ms: Math.round(performance.now() - started) })
  })
  const interactions = new InteractionsService(db, ctx.clock)
  return {
    routes: interactionsRoutes(ctx.guard, interactions, new SummaryService(db, ctx.clock), new InteractionHistory(db)),
    service: interactions,
    // Requests waiting on a group commit are in flight, so the drain already waited for them; this is the backstop.
    stop: () => interactions.flush(),
  }
}
