// The in-process scheduler: one job per scheduled task, one timer armed to the earliest next run (read from the injected
// clock), and the per-task in-flight guard. With several instances on one database every instance keeps its jobs, but
// only the leader dispatches (platform/cluster/leadership.ts); a slot still runs once because starting a run inserts
// its (task, slot) row, which is unique.
import type { Clock } from '../../platform/clock.ts'
import { errorFields, type Logger } from '../../platform/log.ts'
import type { SchedulerState } from '../health/index.ts'
import { nextRunAt, type Schedule } from './schedule.ts'

/**
 * The timer never sleeps longer than this: setTimeout cannot wait more than ~24.8 days, and a periodic look at the
 * clock also notices wall-clock jumps (suspend, NTP steps) that a long timer would sleep through.
 */
const MAX_SLEEP_MS = 60_000

export type FireTrigger = 'schedule' | 'catch_up'

/** What the scheduler asks of the run machinery. */
export interface SlotHandler {
  /**
   * Runs the task for `slot` and moves its stored next_run to `next` (null: no further run) in the same transaction that
   * records the run, so a crash can never lose the move and replay the slot. Resolves when the run finished; never rejects.
   */
  fire(taskId: string, slot: number, next: number | null, trigger: FireTrigger): Promise<void>
  /** The slot came while the previous run was still going: only next_run moves, nothing runs. */
  skip(taskId: string, slot: number, next: number | null): Promise<void>
}

interface Job {
  schedule: Schedule
  nextRun: number
  /** The stored next_run was already past at boot: the one run that catches up on the slots missed while down. */
  catchUp: boolean
}

export class Scheduler {
  readonly #clock: Clock
  readonly #logger: Logger
  readonly #handler: SlotHandler
  readonly #jobs = new Map<string, Job>()
  /** Tasks with a run in flight, scheduled or manual: the guard that keeps one task from running twice at once. */
  readonly #inFlight = new Set<string>()
  readonly #pending = new Set<Promise<void>>()
  #timer: ReturnType<typeof setTimeout> | null = null
  #running = false
  readonly #isLeader: () => boolean

  /** `isLeader`: whether this instance dispatches now (always, with one instance). */
  constructor(clock: Clock, logger: Logger, handler: SlotHandler, isLeader: () => boolean = () => true) {
    this.#clock = clock
    this.#logger = logger
    this.#handler = handler
    this.#isLeader = isLeader
  }

  /**
   * Boot (and taking over as leader): the jobs come from the database's stored next_run values; a past one is a
   * missed slot and runs once.
   */
  load(jobs: Iterable<{ taskId: string; schedule: Schedule; nextRun: number }>): void {
    const now = this.#clock.now()
    this.#jobs.clear()
    for (const { taskId, schedule, nextRun } of jobs) this.#jobs.set(taskId, { schedule, nextRun, catchUp: nextRun <= now })
    this.#arm()
  }

