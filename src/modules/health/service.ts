// The health report (docs/api.md "Health"): public, non-sensitive, and cheap enough for a load balancer to poll.
import { statfsSync } from 'node:fs'
import type { LicenseMode } from '../../config.ts'
import type { DatabaseKind } from '../../platform/db/target.ts'
import { isoTime, type Clock } from '../../platform/clock.ts'
import type { UntrustedForwarding } from '../../platform/http/client-address.ts'
import type { LicenseService } from '../license/index.ts'
import type { TenantService } from '../tenant/index.ts'

export type CheckStatus = 'pass' | 'warn' | 'fail'

export interface SchedulerState {
  status: CheckStatus
  jobs: number
  /** Whether this instance dispatches scheduled runs (always with one instance; one of several on PostgreSQL). */
  leader: boolean
}

export interface HealthReport {
  status: CheckStatus
  version: string
  uptime_s: number
  /** This process among the instances on one database (new at every boot). */
  instance_id: string
  provisioned: boolean
  license: { status: 'valid' | 'grace' | 'expired' | 'none'; mode: LicenseMode; expires_at: string | null; evaluation: boolean }
  checks: {
    database: { status: CheckStatus; kind: DatabaseKind; latency_ms: number | null }
    scheduler: SchedulerState
    disk: { status: CheckStatus; free_bytes: number | null }
    proxy: ProxyCheck
  }
}

export interface ProxyCheck {
  status: 'pass' | 'warn'
  /** Requests since start that carried X-Forwarded-For from a peer not in AGENTBOX_TRUSTED_PROXIES. */
  untrusted_forwarded_requests: number
  last_seen_at: string | null
  /** What to do about a warning; null when there is none. */
  detail: string | null
}

/** The proxy check warns for this long after the last request that carried X-Forwarded-For from an untrusted peer. */
export const UNTRUSTED_FORWARDING_WARN_MS = 60 * 60 * 1000
const UNTRUSTED_FORWARDING_DETAIL =
  'Requests carry X-Forwarded-For from a peer that is not in AGENTBOX_TRUSTED_PROXIES: the header is ignored, so every ' +
  "client behind that proxy shares the proxy's address (and its sign-in limit). List the proxy's address in " +
  'AGENTBOX_TRUSTED_PROXIES (the server log names it), or stop the header from reaching Agentbox.'

export const LOW_DISK_BYTES = 1024 ** 3
const DISK_CACHE_MS = 10_000
/** A load balancer polling several times a second gets the last probe; a failure still shows within a second. */
export const DATABASE_PROBE_CACHE_MS = 1000

export interface HealthServiceOptions {
  /** The database's kind and its `SELECT 1` on the read connection (DatabaseHandle.ping). */
  readonly database: { readonly kind: DatabaseKind; ping(): void | Promise<void> }
  readonly dataDir: string
  readonly instanceId: string
  readonly clock: Clock
  readonly version: string
  readonly licenseMode: LicenseMode
  readonly license: LicenseService
  readonly tenant: TenantService
  /** The scheduler reports here once it exists; until then there are no jobs to report. */
  readonly scheduler: () => SchedulerState
  /** True once the database is open and migrated (set by the server after boot). */
  readonly ready: () => boolean
  /** Requests that carried X-Forwarded-For from an untrusted peer (platform/http/client-address.ts). */
  readonly forwarding?: () => UntrustedForwarding
}

export class HealthService {
  readonly #o: HealthServiceOptions
  readonly #startedAt: number
  #disk: { at: number; free: number | null } | null = null
  #database: { at: number; result: HealthReport['checks']['database'] } | null = null

  constructor(options: HealthServiceOptions) {
    this.#o = options
    this.#startedAt = options.clock.now()
  }

  /**
   * `SELECT 1` on the read connection: it takes no part in the writer's queue (SQLite: WAL readers do not wait for
   * writers, busy_timeout caps any lock wait at 1 s; PostgreSQL: the read pool), so a long write transaction cannot
   * make the probe hang.
   */
  async #probeDatabase(): Promise<HealthReport['checks']['database']> {
    const now = this.#o.clock.now()
    if (this.#database && now - this.#database.at < DATABASE_PROBE_CACHE_MS) return this.#database.result
    const result = await this.#queryDatabase()
    this.#database = { at: now, result }
    return result
  }

  async #queryDatabase(): Promise<HealthReport['checks']['database']> {
    const { kind } = this.#o.database
    const started = performance.now()
    try {
      await this.#o.database.ping()
      return { status: 'pass', kind, latency_ms: Math.round((performance.now() - started) * 1000) / 1000 }
    } catch {
      return { status: 'fail', kind, latency_ms: null }
    }
  }

  #probeDisk(): HealthReport['checks']['disk'] {
    const now = this.#o.clock.now()
    if (!this.#disk || now - this.#disk.at > DISK_CACHE_MS) {
      let free: number | null = null
      try {
        const stats = statfsSync(this.#o.dataDir)
        free = Number(stats.bavail) * Number(stats.bsize)
      } catch {
        free = null
      }
      this.#disk = { at: now, free }
    }
    const free = this.#disk.free
    return { status: free === null ? 'warn' : free < LOW_DISK_BYTES ? 'warn' : 'pass', free_bytes: free }
  }

  /** Warns while requests with X-Forwarded-For from an untrusted peer came within the last hour. */
  #proxyCheck(): ProxyCheck {
    const { requests, lastSeenAt } = this.#o.forwarding?.() ?? { requests: 0, lastSeenAt: null }
    const recent = lastSeenAt !== null && this.#o.clock.now() - lastSeenAt < UNTRUSTED_FORWARDING_WARN_MS
    return {
      status: recent ? 'warn' : 'pass',
      untrusted_forwarded_requests: requests,
      last_seen_at: lastSeenAt === null ? null : isoTime(lastSeenAt),
      detail: recent ? UNTRUSTED_FORWARDING_DETAIL : null,
    }
  }

  async report(): Promise<HealthReport> {
    const { license, tenant } = this.#o
    const database = this.#o.ready() ? await this.#probeDatabase() : { status: 'fail' as const, kind: this.#o.database.kind, latency_ms: null }
    const scheduler = this.#o.scheduler()
    const disk = this.#probeDisk()
    const proxy = this.#proxyCheck()
    const licenseState = license.state()
    const statuses: CheckStatus[] = [database.status, scheduler.status, disk.status, proxy.status]
    if (licenseState !== null && (licenseState !== 'valid' || license.needsAttention())) statuses.push('warn')
    const status: CheckStatus = statuses.includes('fail') ? 'fail' : statuses.includes('warn') ? 'warn' : 'pass'
    return {
      status,
      version: this.#o.version,
      uptime_s: Math.floor((this.#o.clock.now() - this.#startedAt) / 1000),
      instance_id: this.#o.instanceId,
      provisioned: tenant.provisioned,
      license: {
        status: licenseState ?? 'none',
        mode: this.#o.licenseMode,
        expires_at: license.current?.expires_at ?? null,
        evaluation: license.isEvaluation(),
      },
      checks: { database, scheduler, disk, proxy },
    }
  }

  /** Ready means the database is open and migrated; an unprovisioned instance is ready (it serves setup). */
  async isReady(): Promise<boolean> {
    return this.#o.ready() && (await this.#probeDatabase()).status === 'pass'
  }
}
