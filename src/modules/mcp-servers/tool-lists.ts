// Each user's tool lists of external servers, kept briefly so that a chat turn or a gateway request does not ask every
// server again. An entry is keyed by what is stored in the database (the server's revision, the user's connection time),
// so a connection, a new token or a changed server is seen at once by every instance; what a server itself changes is
// seen once the entry expires (a minute; a failed listing, fifteen seconds). Concurrent askers share one listing.
import type { Clock } from '../../platform/clock.ts'

export const LIST_TTL_MS = 60_000
export const FAILED_LIST_TTL_MS = 15_000
const MAX_ENTRIES = 2000

/** A listing and how long it may be kept: `keep: false` for one that must not be reused (a refused token). */
export interface Kept<T> {
  readonly value: T
  readonly keep: 'ok' | 'failed' | false
}

interface Entry<T> {
  readonly promise: Promise<T>
  expiresAt: number
}

export class ToolListCache<T> {
  readonly #clock: Clock
  readonly #entries = new Map<string, Entry<T>>()

  constructor(clock: Clock) {
    this.#clock = clock
  }

  /** The value kept under `key`, or `load`'s (one load at a time per key; a rejected load is not kept). */
  get(key: string, load: () => Promise<Kept<T>>): Promise<T> {
    const now = this.#clock.now()
    const kept = this.#entries.get(key)
    if (kept && kept.expiresAt > now) return kept.promise
    if (kept) this.#entries.delete(key)
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!)
    const entry: Entry<T> = {
      expiresAt: Number.POSITIVE_INFINITY,
      promise: load().then(
        (result) => {
          if (result.keep === false) this.#forget(key, entry)
          else entry.expiresAt = this.#clock.now() + (result.keep === 'ok' ? LIST_TTL_MS : FAILED_LIST_TTL_MS)
          return result.value
        },
        (error: unknown) => {
          this.#forget(key, entry)
          throw error
        },
      ),
    }
    this.#entries.set(key, entry)
    return entry.promise
  }

  #forget(key: string, entry: Entry<T>): void {
    if (this.#entries.get(key) === entry) this.#entries.delete(key)
  }
}
