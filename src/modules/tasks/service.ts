// Tasks: create, read, list, update, delete, run now and runs (their threads are the threads module's). Who may see (creator, admins, public) and who may edit (creator, admins).
import type { Static } from '@sinclair/typebox'
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { TasksTable, TaskState } from '../../platform/db/tables/tasks.ts'
import { conflict, forbidden, type InputIssue, invalidInput, notFound } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { ModelProviders } from '../../llm/registry.ts'
import type { ThreadsService } from '../threads/index.ts'
import { resolvePage, type Page } from '../../platform/http/paging.ts'
import { type CreateTaskBody, RUN_PAGING, TASK_PAGING, type UpdateTaskBody } from './schema.ts'
import { scheduleOf, toRunRecord, toTaskRecord, type RunRecord, type TaskRecord } from './records.ts'
import { type AgentDirectory, RunInFlight, type TaskRunner } from './runs.ts'
import { checkSchedule, nextRunAt, type Schedule } from './schedule.ts'
import type { Revision } from '../../platform/revision.ts'
import type { Scheduler } from './scheduler.ts'

export const TASK_NOT_FOUND = 'Task not found'
export const NOT_TASK_OWNER = 'Only the creator of this task or an admin may change it'
export const TASK_RUNNING = 'Task is already running'

/** What a task update takes: the request schema is the definition (every field optional). */
export type TaskInput = Static<typeof UpdateTaskBody>

/** What creating a task takes: name and prompt are required. */
export type NewTask = Static<typeof CreateTaskBody>

export interface TasksServiceOptions {
  db: Kysely<Database>
  clock: Clock
  providers: ModelProviders
  threads: ThreadsService
  agents: AgentDirectory | null
  scheduler: Scheduler
  runner: TaskRunner
  /** Moved by every task write, so the scheduler leader (maybe another instance) follows the change. */
  revision?: Revision
  /** The shortest gap between a cron task's runs (config.taskMinIntervalS). */
  minIntervalS: number
}

/** Tasks one person may own: each is a scheduled model call, and lists and the scheduler hold every one. */
export const MAX_TASKS_PER_USER = 100

const DEFAULT_SCHEDULE: Schedule = { frequency: 'manual', hour: null, day: null, timezone: 'UTC', cron: null }

const isAdmin = (principal: Principal) => principal.role === 'admin'

export class TasksService {
  readonly #o: TasksServiceOptions

  constructor(options: TasksServiceOptions) {
    this.#o = options
  }

  /** null for manual and disabled tasks (docs/api.md "Tasks"), else the first slot after now. */
  #nextRun(state: TaskState, schedule: Schedule): number | null {
    if (state !== 'enabled' || schedule.frequency === 'manual') return null
    return nextRunAt(schedule, this.#o.clock.now())
  }

