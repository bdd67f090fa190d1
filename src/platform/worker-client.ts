// The server's side of a worker thread, for every worker it starts (the JSON, insights, import, git and checkpoint
// workers): where the worker's file is, from source and inside the compiled binary; the worker started when first
// needed and never keeping the process alive while it waits; jobs answered by id; a worker that fails failing every job
// it held and replaced by the next job; a worker asked to end itself, never terminated. Each client keeps its own
// message shapes and its own policy (when to retire the worker, one job at a time or many).

const COMPILED_ROOT = '/$bunfs/root/'

/**
 * The URL a worker is started from. `entry` is the worker's file from the repository root (`src/…/x-worker.ts`): from
 * source it is found from the repository, inside the compiled binary at that path, where scripts/build.ts embeds it as
 * an extra entry point (WORKER_ENTRIES). `moduleUrl` says which of the two this is (this module's own URL).
 */
export function workerUrl(entry: string, moduleUrl: string = import.meta.url): string {
  return moduleUrl.includes('/$bunfs/') ? `${COMPILED_ROOT}${entry}` : new URL(`../../${entry}`, moduleUrl).href
}

export interface WorkerClientOptions<ToWorker, FromWorker> {
  /** The worker's file from the repository root: `src/…/x-worker.ts`. */
  readonly entry: string
  /** The worker in failures: "<name> failed: …", "<name> exited". */
  readonly name: string
  /** What asks the worker to end itself. A worker that reads its messages in order answers what it holds first. */
  readonly closeMessage: ToWorker
  /** Every message the worker posts, its answers and anything else it says. An answer settles its job (`settle`). */
  readonly onMessage: (message: FromWorker) => void
  /** Retired after this long with no job waiting, so that an idle server does not carry it; absent: kept until `retire`. */
  readonly idleMs?: number
  /** Bun's smaller heap, for a worker that holds little. */
  readonly smol?: boolean
  /** A worker failed (after it is let go, before its jobs are rejected with the same reason). Once a worker. */
  readonly onFailure?: (reason: string) => void
}

/** A job waiting for its answer, with what its client keeps beside it (`Own`). */
export type WaitingJob<Result, Own extends object = object> = Own & {
  readonly resolve: (result: Result) => void
  readonly reject: (error: Error) => void
}

interface Running {
  readonly worker: Worker
  /** Asked to end itself (retired): its end is not a failure. */
  asked: boolean
  failed: boolean
  readonly exited: Promise<void>
}

type Job<Result, Own extends object> = WaitingJob<Result, Own> & { readonly running: Running }

export class WorkerClient<ToWorker, FromWorker, Result, Own extends object = object> {
  readonly #options: WorkerClientOptions<ToWorker, FromWorker>
  readonly #url: string
  readonly #jobs = new Map<number, Job<Result, Own>>()
  #running: Running | null = null
  #nextId = 0
  #idleTimer: ReturnType<typeof setTimeout> | undefined

  constructor(options: WorkerClientOptions<ToWorker, FromWorker>) {
    this.#options = options
    this.#url = workerUrl(options.entry)
  }

