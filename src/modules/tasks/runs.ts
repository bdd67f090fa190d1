// Executing a run: record it and its prompt in one transaction, ask the model, then record the reply (with the model
// and its token usage) or a readable error. Threads are the threads module's: runs write through its service.
import { isUniqueViolation } from '../../platform/db/unique-violation.ts'
import type { Kysely } from 'kysely'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { RunTrigger, TasksTable } from '../../platform/db/tables/tasks.ts'
import { newId } from '../../platform/ids.ts'
import { errorFields, type Logger } from '../../platform/log.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import { ProviderError, SHUTDOWN_REASON, type ChatMessage, type ChatTurn } from '../../llm/provider.ts'
import type { ModelProviders } from '../../llm/registry.ts'
import type { ThreadsService } from '../threads/index.ts'
import { toRunRecord, type RunRecord } from './records.ts'
import type { FireTrigger, SlotHandler } from './scheduler.ts'

/** What the tasks module needs from agents, handed in by the server so this module never imports the agents module. */
export interface AgentDirectory {
  /** The live version's instructions; null when the agent does not exist or has no live version. */
  liveInstructions(agentId: string): Promise<string | null>
  visibleTo(agentId: string, principal: Principal): Promise<boolean>
}

export interface TaskRunnerOptions {
  db: Kysely<Database>
  clock: Clock
  logger: Logger
  providers: ModelProviders
  threads: ThreadsService
  agents: AgentDirectory | null
  /** At most this many model calls at once; further runs wait their turn (already recorded as running). */
  maxConcurrentCalls?: number
  /** This process's instance id, stamped on every run it starts. */
  instanceId?: string
  /**
   * Which of the given instance ids are alive now; null when none of them can be (one process owns the database), so
   * every run left "running" was interrupted.
   */
  liveInstances?: (ids: readonly string[]) => Promise<Set<string> | null>
}

export interface StartedRun {
  run: RunRecord
  /** The task as read in the transaction that started the run. */
  task: TasksTable
  /** Earlier messages of an `append` thread, oldest first. */
  history: ChatMessage[]
}

/** A run that cannot reach a model for a reason the user can fix; its message becomes the run's `error`. */
class RunProblem extends Error {}

/** An `append` thread's context is capped so a long-lived task does not send an ever-growing history. */
const HISTORY_LIMIT = 50
/** A manual start found a run of the task in flight (the database allows one `running` run per task). */
export class RunInFlight extends Error {
  constructor() {
    super('a run of this task is already in flight')
  }
}

const INTERRUPTED_BY_RESTART = 'Interrupted: the server stopped before the run finished'
const INTERNAL_FAILURE = 'Internal error while running the task; the server log has the details'

/** A counting semaphore: a thousand tasks due in the same second must not open a thousand model connections. */
class CallSlots {
  #free: number
  readonly #waiting: (() => void)[] = []
  constructor(size: number) {
    this.#free = size
  }
  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--
      return
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve))
  }
  release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#free++
  }
}

export class TaskRunner implements SlotHandler {
  readonly #o: TaskRunnerOptions
  readonly #slots: CallSlots
  readonly #shutdown = new AbortController()

  constructor(options: TaskRunnerOptions) {
    this.#o = options
    this.#slots = new CallSlots(options.maxConcurrentCalls ?? 64)
  }

  /**
   * Runs a crash or kill left "running" can never finish; they are marked failed, and so are their tasks. At boot, and
   * with several instances on one database whenever this one becomes the scheduler leader: then only the runs of
   * instances that are gone (their runs cannot finish), never those still going on a live instance.
   */
  async recoverInterrupted(): Promise<number> {
    const { db, clock, liveInstances } = this.#o
    const running = await db.selectFrom('task_runs').select(['id', 'task_id', 'instance_id']).where('status', '=', 'running').execute()
    if (running.length === 0) return 0
    const ids = [...new Set(running.flatMap((run) => (run.instance_id === null ? [] : [run.instance_id])))]
    const live = (await liveInstances?.(ids)) ?? null
    const stale = running.filter((run) => run.instance_id === null || !live?.has(run.instance_id))
    if (stale.length === 0) return 0
    return db.transaction().execute(async (trx) => {
      const now = isoTime(clock.now())
      const runIds = stale.map((run) => run.id)
      // Still running: a run that finished meanwhile keeps its outcome.
      await trx
        .updateTable('task_runs')
        .set({ status: 'failed', finished_at: now, error: INTERRUPTED_BY_RESTART })
        .where('id', 'in', runIds)
        .where('status', '=', 'running')
        .execute()
      const taskIds = [...new Set(stale.map((r) => r.task_id))]
      await trx.updateTable('tasks').set({ last_run_status: 'failed' }).where('id', 'in', taskIds).where('last_run_status', '=', 'running').execute()
      return stale.length
    })
  }

