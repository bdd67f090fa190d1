// Work that must run once at a time across every instance on one database (a repository's git sync, a chat thread's
// turn), held as a row of `leases`: (key, holder, instance, expires_at). Taking is one statement on either database, an
// upsert that writes only when the key has no row or its row expired, and says by RETURNING whether it wrote; the holder
// renews the row while its work runs and deletes it when the work ends. An instance that dies stops renewing, so its
// rows expire and any instance may take them. On SQLite one process owns the database (the data-directory lock): a row
// left by an earlier process is taken at once, whatever its expiry.
import type { Kysely } from 'kysely'
import type { Clock } from '../clock.ts'
import type { Database } from '../db/schema.ts'
import { newId } from '../ids.ts'
import { KeyedLock } from '../keyed-lock.ts'
import type { Logger } from '../log.ts'

/** How long a lease lasts unless renewed: how long the work of an instance that died blocks its key at most. */
export const LEASE_TTL_MS = 30_000
/** How often a held lease is renewed (well inside its time to live, so a late timer or a slow database does not lose it). */
export const LEASE_RENEW_MS = 10_000
/** The longest pause between two attempts of a waiter (it starts at 20 ms and doubles). */
const WAIT_STEP_MAX_MS = 500

export interface Lease {
  readonly key: string
  /**
   * Moves the expiry a time to live past now (a timer does it every LEASE_RENEW_MS while held). False when the lease
   * was lost: it expired and another instance took it.
   */
  renew(): Promise<boolean>
  /** Ends the lease (renewal stops, the row is deleted); never throws: a row left behind expires. */
  release(): Promise<void>
}

export interface LeaseOptions {
  readonly db: Kysely<Database>
  readonly clock: Clock
  readonly logger: Logger
  /** This process's instance id (Cluster.instanceId). */
  readonly instanceId: string
  /** One process owns the database (SQLite): a lease of another instance id is left over from an earlier process. */
  readonly soleInstance: boolean
  readonly ttlMs?: number
  readonly renewMs?: number
}

export class Leases {
  readonly #o: LeaseOptions
  readonly #ttlMs: number
  readonly #renewMs: number
  /** This instance's own waiters queue here, in order, instead of polling the database against each other. */
  readonly #local = new KeyedLock()
  #stopped = false

  constructor(options: LeaseOptions) {
    this.#o = options
    this.#ttlMs = options.ttlMs ?? LEASE_TTL_MS
    this.#renewMs = options.renewMs ?? LEASE_RENEW_MS
  }

  /**
   * Takes the lease of `key` now, or answers null while another holder has it (unexpired). `db` may be a transaction
   * of the writer: the lease is then taken only if it commits (its renewals and release use the writer).
   */
  async tryTake(key: string, db: Kysely<Database> = this.#o.db): Promise<Lease | null> {
    if (this.#stopped) throw new Error('The server is stopping')
    const { clock, instanceId, soleInstance } = this.#o
    const holder = newId()
    const now = clock.now()
    const taken = await db
      .insertInto('leases')
      .values({ key, holder, instance_id: instanceId, expires_at: now + this.#ttlMs })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet((eb) => ({
            holder: eb.ref('excluded.holder'),
            instance_id: eb.ref('excluded.instance_id'),
            expires_at: eb.ref('excluded.expires_at'),
          }))
          .where((eb) =>
            soleInstance ? eb.or([eb('leases.expires_at', '<=', now), eb('leases.instance_id', '<>', instanceId)]) : eb('leases.expires_at', '<=', now),
          ),
      )
      .returning('holder')
      .executeTakeFirst()
    if (taken?.holder !== holder) return null
    return this.#held(key, holder)
  }

  /**
   * Runs `work` holding the lease of `key`, after whatever holds it now (on this instance or another) has finished:
   * work under one key runs one at a time across every instance, in order on each.
   */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.#local.run(key, async () => {
      const lease = await this.#waitFor(key)
      try {
        return await work()
      } finally {
        await lease.release()
      }
    })
  }

  /** The instance holding `key` now, or null (for messages and tests). */
  async holderOf(key: string): Promise<string | null> {
    const row = await this.#o.db.selectFrom('leases').select(['instance_id', 'expires_at']).where('key', '=', key).executeTakeFirst()
    return row && row.expires_at > this.#o.clock.now() ? row.instance_id : null
  }

  /** Shutdown: waiters give up, nothing new is taken; held leases are released by their work as it ends. */
  stop(): void {
    this.#stopped = true
  }

  async #waitFor(key: string): Promise<Lease> {
    let pause = 20
    let said = false
    for (;;) {
      const lease = await this.tryTake(key)
      if (lease) return lease
      if (!said) {
        said = true
        // Once per wait: an operator (and the cluster test) can see that work on another instance holds this one up.
        this.#o.logger.info('waiting for a lease another instance holds', { lease: key, holder_instance: await this.holderOf(key).catch(() => null) })
      }
      await new Promise((resolve) => setTimeout(resolve, pause))
      pause = Math.min(pause * 2, WAIT_STEP_MAX_MS)
    }
  }

  #held(key: string, holder: string): Lease {
    const { db, clock, logger } = this.#o
    let released = false
    const renew = async () => {
      const result = await db
        .updateTable('leases')
        .set({ expires_at: clock.now() + this.#ttlMs })
        .where('key', '=', key)
        .where('holder', '=', holder)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    }
    const timer = setInterval(() => {
      renew().then(
        (kept) => {
          if (!kept && !released) logger.warn('a lease expired while its work was still running', { lease: key })
        },
        (error: Error) => logger.warn('could not renew a lease', { lease: key, error: error.message }),
      )
    }, this.#renewMs)
    timer.unref()
    return {
      key,
      renew,
      release: async () => {
        if (released) return
        released = true
        clearInterval(timer)
        try {
          await db.deleteFrom('leases').where('key', '=', key).where('holder', '=', holder).execute()
        } catch (error) {
          logger.warn('could not release a lease; it expires on its own', { lease: key, error: (error as Error).message })
        }
      },
    }
  }
}
