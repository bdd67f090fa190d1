// Periodic in-process housekeeping (retention pruning, checkpoints): started with the server, stopped before the database closes.
import { errorFields, type Logger } from './log.ts'

export interface BackgroundJobs {
  /** Runs `job` every `intervalMs` (first run after one interval); a run never overlaps the previous one. */
  every(name: string, intervalMs: number, job: () => Promise<void> | void): void
}

export class JobRunner implements BackgroundJobs {
  readonly #logger: Logger
  readonly #timers: ReturnType<typeof setInterval>[] = []
  readonly #running = new Set<Promise<void>>()
  #stopped = false

  constructor(logger: Logger) {
    this.#logger = logger
  }

  every(name: string, intervalMs: number, job: () => Promise<void> | void): void {
    let busy = false
    const timer = setInterval(() => {
      if (busy || this.#stopped) return
      busy = true
      const run = (async () => {
        try {
          await job()
        } catch (error) {
          this.#logger.error('background job failed', { job: name, ...errorFields(error) })
        } finally {
          busy = false
        }
      })()
      this.#running.add(run)
      void run.finally(() => this.#running.delete(run))
    }, intervalMs)
    timer.unref()
    this.#timers.push(timer)
  }

  /** Cancels the timers and waits for runs in progress, so none touches a closed database. */
  async stop(): Promise<void> {
    this.#stopped = true
    for (const timer of this.#timers) clearInterval(timer)
    await Promise.all(this.#running)
  }
}
