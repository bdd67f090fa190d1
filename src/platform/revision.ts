// Revisions: a number that moves whenever data some cache was built from changes, so the cache is dropped on the next
// read instead of serving what was true before. Applications (their operations and skills) and sealed secrets each
// have one.
import type { Kysely } from 'kysely'
import type { Database } from './db/schema.ts'

/**
 * What caches watch and writers move. Writers call `changed(trx)` inside the transaction that writes, with that
 * transaction. With one process (SQLite) the revision lives in its memory; with several instances (PostgreSQL) it is
 * also a stored row bumped in that same transaction and read back by the others (platform/cluster/revisions.ts).
 */
export interface Revision {
  /** Moves whenever the watched data changed (or is about to: see `changed`). Read on every cache lookup. */
  readonly value: number
  /** Records that `trx` changes the watched data. */
  changed(trx: Kysely<Database>): Promise<void>
  /**
   * Brings `value` up to date with changes other instances committed (several instances on PostgreSQL) before the
   * call, or before `since` when given (the performance.now() at which the caller's request arrived: a read already
   * made for that request serves it); undefined when there is nothing to wait for (one process owns the database, or
   * a read that started after `since` has completed).
   */
  sync?(since?: number): Promise<void> | undefined
}

/**
 * The revision in memory. `changed` moves it at once, before the transaction commits: the caches load through the
 * writer connection, whose queries wait for the open transaction, so nothing read after the move can be the rows
 * from before it; a load that began before the move is not kept (RevisionCache). A rolled-back transaction only
 * costs the caches a reload.
 */
export class LocalRevision implements Revision {
  #value = 0

  get value(): number {
    return this.#value
  }

  async changed(_trx: Kysely<Database>): Promise<void> {
    this.#value++
  }

  /** For writers outside a transaction (a single statement): move it right after the write. */
  bump(): void {
    this.#value++
  }
}

/** A map emptied whenever the revision moves. */
export class RevisionCache<V> {
  readonly #entries = new Map<string, V>()
  #revision = -1

  constructor(
    private readonly revision: Pick<Revision, 'value' | 'sync'>,
    private readonly maxEntries = 1024,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    // Another instance's change committed before this call must not be answered from what was kept before it.
    const syncing = this.revision.sync?.()
    if (syncing) await syncing
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

  /** Forgets one entry (a value found stale by its user). */
  delete(key: string): void {
    this.#entries.delete(key)
  }
}
