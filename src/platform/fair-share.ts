// A share of a thread for work that comes in streams (analytics): single requests run at full speed, but once more
// than `burstMs` of such work was done in the last second or so (decaying exponentially), each piece of work is
// followed by a rest as long as it took. One client looping a heavy read then leaves the thread to everyone else
// (docs/benchmarks.md, "Stalls" and "Insights").
export class FairShare {
  #busyMs = 0
  #since = performance.now()

  constructor(private readonly burstMs: number) {}

  /** Counts work just done; true when the budget is spent. */
  count(workedMs: number): boolean {
    const now = performance.now()
    this.#busyMs = this.#busyMs * Math.exp(-(now - this.#since) / 1000) + workedMs
    this.#since = now
    return this.#busyMs > this.burstMs
  }

  /** Counts the work, then rests as long as it took (at least `minMs`) when the budget is spent; else a turn of the event loop. */
  async after(workedMs: number, minMs = 0): Promise<void> {
    if (this.count(workedMs)) await Bun.sleep(Math.max(workedMs, minMs))
    else await new Promise<void>((resolve) => setImmediate(resolve))
  }
}
