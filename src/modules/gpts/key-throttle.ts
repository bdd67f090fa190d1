// Failed GPT key attempts, counted per client address (an IPv6 address by its /64, platform/http/client-address.ts):
// past GPT_KEY_MAX_FAILURES in GPT_KEY_WINDOW_MS, every request from that address answers 429 with Retry-After until
// the oldest counted failure leaves the window. Keys carry 256 random bits, so this is not what keeps them safe; it
// keeps a client that sends wrong keys (a guesser, or a GPT left with a rotated key) from costing a lookup each time.
// Behind an interface: one process keeps the counts in memory (a restart forgetting them is harmless); several
// instances would share them in a store without the callers changing.

export const GPT_KEY_WINDOW_MS = 15 * 60 * 1000
/** Failures one address may make in the window (the sign-in throttle allows 100 per address across accounts). */
export const GPT_KEY_MAX_FAILURES = 50

export interface FailedKeyAttempts {
  /** Seconds until `client` may try again (at least 1), or 0 when it may now. */
  retryAfter(client: string, now: number): number
  /** Counts one failed attempt by `client` at `now`. */
  failed(client: string, now: number): void
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
    const times = this.#recent(client, now)
    if (times.length < this.#max) return 0
    const oldestThatCounts = times[times.length - this.#max]!
    return Math.max(1, Math.ceil((oldestThatCounts + this.#windowMs - now) / 1000))
  }

  failed(client: string, now: number): void {
    const times = this.#recent(client, now)
    times.push(now)
    // Only the newest `max` decide anything.
    if (times.length > this.#max) times.splice(0, times.length - this.#max)
    this.#failures.set(client, times)
    if (this.#failures.size > SWEEP_ABOVE && now - this.#lastSweep > 60_000) {
      this.#lastSweep = now
      for (const key of [...this.#failures.keys()]) this.#recent(key, now)
    }
  }
}
