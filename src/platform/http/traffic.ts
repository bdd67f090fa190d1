// How many requests the server has started, in memory any thread can read. Analytics give up their share of a thread
// only when other requests started while they worked (platform/fair-share.ts); the insights worker reads the count too.
const shared = new SharedArrayBuffer(4)
const count = new Int32Array(shared)

export const requestTraffic = {
  /** The memory to hand a worker: `new Int32Array(buffer)`, read with `Atomics.load(view, 0)`. */
  buffer: shared,
  begin: (): void => {
    Atomics.add(count, 0, 1)
  },
  /** Requests started so far (an Int32: wraps around after 2^31, so subtract and `| 0`). */
  started: (): number => Atomics.load(count, 0),
}
