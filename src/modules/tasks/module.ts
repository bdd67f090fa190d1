// The tasks capability as the server wires it: routes, the scheduler's lifetime, and its state for /api/health.
import type { CapabilityModule, ModuleContext } from '../module-context.ts'
import type { ModelProviders } from '../../llm/registry.ts'
import type { ThreadsService } from '../threads/index.ts'
import type { SchedulerState } from '../health/index.ts'
import { errorFields } from '../../platform/log.ts'
import { scheduleOf } from './records.ts'
import { tasksRoutes } from './routes.ts'
import { TaskRunner, type AgentDirectory } from './runs.ts'
import { Scheduler } from './scheduler.ts'
import { TasksService } from './service.ts'

export type { AgentDirectory } from './runs.ts'

/** How often the leader looks for task changes made on other instances (one small read when nothing changed). */
const FOLLOW_TASKS_MS = 1000

export interface TasksModuleDeps {
  /** The model providers every module shares (one client per provider). */
  readonly providers: ModelProviders
  /** Where runs write their prompts and replies. */
  readonly threads: ThreadsService
  /** The agents capability: checks agent_id on create/update and supplies live instructions to runs. */
  readonly agents?: AgentDirectory
}

/** What tests and the benchmark drive instead of sleeping: move the ManualClock, then runDue(). */
export interface SchedulerControl {
  /** Starts every run due by the clock; returns how many started. */
  tick(): number
  /** tick(), then waits until no run is in flight; returns how many started. */
  runDue(): Promise<number>
  /** Waits until no run is in flight. */
  idle(): Promise<void>
  /** The job's next run (epoch ms), undefined when the task has no job. */
  nextRunOf(taskId: string): number | undefined
}

export interface TasksModule extends CapabilityModule<TasksService> {
  /** What /api/health reports under checks.scheduler. */
  schedulerState(): SchedulerState
  readonly scheduler: SchedulerControl
}

export function createTasksModule(ctx: ModuleContext, deps: TasksModuleDeps): TasksModule {
  const { clock, logger, database, guard, config, cluster } = ctx
  const db = database.db
  const { providers, threads } = deps
  const agents = deps.agents ?? null
  const { leadership } = cluster
  const runner = new TaskRunner({
    db,
    clock,
    logger,
    providers,
    threads,
    agents,
    instanceId: cluster.instanceId,
    liveInstances: (ids) => leadership.liveInstances(ids),
  })
  const scheduler = new Scheduler(clock, logger, runner, () => leadership.isLeader)
  // Task writes move the tasks revision, so the leader's jobs follow changes made on any instance.
  const revision = cluster.revisions.get('tasks')
  const service = new TasksService({ db, clock, providers, threads, agents, scheduler, runner, revision, minIntervalS: config.taskMinIntervalS })

  const storedJobs = async () => {
    const rows = await db
      .selectFrom('tasks')
      .select(['id', 'frequency', 'schedule_hour', 'schedule_day', 'timezone', 'cron', 'next_run'])
      .where('next_run', 'is not', null)
      .execute()
    return rows.map((row) => ({ taskId: row.id, schedule: scheduleOf(row), nextRun: Date.parse(row.next_run!) }))
  }
  const recover = async () => {
    const interrupted = await runner.recoverInterrupted()
    if (interrupted > 0) logger.warn('task runs interrupted by a stopped or lost instance were marked failed', { runs: interrupted })
  }
  /**
   * Several instances: a new leader recovers the runs of instances that are gone and rebuilds its jobs from the stored
   * rows as at boot (a slot missed while no one led runs once, as a catch-up); while leading it follows task changes
   * made elsewhere. Steps never overlap.
   */
  let following: Promise<void> = Promise.resolve()
  let loadedRevision = revision.value
  const follow = (work: () => Promise<void>) => {
    following = following.then(work).catch((error) => logger.error('scheduler could not follow the stored tasks', errorFields(error)))
    return following
  }
  const takeOver = () =>
    follow(async () => {
      if (!leadership.isLeader || scheduler.stopped) return
      await recover()
      loadedRevision = revision.value
      scheduler.load(await storedJobs())
      scheduler.tick()
    })
  const followChanges = () =>
    follow(async () => {
      await revision.sync?.()
      if (!leadership.isLeader || scheduler.stopped || revision.value === loadedRevision) return
      loadedRevision = revision.value
      scheduler.reload(await storedJobs())
      scheduler.tick()
    })
  let followTimer: ReturnType<typeof setInterval> | null = null

  const module: TasksModule = {
    routes: tasksRoutes(guard, service),
    service,
    schedulerState: () => scheduler.state(),
    scheduler: {
      tick: () => scheduler.tick(),
      async runDue() {
        const started = scheduler.tick()
        await scheduler.idle()
        return started
      },
      idle: () => scheduler.idle(),
      nextRunOf: (taskId) => scheduler.nextRunOf(taskId),
    },
    /** Boot: fail what a crash interrupted, rebuild one job per scheduled task from the database, run missed slots once. */
    async start() {
      await recover()
      loadedRevision = revision.value
      scheduler.load(await storedJobs())
      scheduler.start()
      logger.info('scheduler started', { jobs: scheduler.state().jobs, leader: leadership.isLeader })
      if (cluster.revisions.stored) {
        leadership.onChange((leader) => {
          if (leader) void takeOver()
        })
        followTimer = setInterval(() => void followChanges(), FOLLOW_TASKS_MS)
        followTimer.unref()
      }
    },
    /** Shutdown: no new runs; runs in flight get a grace period, then their model calls are aborted and recorded as failed. */
    async stop() {
      if (followTimer) clearInterval(followTimer)
      const stopping = scheduler.stop()
      // Half the shutdown grace: the other half is for the requests still being served.
      const graceOver = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), config.shutdownGraceMs / 2).unref())
      if ((await Promise.race([stopping.then(() => 'done' as const), graceOver])) === 'timeout') {
        logger.warn('task runs still in flight at shutdown; aborting their model calls')
        runner.abort()
        await stopping
      }
    },
  }
  return module
}