  /**
   * Checks everything a schema cannot (schedule fields, provider, agent, thread) and reports every problem at once.
   * `before` is the stored task on update: unchanged references are not re-checked, so an edit of the name never
   * fails because an agent was unpublished since.
   */
  async #check(principal: Principal, creatorId: string, input: TaskInput, before: TasksTable | null) {
    const issues: InputIssue[] = []
    const stored = before ? scheduleOf(before) : DEFAULT_SCHEDULE
    const checked =
      input.schedule === undefined && before
        ? stored
        : checkSchedule({ ...stored, ...input.schedule }, this.#o.clock.now(), ['schedule'], issues, this.#o.minIntervalS)

    let chat: { provider: string | null; model: string | null } | undefined
    if (input.chat_model === null) chat = { provider: null, model: null }
    else if (input.chat_model) {
      const { provider, model } = input.chat_model
      const { providers } = this.#o
      if (!providers.isConfigured(provider)) {
        issues.push({
          loc: ['chat_model', 'provider'],
          msg: `Model provider "${provider}" is not configured on this server (configured: ${providers.configuredNames().join(', ')})`,
          type: 'value_error',
          input: provider,
        })
      } else {
        const resolved = model ?? providers.defaultModelFor(provider)
        if (resolved === null)
          issues.push({ loc: ['chat_model', 'model'], msg: `Field required: provider "${provider}" has no default model on this server`, type: 'missing' })
        chat = { provider, model: resolved }
      }
    }

    const { agents } = this.#o
    if (agents && input.agent_id && input.agent_id !== before?.agent_id && !(await agents.visibleTo(input.agent_id, principal))) {
      issues.push({ loc: ['agent_id'], msg: 'Unknown agent', type: 'value_error', input: input.agent_id })
    }

    if (input.thread_id && input.thread_id !== before?.thread_id) {
      const thread = await this.#o.threads.find(input.thread_id)
      if (thread?.owner_id !== creatorId)
        issues.push({ loc: ['thread_id'], msg: "Unknown thread: it must be one of the task creator's threads", type: 'value_error', input: input.thread_id })
    }
    if (issues.length > 0) throw invalidInput(...issues)
    return { schedule: checked, chat }
  }

  async create(principal: Principal, input: NewTask): Promise<TaskRecord> {
    const { schedule, chat } = await this.#check(principal, principal.userId, input, null)
    const owned = await this.#o.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('creator_id', '=', principal.userId)
      .executeTakeFirstOrThrow()
    if (Number(owned.n) >= MAX_TASKS_PER_USER)
      throw conflict(`You have ${MAX_TASKS_PER_USER} tasks, the most one person may have: delete one you no longer need first`)
    const state = input.state ?? 'enabled'
    const nextRun = this.#nextRun(state, schedule)
    const now = isoTime(this.#o.clock.now())
    const row: TasksTable = {
      id: newId(),
      name: input.name,
      prompt: input.prompt,
      creator_id: principal.userId,
      created_by: principal.email,
      agent_id: input.agent_id ?? null,
      chat_provider: chat?.provider ?? null,
      chat_model: chat?.model ?? null,
      mentions: JSON.stringify(input.mentions ?? []),
      visibility: input.visibility ?? 'private',
      frequency: schedule.frequency,
      schedule_hour: schedule.hour,
      schedule_day: schedule.day,
      timezone: schedule.timezone,
      cron: schedule.cron,
      state,
      thread_policy: input.thread_policy ?? 'new_each_run',
      thread_id: input.thread_id ?? null,
      next_run: nextRun === null ? null : isoTime(nextRun),
      last_run_at: null,
      last_run_status: null,
      last_run_thread_id: null,
      created_at: now,
      updated_at: now,
    }
    await this.#o.db.insertInto('tasks').values(row).execute()
    await this.#o.revision?.changed(this.#o.db)
    this.#o.scheduler.upsert(row.id, schedule, nextRun)
    return toTaskRecord(row)
  }

  /** A private task is visible to its creator and admins; to anyone else it does not exist (404, not 403). */
  async #visible(principal: Principal, id: string): Promise<TasksTable> {
    const task = await this.#o.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst()
    if (!task || (task.visibility === 'private' && task.creator_id !== principal.userId && !isAdmin(principal))) throw notFound(TASK_NOT_FOUND)
    return task
  }

