// The tenant capability as the server wires it: the setup token at boot, and POST /api/tenant/setup.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { SecretStore } from '../../platform/secrets/secret-files.ts'
import type { Passwords } from '../auth/index.ts'
import type { LicenseService } from '../license/index.ts'
import { tenantRoutes } from './routes.ts'
import { TenantService } from './service.ts'

export interface TenantModuleDeps {
  readonly license: LicenseService
  readonly secrets: SecretStore
  readonly passwords: Passwords
}

export interface TenantModule extends CapabilityModule<TenantService> {
  /** The setup link's token as boot found or made it; null when the instance was already provisioned. */
  readonly setupTokenAtBoot: () => string | null
}

export function createTenantModule(ctx: ModuleContext, deps: TenantModuleDeps): TenantModule {
  const service = new TenantService({
    db: ctx.database.db,
    clock: ctx.clock,
    logger: ctx.logger,
    secrets: deps.secrets,
    license: deps.license,
    passwords: deps.passwords,
    configuredSetupToken: ctx.config.setupToken,
    shared: ctx.database.kind === 'postgres',
  })
  let setupToken: string | null = null
  return {
    routes: tenantRoutes(service),
    service,
    setupTokenAtBoot: () => setupToken,
    async start() {
      setupToken = await service.boot()
    },
  }
}
