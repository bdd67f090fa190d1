// UI templates as the server wires it: templates of operations, each application's repository (its token in the
// vault), push and pull through the git worker, and the catalogue the agent toolbox serves them from over MCP.
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import type { SecretVault } from '../../platform/secrets/index.ts'
import type { ApplicationsService } from '../applications/index.ts'
import type { ApplicationFilesPart } from '../bundles/index.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import { templatesBundlePart } from './bundle-part.ts'
import { StoredTemplateCatalog, type TemplateCatalog } from './catalog.ts'
import { createGitRunner, type GitRunner, type GitRunnerLimits } from './git/git-runner.ts'
import { GIT_REPOSITORY_TOKENS, type RepositoryLock, RepositoryService } from './repository.ts'
import { uiTemplateRoutes } from './routes.ts'
import { SyncService } from './sync.ts'
import { TemplatesService } from './templates.ts'

export interface UiTemplatesModule extends CapabilityModule<TemplatesService> {
  readonly repositories: RepositoryService
  readonly sync: SyncService
  /** What the agent toolbox serves templates from (ui:// resources, the tools' _meta.ui). */
  readonly catalog: TemplateCatalog
  /** What an agent bundle carries of its applications' templates (given to the bundles module). */
  readonly bundlePart: ApplicationFilesPart
}

export interface UiTemplatesDependencies {
  /** Repository tokens are sealed secrets of the namespace `git_repository_token`, declared here. */
  readonly secrets: SecretVault
  readonly outbound: OutboundClient
  /** Its deletions take the repository, its token and its clone along. */
  readonly applications: ApplicationsService
  readonly gitLimits?: GitRunnerLimits
}

export function createUiTemplatesModule(ctx: ModuleContext, deps: UiTemplatesDependencies): UiTemplatesModule {
  const { db } = ctx.database
  // Shared by every instance on one database: a template saved on one is what the others' next call offers.
  const revision = ctx.cluster.revisions.get('ui_templates')
  // One sync or configuration change per application at a time across every instance: a lease in the database (two
  // instances pushing to one repository at once would each find the other's commit in the way). A second one waits.
  const lock: RepositoryLock = { run: (applicationId, work) => ctx.cluster.leases.run(`ui_template_sync:${applicationId}`, work) }
  const checkUrl = (url: string) => deps.outbound.checkSavedUrl(url)
  const gitRoot = join(ctx.config.dataDir, 'git')
  const templates = new TemplatesService({
    db,
    clock: ctx.clock,
    revision,
    operation: (principal, apiName, operationId) => deps.applications.operation(principal, apiName, operationId),
  })
  const repositories = new RepositoryService({
    db,
    clock: ctx.clock,
    tokens: deps.secrets.namespace(GIT_REPOSITORY_TOKENS),
    checkUrl,
    lock,
    gitRoot,
  })
  const runner: GitRunner = createGitRunner(deps.outbound, deps.gitLimits)
  const sync = new SyncService({ db, clock: ctx.clock, templates, repositories, runner, lock, checkUrl })
  deps.applications.onDelete(async (trx, app) => {
    await repositories.removeAll(trx, app.id)
    // The templates go with the application (ON DELETE CASCADE); the clone is only a cache, dropped once no sync holds it.
    // This instance's clone only: another instance's is a cache of its own, started over when a new application's
    // repository differs.
    lock
      .run(app.id, async () => rmSync(repositories.cloneDir(app.api_name), { recursive: true, force: true }))
      .catch((error: Error) => ctx.logger.warn('could not remove the clone of a deleted application', { application: app.api_name, error: error.message }))
    await revision.changed(trx)
  })
  return {
    routes: uiTemplateRoutes(ctx.guard, templates, repositories, sync),
    service: templates,
    repositories,
    sync,
    catalog: new StoredTemplateCatalog(db, revision),
    bundlePart: templatesBundlePart({ clock: ctx.clock, revision }),
    stop: () => runner.close(),
  }
}