  /**
   * Records a run as started: the thread (new, or the task's own for `append`), the prompt as its user message, the run
   * row and the task's last_run_* fields, plus the task's next_run for scheduled runs, all in one transaction.
   * Returns null when a scheduled slot is stale (the task changed or went away since the job was armed) or already ran.
   */
  async begin(taskId: string, trigger: RunTrigger, slot: number | null, next: number | null = null): Promise<StartedRun | null> {
    const { db, clock } = this.#o
    const now = isoTime(clock.now())
    try {
      return await db.transaction().execute(async (trx) => {
        const task = await trx.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirst()
        if (!task) return null
        if (slot !== null && (task.state !== 'enabled' || task.next_run !== isoTime(slot))) return null

        // An append task keeps its thread; one its owner deleted is replaced by a new one (and the task points there).
        const { threads } = this.#o
        const kept = task.thread_policy === 'append' && task.thread_id ? await threads.find(task.thread_id, trx) : null
        const history = kept ? await threads.history(kept.id, HISTORY_LIMIT, trx) : []
        const threadId = kept?.id ?? (await threads.create({ owner_id: task.creator_id, task_id: task.id, title: task.name }, trx)).id
        await threads.append(threadId, [{ role: 'user', content: task.prompt }], trx)

        const run = {
          id: newId(),
          task_id: task.id,
          status: 'running' as const,
          trigger,
          scheduled_for: slot === null ? null : isoTime(slot),
          thread_id: threadId,
          started_at: now,
          finished_at: null,
          error: null,
          instance_id: this.#o.instanceId ?? null,
        }
        await trx.insertInto('task_runs').values(run).execute()
        const updated = await trx
          .updateTable('tasks')
          .set({
            last_run_at: now,
            last_run_status: 'running',
            last_run_thread_id: threadId,
            ...(task.thread_policy === 'append' && { thread_id: threadId }),
            ...(slot !== null && { next_run: next === null ? null : isoTime(next) }),
          })
          .where('id', '=', task.id)
          .returningAll()
          .executeTakeFirstOrThrow()
        return { run: toRunRecord(run), task: updated, history }
      })
    } catch (error) {
      // A run collides on (task_id, scheduled_for) (another start took this slot) or on the one `running` run a task
      // may have (a run of it is in flight, started here or on another instance).
      if (!isUniqueViolation(error)) throw error
      if (slot === null) throw new RunInFlight()
      this.#o.logger.warn('scheduled slot not run: it already ran, or a run of this task is still going', { task_id: taskId, slot: isoTime(slot) })
      // Either way the slot is spent (a no-op if the run that took it moved next_run already).
      await this.skip(taskId, slot, next)
      return null
    }
  }

  /** Asks the model and records the outcome. Never rejects: a failure of any kind becomes the run's `error`. */
  async execute({ run, task, history }: StartedRun): Promise<void> {
    let reply: ChatTurn | null = null
    let error: string | null = null
    try {
      reply = await this.#ask(task, history)
    } catch (cause) {
      if (cause instanceof ProviderError || cause instanceof RunProblem) error = cause.message
      else {
        this.#o.logger.error('task run failed', { task_id: task.id, run_id: run.id, ...errorFields(cause) })
        error = INTERNAL_FAILURE
      }
    }
    try {
      await this.#finish(run, reply, error)
    } catch (cause) {
      this.#o.logger.error('could not record the end of a task run', { task_id: task.id, run_id: run.id, ...errorFields(cause) })
    }
  }

  async #ask(task: TasksTable, history: ChatMessage[]): Promise<ChatTurn> {
    const { providers, agents } = this.#o
    const providerName = task.chat_provider ?? providers.default.provider
    const model = task.chat_model ?? providers.default.model
    const provider = providers.isConfigured(providerName) ? providers.get(providerName) : null
    if (!provider) throw new RunProblem(`Model provider "${providerName}" is not configured on this server`)
    let system: string | null = null
    if (task.agent_id && agents) {
      system = await agents.liveInstructions(task.agent_id)
      if (system === null) throw new RunProblem(`Agent ${task.agent_id} no longer exists or has no live version`)
    }
    await this.#slots.acquire()
    try {
      if (this.#shutdown.signal.aborted) throw new RunProblem(`Interrupted: ${SHUTDOWN_REASON}`)
      return await provider.complete({ model, system, messages: [...history, { role: 'user', content: task.prompt }], signal: this.#shutdown.signal })
    } finally {
      this.#slots.release()
    }
  }

  async #finish(run: RunRecord, reply: ChatTurn | null, error: string | null): Promise<void> {
    const { db, clock, threads } = this.#o
    const status = error === null ? ('succeeded' as const) : ('failed' as const)
    await db.transaction().execute(async (trx) => {
      // A thread deleted while the run was in flight stays deleted: the reply goes with it, the run still ends.
      if (reply !== null && (await threads.find(run.thread_id, trx))) {
        const model = { provider: reply.provider, model: reply.model }
        await threads.append(run.thread_id, [{ role: 'assistant', content: reply.text, model, usage: reply.usage }], trx)
      }
      // Read after the reply is stamped, so a run's messages all fall within its started_at..finished_at.
      const now = isoTime(clock.now())
      await trx.updateTable('task_runs').set({ status, finished_at: now, error }).where('id', '=', run.id).execute()
      // Runs of one task never overlap, so the run that ends is the task's latest.
      await trx.updateTable('tasks').set({ last_run_status: status }).where('id', '=', run.task_id).execute()
    })
  }

  async fire(taskId: string, slot: number, next: number | null, trigger: FireTrigger): Promise<void> {
    const started = await this.begin(taskId, trigger, slot, next)
    if (started) await this.execute(started)
  }

  async skip(taskId: string, slot: number, next: number | null): Promise<void> {
    await this.#o.db
      .updateTable('tasks')
      .set({ next_run: next === null ? null : isoTime(next) })
      .where('id', '=', taskId)
      .where('next_run', '=', isoTime(slot))
      .execute()
  }

  /** Shutdown: model calls in flight end now, and their runs fail with a sentence saying why. */
  abort(): void {
    this.#shutdown.abort()
  }
}
