// Every capability module, made in one place with its typed dependencies: what a new module (applications, MCP, chat)
// needs from the others is visible here and nowhere else.
import type { Config } from '../config.ts'
import { ModelProviders } from '../llm/registry.ts'
import { authGuard } from '../platform/auth/guard.ts'
import type { Clock } from '../platform/clock.ts'
import type { DatabaseHandle } from '../platform/db/database.ts'
import type { JobRunner } from '../platform/jobs.ts'
import type { Logger } from '../platform/log.ts'
import type { ClientAddresses } from '../platform/http/client-address.ts'
import type { CapabilityModule, ModuleContext } from './module-context.ts'
import { SecretVault, type SecretStore } from '../platform/secrets/index.ts'
import { cachedOrgSettings, shareOrgSettingsRevision } from '../platform/org-settings.ts'
import type { Cluster } from '../platform/cluster/index.ts'
import { createOutboundClient } from '../platform/outbound/outbound-client.ts'
import type { FetchFunction, Resolver, StartTimer } from '../platform/outbound/safe-fetch.ts'
import { createAgentsModule, type AgentsModule } from './agents/module.ts'
import { createApplicationsModule, type ApplicationsModule } from './applications/module.ts'
import { createAuthenticator } from './auth/authenticator.ts'
import { createAuthModule, type AuthModule } from './auth/module.ts'
import { createBundlesModule, type BundlesModule } from './bundles/module.ts'
import { createChatModule, type ChatModule } from './chat/module.ts'
import { Passwords, type PasswordCost } from './auth/passwords.ts'
import { createConsoleModule, type ConsoleModule } from './console/module.ts'
import { createContextTypesModule, type ContextTypesModule } from './context-types/module.ts'
import { createGptsModule, type GptsModule } from './gpts/module.ts'
import { createHealthModule, type HealthModule } from './health/module.ts'
import { createInsightsModule, type InsightsModule } from './insights/module.ts'
import { createInteractionsModule, type InteractionsModule } from './interactions/module.ts'
import { createMarketplaceModule, type MarketplaceModule } from './marketplace/module.ts'
import { createMcpModule, type McpModule } from './mcp/module.ts'
import { createMcpServersModule, type McpServersModule } from './mcp-servers/module.ts'
import { createOauthModule, OAUTH_ACCESS_TOKEN_PREFIX, type OauthModule } from './oauth/module.ts'
import { createLicenseModule, type LicenseModule } from './license/module.ts'
import { createOrganisationModule, type OrganisationModule } from './organisation/module.ts'
import { createSettingsModule, type SettingsModule } from './settings/module.ts'
import { createSkillsModule, type SkillsModule } from './skills/module.ts'
import { createTasksModule, type TasksModule } from './tasks/module.ts'
import { createTenantModule, type TenantModule } from './tenant/module.ts'
import { createThreadsModule, type ThreadsModule } from './threads/module.ts'
import { createToolboxModule, type ToolboxModule } from './toolbox/module.ts'
import { createUiTemplatesModule, type UiTemplatesModule } from './ui-templates/module.ts'
import { createUsersModule, type UsersModule } from './users/module.ts'
import { createWorkflowsModule, type WorkflowsModule } from './workflows/module.ts'

/** The server's modules by name: how the server starts and stops them, and how tests reach a service. */
export interface Modules {
  readonly license: LicenseModule
  readonly tenant: TenantModule
  readonly health: HealthModule
  readonly console: ConsoleModule
  readonly auth: AuthModule
  readonly users: UsersModule
  readonly settings: SettingsModule
  readonly contextTypes: ContextTypesModule
  readonly interactions: InteractionsModule
  readonly agents: AgentsModule
  readonly skills: SkillsModule
  readonly workflows: WorkflowsModule
  readonly organisation: OrganisationModule
  readonly tasks: TasksModule
  readonly threads: ThreadsModule
  readonly applications: ApplicationsModule
  readonly insights: InsightsModule
  /** UI templates of operations (MCP Apps) and their repositories. */
  readonly uiTemplates: UiTemplatesModule
  /** The agent toolbox: every transport's tool sets and the one run step that records their calls. */
  readonly toolbox: ToolboxModule
  readonly mcp: McpModule
  readonly oauth: OauthModule
  readonly bundles: BundlesModule
  readonly marketplace: MarketplaceModule
  /** External MCP servers: registered by admins, connected per user; their tools reach chat and the gateway. */
  readonly mcpServers: McpServersModule
  /** The copilot: chat turns over the toolbox, threads, settings and models, with the caller's external MCP servers' tools. */
  readonly chat: ChatModule
  /** Custom GPTs connected to the organisation: their records and keys, and the actions they call through the toolbox. */
  readonly gpts: GptsModule
}