  /**
   * Posts a job to the worker (started if none runs) and resolves with what its answer settles. `message` makes the
   * message from the job's id; `transfer` is moved, not copied; `own` is kept with the job (`waiting`, `settle`).
   */
  submit(message: (id: number) => ToWorker, transfer: Transferable[] = [], own?: Own): Promise<Result> {
    clearTimeout(this.#idleTimer)
    const id = ++this.#nextId
    return new Promise<Result>((resolve, reject) => {
      const running = this.#current()
      this.#jobs.set(id, { ...(own as Own), resolve, reject, running })
      try {
        running.worker.postMessage(message(id), transfer)
      } catch (error) {
        this.#jobs.delete(id)
        throw error
      }
    })
  }

  /** The job `id` if it still waits, left waiting (a job the worker asks something for). */
  waiting(id: number): WaitingJob<Result, Own> | undefined {
    return this.#jobs.get(id)
  }

  /**
   * The job `id` taken out to be resolved or rejected by its client; undefined when it no longer waits (its worker
   * failed). The last job answered starts the idle time.
   */
  settle(id: number): WaitingJob<Result, Own> | undefined {
    const job = this.#jobs.get(id)
    this.#jobs.delete(id)
    if (this.#jobs.size === 0 && this.#running && this.#options.idleMs !== undefined) {
      clearTimeout(this.#idleTimer)
      this.#idleTimer = setTimeout(() => this.retire(), this.#options.idleMs)
      this.#idleTimer.unref?.()
    }
    return job
  }

  /** A message that is not a job, to the worker (started if none runs). */
  post(message: ToWorker, transfer: Transferable[] = []): void {
    this.#current().worker.postMessage(message, transfer)
  }

  /** A message to the worker that holds job `id` (an answer to its question); dropped if the job no longer waits. */
  postToJob(id: number, message: ToWorker, transfer: Transferable[] = []): void {
    this.#jobs.get(id)?.running.worker.postMessage(message, transfer)
  }

  /** Rejects every waiting job with `error` (a client closing for good). */
  abandon(error: Error): void {
    const jobs = [...this.#jobs.values()]
    this.#jobs.clear()
    for (const job of jobs) job.reject(error)
  }

  /**
   * Asks the worker to end itself; the next job starts another. Its waiting jobs are still answered if it answers them
   * before it reads the close. Resolves when it has ended. `holdProcess`: the process waits for that end (a last
   * piece of work at shutdown), where a waiting worker otherwise never keeps it alive.
   *
   * Asked, not terminated: Worker.terminate() blocks the calling thread while the worker's heap is torn down (~130 ms
   * after a large import, measured), which would stall every request in flight.
   */
  retire(options: { readonly holdProcess?: boolean } = {}): Promise<void> {
    clearTimeout(this.#idleTimer)
    const running = this.#running
    if (!running) return Promise.resolve()
    this.#running = null
    running.asked = true
    if (options.holdProcess) (running.worker as Worker & { ref(): void }).ref()
    running.worker.postMessage(this.#options.closeMessage)
    return running.exited
  }

  #current(): Running {
    this.#running ??= this.#start()
    return this.#running
  }

  #start(): Running {
    const worker = new Worker(this.#url, (this.#options.smol ? { smol: true } : {}) as WorkerOptions)
    let exit: () => void = () => {}
    const running: Running = { worker, asked: false, failed: false, exited: new Promise<void>((resolve) => (exit = resolve)) }
    const { name } = this.#options
    worker.addEventListener('message', (event: MessageEvent<FromWorker>) => this.#options.onMessage(event.data))
    worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault?.()
      this.#fail(running, `${name} failed: ${event.message}`)
    })
    // A message that cannot be read may have been an answer: its job would wait for ever.
    worker.addEventListener('messageerror', () => this.#fail(running, `${name} failed: a message from it could not be read`))
    worker.addEventListener('close', () => {
      exit()
      const holding = [...this.#jobs.values()].some((job) => job.running === running)
      if (!running.asked || holding) this.#fail(running, `${name} exited`)
    })
    // The listening server keeps the process alive; a waiting worker alone must not (tests, CLI commands).
    ;(worker as Worker & { unref(): void }).unref()
    return running
  }

  /** A worker that failed is let go (asked to end, should it still run), and every job it held fails now. */
  #fail(running: Running, reason: string): void {
    if (running.failed) return
    running.failed = true
    if (this.#running === running) {
      this.#running = null
      clearTimeout(this.#idleTimer)
    }
    if (!running.asked) {
      running.asked = true
      running.worker.postMessage(this.#options.closeMessage)
    }
    this.#options.onFailure?.(reason)
    for (const [id, job] of this.#jobs) {
      if (job.running !== running) continue
      this.#jobs.delete(id)
      job.reject(new Error(reason))
    }
  }
}
