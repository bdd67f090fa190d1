// The organisation as the server wires it: its settings, its audit log and the secrets key, for admins.
import type { SecretVault } from '../../platform/secrets/index.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { orgRoutes } from './routes.ts'
import { SecretsKeyRotation } from './secrets-key.ts'

/** Settings and the audit log are platform pieces (src/platform/org-settings.ts, audit.ts) every module may use. */
export interface OrganisationModule extends CapabilityModule<null> {
  readonly secretsKey: SecretsKeyRotation
}

export interface OrganisationDependencies {
  /** Every sealed secret of the instance (all namespaces) lives in it. */
  readonly secrets: SecretVault
}

export function createOrganisationModule(ctx: ModuleContext, deps: OrganisationDependencies): OrganisationModule {
  const secretsKey = new SecretsKeyRotation(ctx.database.db, ctx.clock, deps.secrets)
  return { routes: orgRoutes(ctx.guard, ctx.database, ctx.clock, secretsKey), service: null, secretsKey }
}
