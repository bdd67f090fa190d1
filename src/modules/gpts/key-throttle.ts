// Failed GPT key attempts, counted per client address (an IPv6 address by its /64, platform/http/client-address.ts):
// past GPT_KEY_MAX_FAILURES in GPT_KEY_WINDOW_MS, every request from that address answers 429 with Retry-After until
// the oldest counted failure leaves the window. Keys carry 256 random bits, so this is not what keeps them safe; it
// keeps a client that sends wrong keys (a guesser, or a GPT left with a rotated key) from costing a lookup each time.
// Behind an interface: one process (SQLite) keeps the counts in memory (a restart forgetting them is harmless);
// instances sharing PostgreSQL count in the database (`gpt_key_failures`), so N instances do not allow N times the
// failures.
import type { Kysely } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'

export const GPT_KEY_WINDOW_MS = 15 * 60 * 1000
/** Failures one address may make in the window (the sign-in throttle allows 100 per address across accounts). */
export const GPT_KEY_MAX_FAILURES = 50

export interface FailedKeyAttempts {
  /** Seconds until `client` may try again (at least 1), or 0 when it may now. */
  retryAfter(client: string, now: number): number | Promise<number>
  /** Counts one failed attempt by `client` at `now`. */
  failed(client: string, now: number): void | Promise<void>
}

/** The rule, on a client's failure times (oldest first): seconds until it may try again, or 0. */
function waitFor(times: readonly number[], now: number, max: number, windowMs: number): number {
  const recent = times.filter((at) => now - at < windowMs)
  if (recent.length < max) return 0
  const oldestThatCounts = recent[recent.length - max]!
  return Math.max(1, Math.ceil((oldestThatCounts + windowMs - now) / 1000))
}

/** The failure times kept after one more at `now`: those in the window, the newest `max` (only they decide anything). */
function withFailure(times: readonly number[], now: number, max: number, windowMs: number): number[] {
  const kept = [...times.filter((at) => now - at < windowMs), now]
  return kept.length > max ? kept.slice(kept.length - max) : kept
}

/** Keys kept before the ones whose failures all left the window are swept (at most once a minute). */
const SWEEP_ABOVE = 100_000

export class MemoryFailedKeyAttempts implements FailedKeyAttempts {
  readonly #failures = new Map<string, number[]>()
  readonly #max: number
  readonly #windowMs: number
  #lastSweep = 0

  constructor(max = GPT_KEY_MAX_FAILURES, windowMs = GPT_KEY_WINDOW_MS) {
    this.#max = max
    this.#windowMs = windowMs
  }

  #recent(client: string, now: number): number[] {
    const kept = this.#failures.get(client)
    if (!kept) return []
    const times = kept.filter((at) => now - at < this.#windowMs)
    if (times.length === 0) this.#failures.delete(client)
    else if (times.length !== kept.length) this.#failures.set(client, times)
    return times
  }

  retryAfter(client: string, now: number): number {
    return waitFor(this.#recent(client, now), now, this.#max, this.#windowMs)
  }

  failed(client: string, now: number): void {
    const times = withFailure(this.#recent(client, now), now, this.#max, this.#windowMs)
    this.#failures.set(client, times)
    if (this.#failures.size > SWEEP_ABOVE && now - this.#lastSweep > 60_000) {
      this.#lastSweep = now
      for (const key of [...this.#failures.keys()]) this.#recent(key, now)
    }
  }
}

/**
 * The counts in the database, one row per client address: every instance reads the same failures. A failure locks its
 * row (an upsert that returns it), adds itself and saves, in one transaction, so parallel failures on any instance are
 * counted one after the other, as in memory. The check reads the row on the read connections (no lock, no wait for
 * the writer): a failure committed on another instance is seen by the next request anywhere.
 */
export class StoredFailedKeyAttempts implements FailedKeyAttempts {
  readonly #db: Kysely<Database>
  readonly #read: (client: string) => Promise<{ times: string } | null>
  readonly #max: number
  readonly #windowMs: number

  constructor(options: {
    db: Kysely<Database>
    /** The stored row of a client, read on the read connections. */
    read: (client: string) => Promise<{ times: string } | null>
    max?: number
    windowMs?: number
  }) {
    this.#db = options.db
    this.#read = options.read
    this.#max = options.max ?? GPT_KEY_MAX_FAILURES
    this.#windowMs = options.windowMs ?? GPT_KEY_WINDOW_MS
  }

  async retryAfter(client: string, now: number): Promise<number> {
    const row = await this.#read(client)
    return row ? waitFor(JSON.parse(row.times) as number[], now, this.#max, this.#windowMs) : 0
  }

  async failed(client: string, now: number): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('gpt_key_failures')
        .values({ client, times: '[]', updated_at: now })
        // A no-op update: it takes the row's lock and makes RETURNING give the stored row.
        .onConflict((oc) => oc.column('client').doUpdateSet((eb) => ({ client: eb.ref('excluded.client') })))
        .returning('times')
        .executeTakeFirstOrThrow()
      const times = withFailure(JSON.parse(row.times) as number[], now, this.#max, this.#windowMs)
      await trx
        .updateTable('gpt_key_failures')
        .set({ times: JSON.stringify(times), updated_at: now })
        .where('client', '=', client)
        .execute()
    })
  }

  /** Housekeeping: clients whose every failure has left the window. */
  async prune(clock: Clock): Promise<void> {
    await this.#db
      .deleteFrom('gpt_key_failures')
      .where('updated_at', '<', clock.now() - this.#windowMs)
      .execute()
  }
}
