// Login throttling: more than 10 failures per e-mail or per client address in 15 minutes → 429 (CONTRACT §3).
import type { Clock } from '../../platform/clock.ts'

export const LOGIN_WINDOW_MS = 15 * 60 * 1000
export const LOGIN_MAX_FAILURES = 10

/**
 * In memory: one process serves the instance, and a restart forgetting failures is acceptable
 * (it cannot be triggered by the attacker). Each key keeps the times of its recent failures.
 */
export class LoginRateLimiter {
  readonly #clock: Clock
  readonly #failures = new Map<string, number[]>()

  constructor(clock: Clock) {
    this.#clock = clock
  }

  #recent(key: string, now: number): number[] {
    const times = (this.#failures.get(key) ?? []).filter((t) => now - t < LOGIN_WINDOW_MS)
    if (times.length === 0) this.#failures.delete(key)
    else this.#failures.set(key, times)
    return times
  }

  /** Seconds until another attempt is allowed, or null if the keys may try now. */
  retryAfterSeconds(keys: readonly string[]): number | null {
    const now = this.#clock.now()
    let wait = 0
    for (const key of keys) {
      const times = this.#recent(key, now)
      if (times.length >= LOGIN_MAX_FAILURES) {
        const oldestThatCounts = times[times.length - LOGIN_MAX_FAILURES]!
        wait = Math.max(wait, Math.ceil((oldestThatCounts + LOGIN_WINDOW_MS - now) / 1000))
      }
    }
    return wait > 0 ? wait : null
  }

  recordFailure(keys: readonly string[]): void {
    const now = this.#clock.now()
    for (const key of keys) this.#failures.set(key, [...this.#recent(key, now), now])
    // Bound memory under a spray of distinct e-mails: drop keys whose failures have all aged out.
    if (this.#failures.size > 100_000) for (const key of [...this.#failures.keys()]) this.#recent(key, now)
  }

  reset(key: string): void {
    this.#failures.delete(key)
  }
}
