// The sign-in throttle in the database, for several instances on one PostgreSQL: every instance counts the same
// attempts, so N instances do not allow N times the guesses. The rule is rate-limit.ts's; only the memory differs: one
// row per key holding its recent attempt times. An attempt locks its keys' rows (an upsert that returns the row, in
// sorted key order so two attempts never wait on each other in a cycle), judges, and records itself, in one
// transaction: parallel attempts on any instance are counted one after the other, as in memory.
import type { Kysely, Transaction } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { attemptKeys, judgeAttempt, LOGIN_WINDOW_MS, type LoginAttempt, type LoginThrottle, withAttempt, withinWindow, withoutAttempt } from './rate-limit.ts'

export class StoredLoginThrottle implements LoginThrottle {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async begin(email: string, address: string, device: string | null = null): Promise<LoginAttempt> {
    const now = this.clock.now()
    const keys = attemptKeys(email, address, device)
    const all = [keys.account, keys.device, keys.pair, keys.address].filter((key): key is string => key !== null)
    const verdict = await this.db.transaction().execute(async (trx) => {
      const recent = await lockKeys(trx, all, now)
      const verdict = judgeAttempt(keys, (key) => recent.get(key) ?? [], now)
      if (verdict.allowed) for (const key of verdict.keys) await save(trx, key, withAttempt(recent.get(key) ?? [], now), now)
      return verdict
    })
    if (!verdict.allowed) return verdict
    let settled = false
    return {
      allowed: true,
      delayMs: verdict.delayMs,
      succeeded: async () => {
        if (settled) return
        settled = true
        const [cleared, ...others] = verdict.keys
        await this.db.transaction().execute(async (trx) => {
          const recent = await lockKeys(trx, verdict.keys, this.clock.now())
          await save(trx, cleared!, [], now)
          for (const key of others) await save(trx, key, withoutAttempt(recent.get(key) ?? [], now), now)
        })
      },
    }
  }

  /** Housekeeping: keys whose every attempt has left the window. */
  async prune(): Promise<void> {
    await this.db
      .deleteFrom('login_throttle')
      .where('updated_at', '<', this.clock.now() - LOGIN_WINDOW_MS)
      .execute()
  }
}

/** Locks every key's row (made empty if missing) for the rest of the transaction and returns its recent times. */
async function lockKeys(trx: Transaction<Database>, keys: readonly string[], now: number): Promise<Map<string, number[]>> {
  const recent = new Map<string, number[]>()
  for (const key of [...keys].sort()) {
    const row = await trx
      .insertInto('login_throttle')
      .values({ key, times: '[]', updated_at: now })
      // A no-op update: it takes the row's lock and makes RETURNING give the stored row.
      .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ key: eb.ref('excluded.key') })))
      .returning('times')
      .executeTakeFirstOrThrow()
    recent.set(key, withinWindow(JSON.parse(row.times) as number[], now))
  }
  return recent
}

async function save(trx: Transaction<Database>, key: string, times: readonly number[], now: number): Promise<void> {
  await trx
    .updateTable('login_throttle')
    .set({ times: JSON.stringify(times), updated_at: now })
    .where('key', '=', key)
    .execute()
}
