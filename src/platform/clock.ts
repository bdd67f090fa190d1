// The one source of "now": injected everywhere so expiry, rate limits and schedules are testable without sleeping.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export const systemClock: Clock = Object.freeze({ now: () => Date.now() })

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #ms: number
  constructor(start: number | string | Date = Date.now()) {
    this.#ms = new Date(start).getTime()
  }
  now(): number {
    return this.#ms
  }
  set(to: number | string | Date): void {
    this.#ms = new Date(to).getTime()
  }
  advance(ms: number): void {
    this.#ms += ms
  }
}

/** ISO 8601 UTC with milliseconds and `Z`, the only datetime format on the wire (docs/api.md "Conventions"). */
export const isoTime = (ms: number): string => new Date(ms).toISOString()
