// Which instance dispatches scheduled work. On SQLite the one process always does. On PostgreSQL the leader is the
// instance holding a session advisory lock on a connection of its own, never returned to a pool: when the process
// dies, its connection closes and PostgreSQL frees the lock, and a follower's next attempt takes it. The leader checks
// that connection on every step (`SELECT 1`, with a deadline) and steps down on any failure, so a leader cut off from
// the database stops dispatching before another can take over. The same connection holds a second lock named after
// the instance, which tells every instance which others are alive (a run left "running" by a dead one is recovered).
import pg from 'pg'

/** Advisory lock keys: (class, key) pairs of 32-bit integers, apart from any other user of the database. */
const LEADER_CLASS = 0x41474278 // "AGBx"
const LEADER_KEY = 1
const INSTANCE_CLASS = 0x41474269 // "AGBi"
/** A step that takes longer than this (connecting, the health check, the attempt) counts as a failure. */
const STEP_TIMEOUT_MS = 3000

export interface Leadership {
  /** Whether this instance dispatches now (read synchronously by the scheduler on every tick). */
  readonly isLeader: boolean
  /** One step: the leader checks its connection, a follower tries to take the lock. Resolves to isLeader. */
  check(): Promise<boolean>
  /** Called after every change of isLeader. */
  onChange(listener: (leader: boolean) => void): void
  /** The ids of instances alive now, or null when every run's instance counts as gone (SQLite: one process). */
  liveInstances(ids: readonly string[]): Promise<Set<string> | null>
  close(): Promise<void>
}

/** One process owns the database: always the leader, and nothing else is alive. */
export class SoleLeadership implements Leadership {
  readonly isLeader = true
  async check(): Promise<boolean> {
    return true
  }
  onChange(): void {}
  async liveInstances(): Promise<Set<string> | null> {
    return null
  }
  async close(): Promise<void> {}
}

/** A 31-bit key for an instance id (non-negative: pg_locks shows keys as unsigned oids). */
export function instanceLockKey(instanceId: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < instanceId.length; i++) hash = Math.imul(hash ^ instanceId.charCodeAt(i), 0x01000193) >>> 0
  return hash & 0x7fffffff
}

export class AdvisoryLockLeadership implements Leadership {
  readonly #url: string
  readonly #instanceKey: number
  readonly #onError: (error: Error) => void
  readonly #listeners: ((leader: boolean) => void)[] = []
  #client: pg.Client | null = null
  #leader = false
  #closed = false
  #step: Promise<boolean> | null = null
  #queue: Promise<void> = Promise.resolve()

  constructor(url: string, instanceId: string, onError: (error: Error) => void) {
    this.#url = url
    this.#instanceKey = instanceLockKey(instanceId)
    this.#onError = onError
  }

  get isLeader(): boolean {
    return this.#leader
  }

  onChange(listener: (leader: boolean) => void): void {
    this.#listeners.push(listener)
  }

  check(): Promise<boolean> {
    // Steps never overlap: a slow one is finished (or failed by its deadline) before the next begins.
    this.#step ??= this.#exclusive(() => this.#check()).finally(() => {
      this.#step = null
    })
    return this.#step
  }

  /** One use of the dedicated connection at a time (a pg client runs one query at a time). */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work)
    this.#queue = result.then(
      () => undefined,
      () => undefined,
    )
    return result
  }

  async #check(): Promise<boolean> {
    if (this.#closed) return false
    try {
      const client = await this.#connection()
      if (this.#leader) {
        await deadline(client.query('SELECT 1'))
      } else {
        const result = await deadline(client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LEADER_CLASS, LEADER_KEY]))
        if (result.rows[0]?.ok === true) this.#set(true)
      }
    } catch (error) {
      this.#onError(error as Error)
      this.#drop()
    }
    return this.#leader
  }

  /** The dedicated connection, opened (with this instance's own lock) when there is none. */
  async #connection(): Promise<pg.Client> {
    if (this.#client) return this.#client
    const client = new pg.Client({ connectionString: this.#url, application_name: 'agentbox-leader', connectionTimeoutMillis: STEP_TIMEOUT_MS })
    // A connection the server closes is reported here (without a listener pg would end the process); the next step
    // finds it gone.
    client.on('error', (error) => {
      this.#onError(error)
      if (this.#client === client) this.#drop()
    })
    client.on('end', () => {
      if (this.#client === client) this.#drop()
    })
    this.#client = client
    try {
      await deadline(client.connect())
      await deadline(client.query('SELECT pg_advisory_lock($1, $2)', [INSTANCE_CLASS, this.#instanceKey]))
    } catch (error) {
      if (this.#client === client) this.#drop()
      throw error
    }
    return client
  }

  /** The connection is gone or untrusted: whatever it held is lost with it. */
  #drop(): void {
    const client = this.#client
    this.#client = null
    if (client) client.end().catch(() => {})
    if (this.#leader) this.#set(false)
  }

  #set(leader: boolean): void {
    this.#leader = leader
    for (const listener of this.#listeners) listener(leader)
  }

  liveInstances(ids: readonly string[]): Promise<Set<string> | null> {
    return this.#exclusive(() => this.#liveInstances(ids))
  }

  async #liveInstances(ids: readonly string[]): Promise<Set<string> | null> {
    const client = await this.#connection()
    const result = await deadline(
      client.query<{ key: number }>(
        "SELECT objid::int8 AS key FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND classid = $1 AND objsubid = 2 AND granted",
        [INSTANCE_CLASS],
      ),
    )
    const held = new Set(result.rows.map((row) => Number(row.key)))
    return new Set(ids.filter((id) => held.has(instanceLockKey(id))))
  }

  async close(): Promise<void> {
    this.#closed = true
    await this.#step
    const client = this.#client
    this.#client = null
    this.#leader = false
    if (client) await client.end().catch(() => {})
  }
}

async function deadline<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${STEP_TIMEOUT_MS / 1000} s`)), STEP_TIMEOUT_MS)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}
