// A counter every write to applications, operations or credentials moves (this module is their only writer, and one
// process owns the database), so the outbound call can keep what it read (the application, the parsed operation,
// sealed credentials) until something changes, instead of reading and parsing it on every call.
export class ApplicationsRevision {
  #value = 0

  get value(): number {
    return this.#value
  }

  /** Call after the write's transaction committed. */
  bump(): void {
    this.#value++
  }
}

/** A map emptied whenever the revision moves. */
export class RevisionCache<V> {
  readonly #entries = new Map<string, V>()
  #revision = -1

  constructor(
    private readonly revision: ApplicationsRevision,
    private readonly maxEntries = 1024,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const revision = this.revision.value
    if (revision !== this.#revision) {
      this.#entries.clear()
      this.#revision = revision
    }
    const kept = this.#entries.get(key)
    if (kept !== undefined) return kept
    const value = await load()
    // Only kept if nothing was written while it loaded.
    if (this.revision.value === revision) {
      if (this.#entries.size >= this.maxEntries) this.#entries.clear()
      this.#entries.set(key, value)
    }
    return value
  }
}
