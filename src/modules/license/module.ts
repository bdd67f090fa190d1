// The licence capability as the server wires it: the current licence (loaded at boot), apply and summary routes.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { keyringFor } from './keyring.ts'
import { licenseRoutes } from './routes.ts'
import { LicenseService } from './service.ts'

export type LicenseModule = CapabilityModule<LicenseService>

export function createLicenseModule(ctx: ModuleContext): LicenseModule {
  const service = new LicenseService(ctx.database.db, ctx.clock, keyringFor(ctx.config.licenseMode), ctx.cluster.revisions.get('license'))
  return { routes: licenseRoutes(ctx.guard, service), service, start: () => service.load() }
}
