// Login throttling (docs/decisions.md, "Login throttle"):
//  - one account from one address: 10 failures in 15 minutes → 429 with Retry-After;
//  - one address across accounts: 100 failures in 15 minutes → 429;
//  - one account across addresses: never locked, but once it has 10 failures in the window each further attempt
//    waits min(2^(n-10) × 250 ms, 5 s) before the password is checked;
//  - a known browser (one holding the device cookie of an earlier sign-in to that account) is judged by its own
//    failures instead of its address's: 10 in 15 minutes, then it is treated like any other. A flood of failures from
//    a shared address (an office, a proxy that is not trusted) cannot lock out someone who signed in there before.
// "Address" is the client address (behind trusted proxies, the forwarded one), an IPv6 address counted by its /64.
// An attempt is counted when it starts (before the slow verify), so parallel requests cannot all get through the
// check before the first failure is recorded; a success takes its own attempt back.
import type { Clock } from '../../platform/clock.ts'

export const LOGIN_WINDOW_MS = 15 * 60 * 1000
/** Failures allowed for one (account, address) pair in the window. */
export const LOGIN_MAX_FAILURES = 10
/** Failures allowed from one address across all accounts in the window. */
export const LOGIN_MAX_FAILURES_PER_ADDRESS = 100
/** Failures an account takes (from anywhere) before its attempts are slowed down. */
export const LOGIN_DELAY_AFTER = 10
export const LOGIN_DELAY_BASE_MS = 250
export const LOGIN_DELAY_MAX_MS = 5000
/** Attempts remembered per key: above every limit (10 per pair, 100 per address) and the delay's cap (15). */
const KEPT_PER_KEY = 128

/** The account-wide delay before checking the password, given the account's failures (and attempts in flight). */
export function accountDelayMs(failures: number): number {
  if (failures < LOGIN_DELAY_AFTER) return 0
  const exponent = failures - LOGIN_DELAY_AFTER
  return exponent >= 5 ? LOGIN_DELAY_MAX_MS : Math.min(2 ** exponent * LOGIN_DELAY_BASE_MS, LOGIN_DELAY_MAX_MS)
}

export type LoginAttempt =
  | { readonly allowed: false; readonly retryAfterSeconds: number }
  | {
      readonly allowed: true
      /** Wait this long before checking the password (the account is under attack). */
      readonly delayMs: number
      /** The password was right: take this attempt back and clear the pair's failures. */
      succeeded(): void
    }

/**
 * In memory: one process serves the instance, and a restart forgetting failures is acceptable
 * (it cannot be triggered by the attacker). Each key keeps the times of its recent attempts that did not succeed
 * (failures and attempts still being checked).
 */
export class LoginRateLimiter {
  readonly #clock: Clock
  readonly #failures = new Map<string, number[]>()
  #lastSweep = 0

  constructor(clock: Clock) {
    this.#clock = clock
  }

  #recent(key: string, now: number): number[] {
    const times = (this.#failures.get(key) ?? []).filter((t) => now - t < LOGIN_WINDOW_MS)
    if (times.length === 0) this.#failures.delete(key)
    else this.#failures.set(key, times)
    return times
  }

  #waitSeconds(times: number[], max: number, now: number): number {
    if (times.length < max) return 0
    const oldestThatCounts = times[times.length - max]!
    return Math.max(1, Math.ceil((oldestThatCounts + LOGIN_WINDOW_MS - now) / 1000))
  }

  /**
   * Checks the limits and, when the attempt may go ahead, counts it at once (synchronously: no other attempt can
   * pass the check in between). The caller reports a success through `succeeded()`; a failure needs nothing more.
   */
  begin(email: string, address: string, device: string | null = null): LoginAttempt {
    const now = this.#clock.now()
    const accountKey = `email:${email}`
    const account = this.#recent(accountKey, now)
    if (device !== null) {
      const deviceKey = `device:${device}`
      const known = this.#recent(deviceKey, now)
      // Past its own limit a known browser is judged like any other (by its address), not locked on its own.
      if (known.length < LOGIN_MAX_FAILURES) return this.#admit([deviceKey, accountKey], [known, account], now)
    }
    const pairKey = `pair:${JSON.stringify([address, email])}`
    const addressKey = `addr:${address}`
    const pair = this.#recent(pairKey, now)
    const addr = this.#recent(addressKey, now)
    const wait = Math.max(this.#waitSeconds(pair, LOGIN_MAX_FAILURES, now), this.#waitSeconds(addr, LOGIN_MAX_FAILURES_PER_ADDRESS, now))
    if (wait > 0) return { allowed: false, retryAfterSeconds: wait }
    return this.#admit([pairKey, addressKey, accountKey], [pair, addr, account], now)
  }

  /**
   * Counts the attempt under every key (the first is the one a success clears: the pair, or the known browser) and lets
   * it go ahead after the account's delay.
   */
  #admit(keys: readonly string[], recent: readonly number[][], now: number): LoginAttempt {
    const delayMs = accountDelayMs(recent.at(-1)!.length)
    for (const [index, key] of keys.entries()) {
      const times = recent[index]!
      times.push(now)
      // Only the newest entries matter (every limit and the longest delay are reached well within them), so an
      // account attacked from many addresses costs a bounded amount per attempt, however long the attack.
      if (times.length > KEPT_PER_KEY) times.splice(0, times.length - KEPT_PER_KEY)
      this.#failures.set(key, times)
    }
    // Bound memory under a spray of distinct e-mails or addresses: drop keys whose failures have all aged out. At most
    // once a minute, so a large map is not walked on every attempt.
    if (this.#failures.size > 100_000 && now - this.#lastSweep > 60_000) {
      this.#lastSweep = now
      for (const key of [...this.#failures.keys()]) this.#recent(key, now)
    }

    let settled = false
    return {
      allowed: true,
      delayMs,
      succeeded: () => {
        if (settled) return
        settled = true
        this.#failures.delete(keys[0]!)
        for (const key of keys.slice(1)) {
          const times = this.#failures.get(key)
          const index = times?.lastIndexOf(now) ?? -1
          if (times && index >= 0) {
            times.splice(index, 1)
            if (times.length === 0) this.#failures.delete(key)
          }
        }
      },
    }
  }
}
