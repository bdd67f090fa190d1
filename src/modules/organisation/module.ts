// The organisation as the server wires it: its settings, its audit log and the secrets key, for admins.
import type { SealedValueStore, SecretBox } from '../../platform/secret-box.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { orgRoutes } from './routes.ts'
import { SecretsKeyRotation } from './secrets-key.ts'

/** Settings and the audit log are platform pieces (src/platform/org-settings.ts, audit.ts) every module may use. */
export interface OrganisationModule extends CapabilityModule<null> {
  readonly secretsKey: SecretsKeyRotation
}

export interface OrganisationDependencies {
  readonly secretBox: SecretBox
  /** Every module that stores sealed values (application credentials today; git and MCP server tokens next). */
  readonly sealedStores: readonly SealedValueStore[]
}

export function createOrganisationModule(ctx: ModuleContext, deps: OrganisationDependencies): OrganisationModule {
  const secretsKey = new SecretsKeyRotation(ctx.database.db, ctx.clock, deps.secretBox, deps.sealedStores)
  return { routes: orgRoutes(ctx.guard, ctx.database, ctx.clock, secretsKey), service: null, secretsKey }
}
