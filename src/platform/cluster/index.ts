// What several instances on one database share, in one place: this process's instance id, the revisions caches watch
// and the scheduler's leadership. On SQLite (one process) revisions live in memory and this instance always leads.
import type { Clock } from '../clock.ts'
import type { DatabaseHandle } from '../db/database.ts'
import { newId } from '../ids.ts'
import type { Logger } from '../log.ts'
import { AdvisoryLockLeadership, type Leadership, SoleLeadership } from './leadership.ts'
import { Leases } from './leases.ts'
import { ClusterRevisions } from './revisions.ts'

export { AdvisoryLockLeadership, instanceLockKey, type Leadership, SoleLeadership } from './leadership.ts'
export { ClusterRevisions, type RevisionName } from './revisions.ts'
export { type Lease, LEASE_RENEW_MS, LEASE_TTL_MS, Leases } from './leases.ts'

/** How often the leader checks its connection and a follower tries to take over (well within the 10 s promise). */
export const LEADERSHIP_STEP_MS = 2000
/** How often stored revisions are read in the background. */
export const REVISION_POLL_MS = 500

export interface Cluster {
  /** A new id at every boot: what runs started here are stamped with. */
  readonly instanceId: string
  readonly revisions: ClusterRevisions
  readonly leadership: Leadership
  /** Work that runs once at a time across every instance (a repository's sync, a chat thread's turn). */
  readonly leases: Leases
  /** Takes (or tries to take) leadership once, then keeps stepping in the background. */
  start(): Promise<void>
  stop(): Promise<void>
}

export function createCluster(database: DatabaseHandle, logger: Logger, clock: Clock): Cluster {
  const instanceId = newId()
  const leases = new Leases({ db: database.db, clock, logger, instanceId, soleInstance: database.kind === 'sqlite' })
  if (database.kind === 'sqlite') {
    return {
      instanceId,
      revisions: new ClusterRevisions(null),
      leadership: new SoleLeadership(),
      leases,
      async start() {},
      async stop() {
        leases.stop()
      },
    }
  }
  const readPool = database.readPool
  const revisions = new ClusterRevisions(async () => (await readPool.query<{ name: string; value: number }>('SELECT name, value FROM cluster_revisions')).rows)
  let lastError = ''
  const leadership = new AdvisoryLockLeadership(database.target.kind === 'postgres' ? database.target.url : '', instanceId, (error) => {
    // One line per distinct failure, not one every step while the database is away.
    if (error.message !== lastError) logger.warn('scheduler leadership connection failed', { error: error.message })
    lastError = error.message
  })
  leadership.onChange((leader) => {
    lastError = ''
    logger.info(leader ? 'this instance is now the scheduler leader' : 'this instance is no longer the scheduler leader', { instance_id: instanceId })
  })
  let timer: ReturnType<typeof setInterval> | null = null
  return {
    instanceId,
    revisions,
    leadership,
    leases,
    async start() {
      await revisions.sync()
      revisions.startPolling(REVISION_POLL_MS, (error) => logger.warn('could not read the shared revisions', { error: error.message }))
      await leadership.check()
      timer = setInterval(() => void leadership.check(), LEADERSHIP_STEP_MS)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      leases.stop()
      revisions.stopPolling()
      await leadership.close()
    },
  }
}
