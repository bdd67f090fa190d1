// Work over many bundle files in slices: after a few milliseconds the loop hands the event loop back for a turn, so
// checking 100 skills or compressing 150 files never holds other requests for longer than one slice.

const SLICE_MS = 4

export class TimeSlice {
  #started = performance.now()

  /** Call between items: yields a turn of the event loop once the slice is spent. */
  async next(): Promise<void> {
    if (performance.now() - this.#started < SLICE_MS) return
    await new Promise((resolve) => setImmediate(resolve))
    this.#started = performance.now()
  }
}