  /**
   * Tasks changed on another instance: the jobs follow the stored rows. A job whose next run did not move keeps its
   * state; a new or moved one is scheduled as an upsert would.
   */
  reload(jobs: Iterable<{ taskId: string; schedule: Schedule; nextRun: number }>): void {
    const previous = new Map(this.#jobs)
    this.#jobs.clear()
    for (const { taskId, schedule, nextRun } of jobs) {
      const kept = previous.get(taskId)
      this.#jobs.set(taskId, { schedule, nextRun, catchUp: kept?.nextRun === nextRun ? kept.catchUp : false })
    }
    this.#arm()
  }

  /** Starts the timer and runs whatever is due now (the catch-up runs). */
  start(): void {
    this.#running = true
    this.tick()
  }

  /** A task was created or changed: its job follows at once. `nextRun` null removes it (manual, disabled, never fires). */
  upsert(taskId: string, schedule: Schedule, nextRun: number | null): void {
    if (nextRun === null) this.#jobs.delete(taskId)
    else this.#jobs.set(taskId, { schedule, nextRun, catchUp: false })
    this.#arm()
  }

  remove(taskId: string): void {
    this.#jobs.delete(taskId)
    this.#arm()
  }

  /** Reserves the task for one run; false when a run of it is already in flight. */
  claim(taskId: string): boolean {
    if (this.#inFlight.has(taskId)) return false
    this.#inFlight.add(taskId)
    return true
  }

  /** Gives back a claim that started no run. */
  release(taskId: string): void {
    this.#inFlight.delete(taskId)
  }

  /** Keeps a claimed task's run in view until it settles (for idle() and stop()), then frees the task. */
  track(taskId: string, run: Promise<void>): void {
    this.#watch(taskId, run, () => this.#inFlight.delete(taskId))
  }

  #watch(taskId: string, work: Promise<void>, after?: () => void): void {
    const settled: Promise<void> = work
      .catch((error) => this.#logger.error('task run failed unexpectedly', { task_id: taskId, ...errorFields(error) }))
      .finally(() => {
        after?.()
        this.#pending.delete(settled)
      })
    this.#pending.add(settled)
  }

  isRunning(taskId: string): boolean {
    return this.#inFlight.has(taskId)
  }

  /**
   * Starts every job whose next run is due by the clock and returns how many started. The decision is synchronous
   * (a job's next run moves before any await), so a timer tick and a test's tick can never start the same slot twice.
   * The next run is computed from now, not from the slot: slots missed while down collapse into this one run.
   */
  tick(): number {
    if (!this.#running || !this.#isLeader()) return 0
    const now = this.#clock.now()
    let started = 0
    for (const [taskId, job] of this.#jobs) {
      if (job.nextRun > now) continue
      const slot = job.nextRun
      const trigger: FireTrigger = job.catchUp ? 'catch_up' : 'schedule'
      let next: number | null = null
      try {
        next = nextRunAt(job.schedule, now)
      } catch (error) {
        this.#logger.error('could not compute the next run; the task is unscheduled', { task_id: taskId, ...errorFields(error) })
      }
      if (next === null) this.#jobs.delete(taskId)
      else Object.assign(job, { nextRun: next, catchUp: false })

      if (!this.claim(taskId)) {
        this.#logger.warn('scheduled run skipped: the previous run of this task is still going', { task_id: taskId, slot: new Date(slot).toISOString() })
        this.#watch(taskId, this.#handler.skip(taskId, slot, next))
        continue
      }
      this.track(taskId, this.#handler.fire(taskId, slot, next, trigger))
      started++
    }
    this.#arm()
    return started
  }

  /** Resolves once no run is in flight (tests, the benchmark, shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending)
  }

  /** One timer for all jobs, armed to the earliest next run; re-armed on every change and after every tick. */
  #arm(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
    if (!this.#running) return
    let earliest = Infinity
    for (const job of this.#jobs.values()) if (job.nextRun < earliest) earliest = job.nextRun
    if (earliest === Infinity) return
    const delay = Math.min(Math.max(earliest - this.#clock.now(), 0), MAX_SLEEP_MS)
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.tick()
    }, delay)
    // The server keeps the process alive; a pending schedule must not (tests, `agentbox backup`).
    this.#timer.unref()
  }

  /** No new runs start; resolves when the ones in flight have finished (the caller aborts them first if it cannot wait). */
  async stop(): Promise<void> {
    this.#running = false
    this.#arm()
    await this.idle()
  }

  get stopped(): boolean {
    return !this.#running
  }

  state(): SchedulerState {
    return { status: this.#running ? 'pass' : 'fail', jobs: this.#jobs.size, leader: this.#isLeader() }
  }

  /** The job's next run in epoch ms, or undefined when the task has no job (tests). */
  nextRunOf(taskId: string): number | undefined {
    return this.#jobs.get(taskId)?.nextRun
  }
}
