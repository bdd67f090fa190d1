// The health capability as the server wires it: /api/health (database, scheduler, disk, licence), /live and /ready.
import type { UntrustedForwarding } from '../../platform/http/client-address.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { VERSION } from '../../version.ts'
import type { LicenseService } from '../license/index.ts'
import type { TenantService } from '../tenant/index.ts'
import { healthRoutes } from './routes.ts'
import { HealthService, type SchedulerState } from './service.ts'

export interface HealthModuleDeps {
  readonly license: LicenseService
  readonly tenant: TenantService
  /** The task scheduler's state, for checks.scheduler. */
  readonly scheduler: () => SchedulerState
  /** False once shutdown has begun: /ready answers 503 so load balancers stop sending traffic. */
  readonly ready: () => boolean
  /** Requests that carried X-Forwarded-For from a peer that is not a trusted proxy, for checks.proxy. */
  readonly forwarding: () => UntrustedForwarding
}

export type HealthModule = CapabilityModule<HealthService>

export function createHealthModule(ctx: ModuleContext, deps: HealthModuleDeps): HealthModule {
  const service = new HealthService({
    database: ctx.database,
    dataDir: ctx.config.dataDir,
    instanceId: ctx.cluster.instanceId,
    clock: ctx.clock,
    version: VERSION,
    licenseMode: ctx.config.licenseMode,
    license: deps.license,
    tenant: deps.tenant,
    scheduler: deps.scheduler,
    ready: deps.ready,
    forwarding: deps.forwarding,
  })
  return { routes: healthRoutes(service), service }
}
