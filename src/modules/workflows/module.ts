// The workflows capability as the server wires it: routes, gate-timeout sweep, retention pruning, crash recovery at boot.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ToolProvider } from '../../platform/tools/tool.ts'
import type { ModelProviders } from '../../llm/registry.ts'
import { readOrgSettings } from '../../platform/org-settings.ts'
import { workflowRoutes } from './routes.ts'
import { WorkflowRuns } from './runs/service.ts'
import { workflowTools, type WorkflowToolsTarget } from './tools.ts'

export interface WorkflowsModule extends CapabilityModule<WorkflowRuns> {
  /** run_workflow and resume_workflow for an agent's live version or draft. */
  readonly tools: ToolProvider<WorkflowToolsTarget>
  /** One retention pass with the org's retention_days; returns how many runs were pruned. */
  prune(): Promise<number>
}

const GATE_SWEEP_MS = 30_000
const PRUNE_MS = 3_600_000

export function createWorkflowsModule(ctx: ModuleContext, deps: { readonly providers: ModelProviders }): WorkflowsModule {
  const { database, clock, logger, guard, jobs } = ctx
  const runs = new WorkflowRuns({ db: database.db, clock, logger, providers: deps.providers, shared: database.kind === 'postgres' })
  const store = { db: database.db, clock }
  const prune = async () => runs.pruneFinished((await readOrgSettings(database.db)).workflow_retention_days)
  const module: WorkflowsModule = {
    routes: workflowRoutes(guard, store, runs),
    service: runs,
    tools: async (_principal, target) => workflowTools(store, runs, target),
    prune,
    async start() {
      const interrupted = await runs.recoverInterrupted()
      if (interrupted > 0) logger.warn('workflow runs interrupted by the last shutdown were marked failed', { runs: interrupted })
      jobs.every('workflow gate timeouts', GATE_SWEEP_MS, async () => {
        const expired = await runs.expireGates()
        if (expired > 0) logger.info('workflow approval gates timed out', { runs: expired })
      })
      jobs.every('workflow retention', PRUNE_MS, async () => {
        const pruned = await prune()
        if (pruned > 0) logger.info('workflow runs pruned', { runs: pruned })
      })
    },
  }
  return module
}
