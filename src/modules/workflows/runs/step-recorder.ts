// A run's step traces: what its answer shows (include_data) and what its recording stores. Step rows are written while
// the run goes on, a slice at a time, so neither a long run nor its end holds the server (100,000 rows written in one
// go held it for 1.9 s).
import type { Insertable, Kysely } from 'kysely'
import type { Database } from '../../../platform/db/schema.ts'
import type { RecordingMode, WorkflowStepsTable } from '../../../platform/db/tables/workflows.ts'
import type { KeptTraces } from '../engine/run-memory.ts'
import type { StepTrace } from '../engine/trace.ts'
import { insertStepRows, stepRow } from './store.ts'

/** Work one write may do before the event loop gets a turn: serialising rows, then inserting them. */
const SLICE_MS = 2
/** Rows per write at most (their insert costs ~10 µs each). */
const SLICE_ROWS = 200

export const turnOfEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export class StepRecorder {
  /** Every trace of this call with its data, for an answer with include_data; null without. */
  readonly answer: StepTrace[] | null
  #pending: StepTrace[] = []
  #next = 0

  constructor(
    readonly db: Kysely<Database>,
    readonly runId: string,
    readonly recording: RecordingMode,
    includeData: boolean,
  ) {
    this.answer = includeData ? [] : null
  }

  /** What the run keeps of each step beyond its status: the run's memory budget counts it. */
  get keeps(): KeptTraces {
    return { answer: this.answer !== null, record: this.recording === 'full' }
  }

  add(trace: StepTrace): void {
    this.answer?.push(trace)
    if (this.recording === 'disabled') return
    // headers_only stores no data: a pending trace does not hold on to the step's values either.
    this.#pending.push(this.recording === 'full' ? trace : { ...trace, input: null, params_resolved: null, output: null })
  }

  /**
   * Writes the pending rows, one slice at a time (each its own transaction: a crash loses at most the rows of a run
   * that was never answered, which boot marks interrupted), with a turn of the event loop after each.
   */
  async flush(): Promise<void> {
    while (this.#next < this.#pending.length) {
      const started = performance.now()
      const rows: Insertable<WorkflowStepsTable>[] = []
      while (this.#next < this.#pending.length && rows.length < SLICE_ROWS && performance.now() - started < SLICE_MS) {
        rows.push(stepRow(this.runId, this.recording, this.#pending[this.#next]!))
        // Written traces are let go at once: the run may go on for long.
        this.#pending[this.#next++] = undefined as never
      }
      await this.db.transaction().execute((trx) => insertStepRows(trx, rows))
      await turnOfEventLoop()
    }
    this.#pending = []
    this.#next = 0
  }

  /** Traces not written yet, for the transaction that ends or pauses the run (none after a flush). */
  takePending(): StepTrace[] {
    const rest = this.#pending.slice(this.#next)
    this.#pending = []
    this.#next = 0
    return rest
  }
}
