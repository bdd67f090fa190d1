// The applications capability as the server wires it: imports, operations, credentials and the outbound call.
import { VERSION } from '../../version.ts'
import { publicOrigin } from '../../platform/http/public-origin.ts'
import type { SecretVault } from '../../platform/secrets/index.ts'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import type { InteractionsService } from '../interactions/index.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { ArgumentChecker } from './arguments.ts'
import { APPLICATION_CREDENTIALS, ApplicationCredentials } from './credentials.ts'
import { createImportRunner, type ImportRunner } from './document/run-import.ts'
import { OperationExecutor } from './execute.ts'
import { applicationRoutes } from './routes.ts'
import { applicationSkills } from './skills-home.ts'
import { OperationTools } from './tools.ts'
import type { ApplicationSkills } from '../skills/index.ts'
import { ApplicationsService } from './service.ts'
import { checkApplicationUses } from './agent-uses.ts'
import type { ApplicationUsesCheck } from '../agents/index.ts'

export interface ApplicationsModule extends CapabilityModule<ApplicationsService> {
  readonly credentials: ApplicationCredentials
  readonly executor: OperationExecutor
  /** One tool per operation, for agents' and MCP apps' endpoints. */
  readonly tools: OperationTools
  /** MCP apps' skills (served by the skills module's routes and load_skill). */
  readonly skills: ApplicationSkills
  /** The check an agent's save runs on the applications its draft names. */
  readonly checkAgentUses: ApplicationUsesCheck
}

export interface ApplicationsDependencies {
  /** Credentials are sealed secrets of the namespace `app_credential`, declared here. */
  readonly secrets: SecretVault
  readonly outbound: OutboundClient
  readonly interactions: InteractionsService
  /** Default: a worker per import. */
  readonly runImport?: ImportRunner
}

export function createApplicationsModule(ctx: ModuleContext, deps: ApplicationsDependencies): ApplicationsModule {
  const db = ctx.database.db
  const revision = ctx.cluster.revisions.get('applications')
  const store = deps.secrets.namespace(APPLICATION_CREDENTIALS)
  const checkUrl = (url: string) => deps.outbound.checkSavedUrl(url)
  const service = new ApplicationsService({
    db,
    clock: ctx.clock,
    runImport: deps.runImport ?? createImportRunner(),
    checkBaseUrl: checkUrl,
    revision,
    credentials: store,
  })
  const credentials = new ApplicationCredentials({ db, clock: ctx.clock, store, checkUrl })
  const executor = new OperationExecutor({
    db,
    credentials,
    checker: new ArgumentChecker(),
    fetch: deps.outbound.fetch,
    interactions: deps.interactions,
    revision,
    userAgent: `Agentbox/${VERSION}`,
  })
  const tools = new OperationTools({ db, executor, revision })
  const skills = applicationSkills(db, ctx.clock, revision)
  return {
    routes: applicationRoutes(ctx.guard, service, credentials, executor, publicOrigin(ctx.config.publicUrl)),
    service,
    credentials,
    executor,
    tools,
    skills,
    checkAgentUses: checkApplicationUses,
  }
}
