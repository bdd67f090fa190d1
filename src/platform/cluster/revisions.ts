// The revisions caches watch, shared by every instance on one database. On SQLite (one process owns the database) each
// is a counter in memory, as before. On PostgreSQL each is also a row of `cluster_revisions`, bumped in the writing
// transaction; an instance learns of another's writes by reading those rows: before every cache lookup (sync(), so a
// change committed on one instance is what the other's very next call uses) and twice a second in the background (for
// the few readers that look at `value` without a lookup).
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.ts'
import type { Revision } from '../revision.ts'

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

export type RevisionName = 'applications' | 'secrets' | 'org_settings' | 'tasks' | 'license' | 'ui_templates' | 'gpts' | 'sign_ins'

/** Reads every stored revision (on the read connections, which never wait for the writer). */
export type RevisionReader = () => Promise<readonly { name: string; value: number }[]>

class SharedRevision implements Revision {
  #value = 0
  /** The stored counter last read; undefined before the first read. */
  #seen: number | undefined

  constructor(
    private readonly name: RevisionName,
    private readonly cluster: ClusterRevisions,
  ) {}

  get value(): number {
    return this.#value
  }

  /**
   * Moves at once, before the transaction commits (this instance's caches load through the writer, which waits for
   * it), and on PostgreSQL bumps the stored row in the same transaction, so other instances see it move exactly when
   * the change becomes visible to them. Callers outside a transaction call it after their write.
   */
  async changed(trx: Kysely<Database>): Promise<void> {
    this.#value++
    if (!this.cluster.stored) return
    await trx
      .updateTable('cluster_revisions')
      .set((eb) => ({ value: eb('value', '+', 1) }))
      .where('name', '=', this.name)
      .execute()
  }

  sync(since?: number): Promise<void> | undefined {
    return this.cluster.sync(since)
  }

  /** A stored counter that differs from the one last read means some instance changed the data: drop what was kept. */
  observe(stored: number): void {
    if (this.#seen !== undefined && stored !== this.#seen) this.#value++
    this.#seen = stored
  }
}

export class ClusterRevisions {
  readonly #revisions = new Map<RevisionName, SharedRevision>()
  readonly #read: RevisionReader | null
  /** The read scheduled or in flight, and the one queued behind it for callers that came after it started. */
  #current: Promise<void> | null = null
  #next: Promise<void> | null = null
  /** When (performance.now()) the current read started (Infinity until it does), and the newest completed one. */
  #currentStartedAt = 0
  #freshAsOf = Number.NEGATIVE_INFINITY
  #timer: ReturnType<typeof setInterval> | null = null

  /** `read` null: one instance (SQLite), nothing stored. */
  constructor(read: RevisionReader | null) {
    this.#read = read
  }

  get stored(): boolean {
    return this.#read !== null
  }

  get(name: RevisionName): Revision {
    let revision = this.#revisions.get(name)
    if (!revision) {
      revision = new SharedRevision(name, this)
      this.#revisions.set(name, revision)
    }
    return revision
  }

  /**
   * Resolves once every revision reflects what was committed before the call (undefined on SQLite: nothing to wait
   * for). A read that started before the call may have missed a commit, so the caller waits for the next one; callers
   * that arrive while a read is queued share it, so a busy instance runs at most one read at a time plus one queued.
   *
   * `since` (a performance.now() no later than the call: when the caller's request arrived) relaxes "before the call"
   * to "before `since`": a read that started after it is enough, whether it is in flight (waited for) or done
   * (undefined: the values are current already; read them). The authenticator passes its request's arrival, so the
   * read the licence check waited for before the route serves it too; it used to queue a second read behind the first,
   * and under load a third (two or three round trips and wake-ups per request on the read pool instead of one).
   *
   * A read starts one event-loop turn after the call that needs it (setImmediate: after the requests the same poll
   * took in), so every request of that poll shares it; started at once, it served the first request only and the
   * others queued the next read behind it (about three reads per group-commit batch under load, ~110 µs of instance
   * CPU each, instead of about one).
   */
  sync(since?: number): Promise<void> | undefined {
    if (!this.#read) return undefined
    if (since !== undefined && this.#freshAsOf > since) return undefined
    // A read not started yet serves every caller; one in flight serves those whose request arrived before it started.
    if (this.#current && this.#currentStartedAt > (since ?? performance.now())) return this.#current
    if (this.#next) return this.#next
    if (!this.#current) return this.#start()
    this.#next = this.#current
      .catch(() => {})
      .then(() => {
        this.#next = null
        return this.#current ?? this.#start()
      })
    return this.#next
  }

  #start(): Promise<void> {
    // Not started yet: any caller until then is served by it (see sync).
    this.#currentStartedAt = Number.POSITIVE_INFINITY
    const read = nextTurn().then(() => {
      // Still the current read: it is cleared only once it settles.
      const startedAt = performance.now()
      this.#currentStartedAt = startedAt
      return this.#read!().then((rows) => {
        for (const row of rows) this.#revisions.get(row.name as RevisionName)?.observe(Number(row.value))
        this.#freshAsOf = Math.max(this.#freshAsOf, startedAt)
      })
    })
    const current: Promise<void> = read.finally(() => {
      if (this.#current === current) this.#current = null
    })
    this.#current = current
    return current
  }

  /** Background reads for readers of `value` that do not sync (twice a second: well within the 1 s promise). */
  startPolling(intervalMs: number, onError: (error: Error) => void): void {
    if (!this.#read || this.#timer) return
    let failing = false
    this.#timer = setInterval(() => {
      this.sync()?.then(
        () => {
          failing = false
        },
        (error: Error) => {
          if (!failing) onError(error)
          failing = true
        },
      )
    }, intervalMs)
    this.#timer.unref()
  }

  stopPolling(): void {
    if (this.#timer) clearInterval(this.#timer)
    this.#timer = null
  }
}
