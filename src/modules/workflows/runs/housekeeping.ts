// Runs the server tidies by itself: those a crash interrupted (at boot) and finished ones past retention (hourly).
import type { Kysely } from 'kysely'
import type { Database } from '../../../platform/db/schema.ts'

const PRUNE_BATCH = 500

/** Runs a crash left `running` fail as `interrupted` (unrecorded ones vanish); waiting runs keep their checkpoints. */
export async function recoverInterrupted(db: Kysely<Database>, now: string): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const stuck = await trx.selectFrom('workflow_runs').select(['id', 'recording']).where('status', '=', 'running').execute()
    if (stuck.length === 0) return 0
    const ids = stuck.map((r) => r.id)
    await trx.deleteFrom('workflow_checkpoints').where('run_id', 'in', ids).execute()
    await trx.deleteFrom('workflow_runs').where('id', 'in', ids).where('recording', '=', 'disabled').execute()
    await trx
      .updateTable('workflow_runs')
      .set({
        status: 'failed',
        error_code: 'interrupted',
        error_message: 'Interrupted: the server stopped before the run finished',
        finished_at: now,
        updated_at: now,
      })
      .where('id', 'in', ids)
      .execute()
    return stuck.length
  })
}

/** Finished runs that ended before `cutoff`, oldest first, in batches; unfinished runs have no finished_at and are never touched. */
export async function pruneFinished(db: Kysely<Database>, cutoff: string): Promise<number> {
  let pruned = 0
  for (;;) {
    const batch = await db
      .selectFrom('workflow_runs')
      .select('id')
      .where('finished_at', 'is not', null)
      .where('finished_at', '<', cutoff)
      .orderBy('finished_at')
      .limit(PRUNE_BATCH)
      .execute()
    if (batch.length === 0) return pruned
    const ids = batch.map((r) => r.id)
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('workflow_steps').where('run_id', 'in', ids).execute()
      await trx.deleteFrom('workflow_runs').where('id', 'in', ids).where('finished_at', 'is not', null).execute()
    })
    pruned += ids.length
    if (batch.length < PRUNE_BATCH) return pruned
  }
}