export interface Platform {
  readonly config: Config
  readonly clock: Clock
  readonly logger: Logger
  readonly database: DatabaseHandle
  readonly jobs: JobRunner
  readonly secrets: SecretStore
  /** This instance among others on the same database (platform/cluster). */
  readonly cluster: Cluster
  /** Who each request's client is (trusted proxies), and whether untrusted peers send X-Forwarded-For (health). */
  readonly clientAddresses: ClientAddresses
  /** False once shutdown has begun. */
  readonly isReady: () => boolean
  /** How the login throttle waits (tests record instead of sleeping). */
  readonly sleep?: (ms: number) => Promise<void>
  /** argon2id's cost; every server uses PASSWORD_COST, test harnesses a cheaper one. */
  readonly passwordCost?: PasswordCost
  /** The outbound client's resolver and fetch; tests pass ones that prove a refused call never connects. */
  readonly outbound?: { readonly resolve?: Resolver; readonly fetch?: FetchFunction; readonly startTimer?: StartTimer }
}

export function createModules(platform: Platform): Modules {
  const { config, clock, logger, database, jobs, secrets, cluster } = platform
  const signIns = cluster.revisions.get('sign_ins')
  // The guard reads the licence and the signing key only when a request comes, after every module below exists.
  const authenticate = createAuthenticator({
    db: database.db,
    readStatement: (query) => database.readStatement(query),
    // On PostgreSQL another instance's writes (a revoked token, a deactivated user) do not move this instance's change
    // stamp; they move the `sign_ins` revision (triggers of migration 0026), read before each lookup. Recorded
    // interactions move neither, so under load the remembered principals stay.
    changeStamp: database.kind === 'postgres' ? () => signIns.value : database.changeStamp,
    sync: database.kind === 'postgres' ? (since) => signIns.sync?.(since) : undefined,
    clock,
    accessTokenSecret: () => tenant.service.accessTokenKey,
  })
  const licenseLapsed = () => license.service.isLapsed()
  const guard = authGuard({ authenticate, licenseLapsed, synchronous: database.kind === 'sqlite' })
  const ctx: ModuleContext = { config, clock, logger, database, guard, jobs, cluster }
  const passwords = new Passwords(platform.passwordCost)
  const license = createLicenseModule(ctx)
  const tenant = createTenantModule(ctx, { license: license.service, secrets, passwords })
  // One guarded client for everything that calls out, and one vault (one table, one keyring) for every sealed secret.
  shareOrgSettingsRevision(database.db, cluster.revisions.get('org_settings'))
  const orgSettings = cachedOrgSettings(database.db)
  const outbound = createOutboundClient({
    operatorAllow: config.outboundAllow,
    adminAllow: async () => (await orgSettings()).outbound_allow,
    resolve: platform.outbound?.resolve,
    fetch: platform.outbound?.fetch,
    startTimer: platform.outbound?.startTimer,
  })
  const vault = new SecretVault({
    db: database.db,
    files: secrets,
    clock,
    fetch: outbound.fetch,
    revision: cluster.revisions.get('secrets'),
    sharedKeyring: database.kind === 'postgres',
    // A key rotation on any instance waits for one running on another (each reads the keyring the last one wrote).
    leases: cluster.leases,
  })
  // One client per model provider for everything that calls a model, sending through the guarded client.
  const providers = new ModelProviders(config.llm, outbound)
  // Saves check the applications they name through the applications module (made below; called only on a request).
  const agents = createAgentsModule(ctx, { checkApplicationUses: (db, principal, uses) => applications.checkAgentUses(db, principal, uses) })
  const threads = createThreadsModule(ctx)
  const tasks = createTasksModule(ctx, { providers, threads: threads.service, agents: agents.service })
  const interactions = createInteractionsModule(ctx)
  const applications = createApplicationsModule(ctx, { secrets: vault, outbound, interactions: interactions.service })
  const skills = createSkillsModule(ctx, { applications: applications.skills })
  const workflows = createWorkflowsModule(ctx, { providers })
  const oauth = createOauthModule(ctx, { outbound })
  const mcpServers = createMcpServersModule(ctx, { secrets: vault, outbound })
  const uiTemplates = createUiTemplatesModule(ctx, { secrets: vault, outbound, applications: applications.service })
  // One toolbox for every transport that offers an agent's tools: MCP, chat, the gateway and GPT apps.
  const toolbox = createToolboxModule(ctx, {
    checkApplicationUses: applications.checkAgentUses,
    workflowTools: workflows.tools,
    skillTools: skills.tools,
    operationTools: applications.tools,
    applicationSkills: applications.skills,
    templates: uiTemplates.catalog,
    templateDesign: uiTemplates.service,
    interactions: interactions.service,
    licenseLapsed,
    externalServers: mcpServers.external,
  })
  const settings = createSettingsModule(ctx)
  // The copilot takes its agent's tools from the same toolbox as the MCP endpoints, so both offer the same tools.
  // The external MCP servers the caller connected join each turn after the agent's tools: the same set as the gateway's.
  const chat = createChatModule(ctx, {
    toolbox: toolbox.service,
    threads: threads.service,
    settings: settings.service,
    providers,
    externalTools: (principal, mode) => toolbox.service.externalTools(principal, mode),
  })
  const mcp = createMcpModule(ctx, {
    authenticate,
    // OAuth access tokens this instance issued, each bound to one MCP URL.
    oauth: { prefix: OAUTH_ACCESS_TOKEN_PREFIX, verify: (token, resource) => oauth.service.verifyAccessToken(token, resource) },
    toolbox: toolbox.service,
  })
  const bundles = createBundlesModule(ctx, {
    applications: applications.service,
    checkApplicationUses: applications.checkAgentUses,
    parts: [uiTemplates.bundlePart],
  })
  const gpts = createGptsModule(ctx, {
    toolbox: toolbox.service,
    applicationsRevision: () => applications.tools.revision,
    checkApplications: applications.checkAgentUses,
  })
  return {
    license,
    tenant,
    health: createHealthModule(ctx, {
      license: license.service,
      tenant: tenant.service,
      scheduler: () => tasks.schedulerState(),
      ready: platform.isReady,
      forwarding: () => platform.clientAddresses.untrustedForwarding(),
    }),
    console: createConsoleModule({ tenant: tenant.service }),
    auth: createAuthModule(ctx, { accessTokenKey: () => tenant.service.accessTokenKey, passwords, sleep: platform.sleep }),
    users: createUsersModule(ctx, { license: license.service, passwords }),
    settings,
    contextTypes: createContextTypesModule(ctx),
    interactions,
    agents,
    skills,
    workflows,
    organisation: createOrganisationModule(ctx, { secrets: vault }),
    tasks,
    threads,
    applications,
    insights: createInsightsModule(ctx),
    uiTemplates,
    toolbox,
    mcp,
    oauth,
    bundles,
    marketplace: createMarketplaceModule(ctx, { bundles: bundles.service }),
    mcpServers,
    chat,
    gpts,
  }
}

/** Boot order (the licence before the tenant, both before anything takes traffic); shutdown runs it backwards. */
export const inStartOrder = (modules: Modules): CapabilityModule[] => Object.values(modules)
