// A share of a thread for work that comes in streams (analytics): single requests run at full speed, and so does a
// client looping them alone; but once more than `burstMs` of such work was done in the last second or so (decaying
// exponentially), work beside other traffic is followed by a rest as long as it took. One client looping a heavy read
// then leaves the thread to everyone else (docs/benchmarks.md, "Stalls" and "Insights").
export class FairShare {
  #busyMs = 0
  #since = performance.now()
  #startedWhenLastDone: number

  /** `started`: how many requests the server has started (platform/http/traffic.ts). */
  constructor(
    private readonly burstMs: number,
    private readonly started: () => number,
  ) {
    this.#startedWhenLastDone = started()
  }

  /**
   * Whether other requests came since this share's last job was done: more than one started (the one now being
   * answered). A client looping alone starts exactly one between jobs; and work that does not yield lets no other
   * request start while it runs, so counting only during the work would miss them.
   */
  othersCame(): boolean {
    // `| 0`: the count is an Int32 that wraps after 2^31 requests; the difference stays right across the wrap.
    return ((this.started() - this.#startedWhenLastDone) | 0) > 1
  }

  /** Counts work just done; true when the budget is spent and others came: time to rest. */
  count(workedMs: number): boolean {
    const now = performance.now()
    this.#busyMs = this.#busyMs * Math.exp(-(now - this.#since) / 1000) + workedMs
    this.#since = now
    return this.#busyMs > this.burstMs && this.othersCame()
  }

  /** Counts the work, then rests as long as it took (at least `minMs`) when it is time to; true if it rested. */
  async after(workedMs: number, minMs = 0): Promise<boolean> {
    if (!this.count(workedMs)) return false
    await Bun.sleep(Math.max(workedMs, minMs))
    return true
  }

  /** A job (one request's whole work) is done: requests started from now on are the next job's and others'. */
  done(): void {
    this.#startedWhenLastDone = this.started()
  }
}

/**
 * Turns of the event loop for work done in pieces on the request thread: a turn once `everyMs` of work have passed
 * since the last, so the loop is never held longer than that, and small work pays for no turn at all (a turn in a
 * busy server costs tens of microseconds). One per request.
 */
export class EventLoopTurns {
  #since = performance.now()

  constructor(private readonly everyMs: number) {}

  /** A turn if one is due. */
  async maybe(): Promise<void> {
    if (performance.now() - this.#since < this.everyMs) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.#since = performance.now()
  }

  /** A rest (or any other wait) was a turn. */
  rested(): void {
    this.#since = performance.now()
  }
}
