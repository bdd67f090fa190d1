// GPT apps as the server wires them: the admins' records and keys, the key check of /api/gpt_public (with its throttle
// of failed attempts), and the two actions, which take their tools from the agent toolbox and run them through its run
// step as the organisation.
import { publicOrigin } from '../../platform/http/public-origin.ts'
import { VERSION } from '../../version.ts'
import type { ApplicationUsesCheck } from '../agents/index.ts'
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { Toolbox } from '../toolbox/index.ts'
import { GptActions } from './actions.ts'
import { GptKeyAuthenticator } from './gpt-keys.ts'
import { type FailedKeyAttempts, MemoryFailedKeyAttempts, StoredFailedKeyAttempts } from './key-throttle.ts'
import { GptOfferings } from './offering.ts'
import { gptsRoutes } from './routes.ts'
import { GptsService } from './service.ts'

export interface GptsModule extends CapabilityModule<GptsService> {
  readonly actions: GptActions
  readonly keys: GptKeyAuthenticator
}

export interface GptsModuleDependencies {
  readonly toolbox: Toolbox
  /** Moves whenever an application, its operations or skills change. */
  readonly applicationsRevision: () => number
  /** Checks that the applications a GPT is given exist and the admin may see them (the applications module's). */
  readonly checkApplications: ApplicationUsesCheck
  /** Where failed key attempts are counted (unless given: in memory on SQLite, in the database on PostgreSQL). */
  readonly failedKeyAttempts?: FailedKeyAttempts
}

const PRUNE_MS = 10 * 60 * 1000

export function createGptsModule(ctx: ModuleContext, deps: GptsModuleDependencies): GptsModule {
  const { database } = ctx
  const { db } = database
  // Shared by every instance on one database: a GPT uninstalled or a key rotated on one is refused by all at once.
  const revision = ctx.cluster.revisions.get('gpts')
  const service = new GptsService({ db, clock: ctx.clock, revision, checkApplications: deps.checkApplications })
  // One process (SQLite) counts failed keys in memory; instances sharing PostgreSQL count them in the database.
  let stored: StoredFailedKeyAttempts | null = null
  if (!deps.failedKeyAttempts && database.kind === 'postgres') {
    const byClient = database.readStatement<{ times: string }>(db.selectFrom('gpt_key_failures').select('times').where('client', '=', '?').compile())
    stored = new StoredFailedKeyAttempts({ db, read: async (client) => await byClient([client]) })
  }
  const attempts = deps.failedKeyAttempts ?? stored ?? new MemoryFailedKeyAttempts()
  const keys = new GptKeyAuthenticator({ db, clock: ctx.clock, revision, attempts })
  const offerings = new GptOfferings({ db, toolbox: deps.toolbox, applicationsRevision: deps.applicationsRevision })
  const actions = new GptActions(deps.toolbox, offerings)
  const routes = gptsRoutes({ guard: ctx.guard, service, actions, keys, origin: publicOrigin(ctx.config.publicUrl), version: VERSION })
  return {
    routes,
    service,
    actions,
    keys,
    start() {
      if (stored) ctx.jobs.every('aged GPT key failure counts', PRUNE_MS, () => stored.prune(ctx.clock))
    },
  }
}
