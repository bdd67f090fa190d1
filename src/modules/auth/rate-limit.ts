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
      succeeded(): void | Promise<void>
    }

/** What a sign-in is judged by: in memory on SQLite (one process), in the database on PostgreSQL (every instance). */
export interface LoginThrottle {
  /** Checks the limits and, when the attempt may go ahead, counts it before the caller checks the password. */
  begin(email: string, address: string, device?: string | null): LoginAttempt | Promise<LoginAttempt>
}

/** The keys one attempt may be counted under; `account` is always among them. */
export function attemptKeys(email: string, address: string, device: string | null) {
  return {
    account: `email:${email}`,
    device: device === null ? null : `device:${device}`,
    pair: `pair:${JSON.stringify([address, email])}`,
    address: `addr:${address}`,
  }
}

/**
 * The one rule, whatever keeps the times: given each key's recent attempts (within the window), either the wait before
 * another attempt, or the keys this attempt is counted under (the first is the one a success clears: the pair, or the
 * known browser) and the account's delay.
 */
export function judgeAttempt(
  keys: ReturnType<typeof attemptKeys>,
  recent: (key: string) => number[],
  now: number,
): { readonly allowed: false; readonly retryAfterSeconds: number } | { readonly allowed: true; readonly keys: string[]; readonly delayMs: number } {
  const delayMs = accountDelayMs(recent(keys.account).length)
  // Past its own limit a known browser is judged like any other (by its address), not locked on its own.
  if (keys.device !== null && recent(keys.device).length < LOGIN_MAX_FAILURES) return { allowed: true, keys: [keys.device, keys.account], delayMs }
  const wait = Math.max(waitSeconds(recent(keys.pair), LOGIN_MAX_FAILURES, now), waitSeconds(recent(keys.address), LOGIN_MAX_FAILURES_PER_ADDRESS, now))
  if (wait > 0) return { allowed: false, retryAfterSeconds: wait }
  return { allowed: true, keys: [keys.pair, keys.address, keys.account], delayMs }
}

function waitSeconds(times: number[], max: number, now: number): number {
  if (times.length < max) return 0
  const oldestThatCounts = times[times.length - max]!
  return Math.max(1, Math.ceil((oldestThatCounts + LOGIN_WINDOW_MS - now) / 1000))
}

/** The times still within the window, the newest KEPT_PER_KEY of them. */
export function withinWindow(times: readonly number[], now: number): number[] {
  const recent = times.filter((t) => now - t < LOGIN_WINDOW_MS)
  return recent.length > KEPT_PER_KEY ? recent.slice(recent.length - KEPT_PER_KEY) : recent
}

/** Counts an attempt: its time appended, only the newest entries kept (every limit and the longest delay are reached well within them). */
export function withAttempt(times: readonly number[], now: number): number[] {
  const next = [...times, now]
  return next.length > KEPT_PER_KEY ? next.slice(next.length - KEPT_PER_KEY) : next
}

/** Takes one attempt back (a success): its time removed once. */
export function withoutAttempt(times: readonly number[], at: number): number[] {
  const index = times.lastIndexOf(at)
  return index < 0 ? [...times] : [...times.slice(0, index), ...times.slice(index + 1)]
}

/**
 * In memory: on SQLite one process serves the instance, and a restart forgetting failures is acceptable
 * (it cannot be triggered by the attacker). Each key keeps the times of its recent attempts that did not succeed
 * (failures and attempts still being checked).
 */
export class LoginRateLimiter implements LoginThrottle {
  readonly #clock: Clock
  readonly #failures = new Map<string, number[]>()
  #lastSweep = 0

  constructor(clock: Clock) {
    this.#clock = clock
  }

  #recent(key: string, now: number): number[] {
    const times = withinWindow(this.#failures.get(key) ?? [], now)
    if (times.length === 0) this.#failures.delete(key)
    else this.#failures.set(key, times)
    return times
  }

  /**
   * Checks the limits and, when the attempt may go ahead, counts it at once (synchronously: no other attempt can
   * pass the check in between). The caller reports a success through `succeeded()`; a failure needs nothing more.
   */
  begin(email: string, address: string, device: string | null = null): LoginAttempt {
    const now = this.#clock.now()
    const verdict = judgeAttempt(attemptKeys(email, address, device), (key) => this.#recent(key, now), now)
    if (!verdict.allowed) return verdict
    const { keys } = verdict
    for (const key of keys) this.#failures.set(key, withAttempt(this.#failures.get(key) ?? [], now))
    // Bound memory under a spray of distinct e-mails or addresses: drop keys whose failures have all aged out. At most
    // once a minute, so a large map is not walked on every attempt.
    if (this.#failures.size > 100_000 && now - this.#lastSweep > 60_000) {
      this.#lastSweep = now
      for (const key of [...this.#failures.keys()]) this.#recent(key, now)
    }

    let settled = false
    return {
      allowed: true,
      delayMs: verdict.delayMs,
      succeeded: () => {
        if (settled) return
        settled = true
        this.#failures.delete(keys[0]!)
        for (const key of keys.slice(1)) {
          const times = withoutAttempt(this.#failures.get(key) ?? [], now)
          if (times.length === 0) this.#failures.delete(key)
          else this.#failures.set(key, times)
        }
      },
    }
  }
}
