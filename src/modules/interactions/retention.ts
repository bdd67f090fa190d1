// Retention: deletes interactions of UTC days older than the configured number of days, in small batches.
import type { Kysely } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import { removeEmptyMonthsOfDailyUsage } from '../../platform/db/daily-usage-by-month.ts'
import type { Database } from '../../platform/db/schema.ts'
import { DAY_MS, dayKey, startOfDay } from './buckets.ts'

export interface PruneOptions {
  /** Rows per DELETE statement: each is its own short transaction, so requests interleave between batches. */
  batchSize?: number
}

export interface PruneResult {
  /** Days before this one (YYYY-MM-DD, UTC) are gone. */
  cutoffDay: string
  deleted: number
}

/** Days kept: today and the `retentionDays` before it, so a row lives at least `retentionDays` × 24 h. */
export const retentionCutoffDay = (nowMs: number, retentionDays: number) => dayKey(startOfDay(nowMs) - retentionDays * DAY_MS)

const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Steps performed:
 * 1. per user (users are never deleted, and the FK means every row has one), delete that user's rows older than the
 *    cutoff day through the (user_id, created_at) index, `batchSize` at a time, yielding between batches;
 * 2. the delete triggers have decremented the rollups row by row, so they stayed exact throughout; the daily usage rows
 *    of the pruned days (the organisation's and each user's) are now 0 and are removed last (only if 0, so a row the
 *    loop could not see is never hidden): insights ask a user's daily rows whether anything precedes a range. On
 *    PostgreSQL, so are the rows of the daily usage by month (0030) whose months were wholly pruned.
 * Whole UTC days go, never part of one, so a day's count is either complete or absent.
 */
export async function pruneInteractions(db: Kysely<Database>, clock: Clock, retentionDays: number, options: PruneOptions = {}): Promise<PruneResult> {
  const batchSize = options.batchSize ?? 500
  const cutoffDay = retentionCutoffDay(clock.now(), retentionDays)
  const cutoff = `${cutoffDay}T00:00:00.000Z`
  let deleted = 0
  const users = await db.selectFrom('users').select('id').execute()
  for (const { id: userId } of users) {
    for (;;) {
      const result = await db
        .deleteFrom('interactions')
        .where('id', 'in', (eb) => eb.selectFrom('interactions').select('id').where('user_id', '=', userId).where('created_at', '<', cutoff).limit(batchSize))
        .executeTakeFirst()
      const n = Number(result.numDeletedRows)
      deleted += n
      if (n < batchSize) break
      await yieldToRequests()
    }
  }
  await db.deleteFrom('interaction_daily_usage').where('day', '<', cutoffDay).where('n', '=', 0).execute()
  await db.deleteFrom('interaction_user_daily_usage').where('day', '<', cutoffDay).where('n', '=', 0).execute()
  await removeEmptyMonthsOfDailyUsage(db, cutoffDay)
  return { cutoffDay, deleted }
}