  /** Someone who can see a public task but did not create it gets 403 on edits. */
  async #editable(principal: Principal, id: string): Promise<TasksTable> {
    const task = await this.#visible(principal, id)
    if (task.creator_id !== principal.userId && !isAdmin(principal)) throw forbidden(NOT_TASK_OWNER)
    return task
  }

  async get(principal: Principal, id: string): Promise<TaskRecord> {
    return toTaskRecord(await this.#visible(principal, id))
  }

  /** Mine plus public ones, newest first; `all` (admins) adds everyone's private tasks. */
  async list(principal: Principal, { all = false, ...page }: Page & { all?: boolean }): Promise<TaskRecord[]> {
    const { limit, offset } = resolvePage(page, TASK_PAGING)
    if (all && !isAdmin(principal)) throw forbidden('Only admins may list every task')
    let query = this.#o.db.selectFrom('tasks').selectAll()
    if (!all) query = query.where((eb) => eb.or([eb('creator_id', '=', principal.userId), eb('visibility', '=', 'public')]))
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute()
    return rows.map(toTaskRecord)
  }

  /** A field left out keeps its value; schedule fields merge one by one; null clears agent_id, chat_model, thread_id. */
  async update(principal: Principal, id: string, changes: TaskInput): Promise<TaskRecord> {
    const before = await this.#editable(principal, id)
    const { schedule, chat } = await this.#check(principal, before.creator_id, changes, before)
    const state = changes.state ?? before.state
    // Only a change of schedule or state moves next_run: renaming a task must not skip or repeat its next slot.
    const reschedule = changes.schedule !== undefined || changes.state !== undefined
    const nextRun = reschedule ? this.#nextRun(state, schedule) : before.next_run === null ? null : Date.parse(before.next_run)
    const updated = await this.#o.db
      .updateTable('tasks')
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.prompt !== undefined && { prompt: changes.prompt }),
        ...(changes.agent_id !== undefined && { agent_id: changes.agent_id }),
        ...(chat !== undefined && { chat_provider: chat.provider, chat_model: chat.model }),
        ...(changes.mentions !== undefined && { mentions: JSON.stringify(changes.mentions) }),
        ...(changes.visibility !== undefined && { visibility: changes.visibility }),
        ...(changes.thread_policy !== undefined && { thread_policy: changes.thread_policy }),
        ...(changes.thread_id !== undefined && { thread_id: changes.thread_id }),
        frequency: schedule.frequency,
        schedule_hour: schedule.hour,
        schedule_day: schedule.day,
        timezone: schedule.timezone,
        cron: schedule.cron,
        state,
        next_run: nextRun === null ? null : isoTime(nextRun),
        updated_at: isoTime(this.#o.clock.now()),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    await this.#o.revision?.changed(this.#o.db)
    this.#o.scheduler.upsert(id, schedule, nextRun)
    return toTaskRecord(updated)
  }

  /** Runs go with the task; threads stay with their owner. A run in flight finishes, and its writes find no task. */
  async delete(principal: Principal, id: string): Promise<void> {
    await this.#editable(principal, id)
    await this.#o.db.deleteFrom('tasks').where('id', '=', id).execute()
    await this.#o.revision?.changed(this.#o.db)
    this.#o.scheduler.remove(id)
  }

  /**
   * Starts a run now, disabled tasks included (disabling stops the schedule, not the button), and answers with the run
   * as started; the model call continues in the background. A run already in flight is 409.
   */
  async runNow(principal: Principal, id: string): Promise<RunRecord> {
    await this.#editable(principal, id)
    const { scheduler, runner } = this.#o
    if (!scheduler.claim(id)) throw conflict(TASK_RUNNING)
    let started
    try {
      started = await runner.begin(id, 'manual', null)
    } catch (error) {
      scheduler.release(id)
      // The in-memory claim covers this instance; the database's one-running-run index covers the others.
      if (error instanceof RunInFlight) throw conflict(TASK_RUNNING)
      throw error
    }
    if (!started) {
      scheduler.release(id)
      throw notFound(TASK_NOT_FOUND)
    }
    scheduler.track(id, runner.execute(started))
    return started.run
  }

  async listRuns(principal: Principal, id: string, page: Page): Promise<RunRecord[]> {
    const { limit, offset } = resolvePage(page, RUN_PAGING)
    await this.#visible(principal, id)
    const rows = await this.#o.db
      .selectFrom('task_runs')
      .selectAll()
      .where('task_id', '=', id)
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute()
    return rows.map(toRunRecord)
  }
}
