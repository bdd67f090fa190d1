// One piece of async work at a time per key (a git repository being synced, an application being imported, the
// tenant being set up), any number at once across keys. In memory: one process serves the instance.

export class KeyedLock {
  /** The end of the queue of each key that has work queued or running; removed once it drains. */
  readonly #tails = new Map<string, Promise<void>>()

  /**
   * Runs `work` after everything queued before it under `key`, and resolves or rejects as it does. A failure does not
   * stop the work queued after it.
   */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve()
    const result = previous.then(work)
    const tail = result.then(
      () => undefined,
      () => undefined,
    )
    this.#tails.set(key, tail)
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key)
    })
    return result
  }

  /** Keys with work queued or running. */
  get busyKeys(): number {
    return this.#tails.size
  }
}
