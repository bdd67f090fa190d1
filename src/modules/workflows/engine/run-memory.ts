// A run's memory budget: one count for every shape of data a run can pile up (issue 25), checked as it grows.
import { LIMITS } from '../definition/types.ts'
import { mib } from '../expr/budget.ts'
import { RunAbort } from './errors.ts'

/** Memory one step trace takes while it waits for the answer (include_data), besides its data. */
export const TRACE_MEMORY = 512

/** What the run keeps of each step besides its values: for the answer (include_data), for a full recording. */
export interface KeptTraces {
  /** include_data: every trace, with its input, parameters and output, until the run answers. */
  answer: boolean
  /** recording full: every step's input, parameters and output are written to the database. */
  record: boolean
}

/**
 * Two parts, one limit (LIMITS.runMemoryBytesCap):
 * - held: the estimated memory of the values the run holds now: its input, every step output (the engine keeps them
 *   for `$steps`), a map's items and results. A map iteration gives back what it held once it is over, except its
 *   result, so a long map over small items stays small however many steps it takes.
 * - kept: the JSON of the step data kept for the answer or the recording. A shared value counts once per step that
 *   shows it, because that is how often it is written out. Never given back.
 * Past the limit the run fails at once (memory_budget_exceeded), naming the step that passed it.
 */
export class RunMemory {
  constructor(
    public held = 0,
    public kept = 0,
    readonly traces: KeptTraces = { answer: false, record: false },
    readonly limit: number = LIMITS.runMemoryBytesCap,
  ) {}

  /** Whether step data (input, parameters, output) is kept, so its JSON counts. */
  get keepsData(): boolean {
    return this.traces.answer || this.traces.record
  }

  hold(bytes: number, nodeId: string): void {
    this.held += bytes
    this.#check(nodeId)
  }

  /** A step's data as the answer or the recording keeps it (its JSON), plus the trace itself while it waits for the answer. */
  keep(dataJson: number, nodeId: string): void {
    this.kept += dataJson + (this.traces.answer ? TRACE_MEMORY : 0)
    this.#check(nodeId)
  }

  /** Values held since `mark` are let go (a map iteration is over; the caller holds its result again). */
  releaseTo(mark: number): void {
    this.held = Math.min(this.held, mark)
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes)
  }

  #check(nodeId: string): void {
    if (this.held + this.kept <= this.limit) return
    const parts = [`values it holds: about ${mib(this.held)}`]
    if (this.kept > 0) {
      const why = [this.traces.answer && 'include_data', this.traces.record && 'the full recording'].filter(Boolean).join(' and ')
      parts.push(`step data kept for ${why}: about ${mib(this.kept)}`)
    }
    const advice = [
      'make the data smaller',
      this.kept > 0 && this.traces.answer && 'run without include_data',
      this.kept > 0 && this.traces.record && 'ask an admin to record headers only',
    ].filter(Boolean)
    throw new RunAbort(
      'memory_budget_exceeded',
      `The run passed its memory budget of ${mib(this.limit)} at step '${nodeId}' (estimated; ${parts.join(', ')}): ${advice.join(', or ')}`,
      nodeId,
    )
  }
}
