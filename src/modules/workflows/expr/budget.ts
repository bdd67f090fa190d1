// Run-wide bounds on expression work and on the size of the values a run makes (issue 14, items 2 and 3).
import { LIMITS } from '../definition/types.ts'
import { ExpressionError } from './errors.ts'

/**
 * Work units spent by a run's expressions: one per evaluated node, plus the length of every text or list a function
 * reads or returns. Shared by every expression of one run; past its limit each evaluation fails at once. One step
 * (one resolveValue: a node's parameters) may spend only part of it, because a step's expressions run without giving
 * the event loop a turn: the step limit bounds that hold, the run limit the run's total work.
 */
export class ExpressionBudget {
  #stepUsed = 0

  constructor(
    public used = 0,
    readonly limit: number = LIMITS.expressionUnitsPerRun,
    readonly stepLimit: number = LIMITS.expressionUnitsPerStep,
  ) {}

  /** A new step starts: its own count starts again, the run's goes on. */
  beginStep(): void {
    this.#stepUsed = 0
  }

  charge(units: number): void {
    this.used += units
    this.#stepUsed += units
    if (this.used > this.limit) throw exceeded("The run's expressions", this.limit)
    if (this.#stepUsed > this.stepLimit) throw exceeded("One step's expressions", this.stepLimit)
  }
}

function exceeded(who: string, limit: number): ExpressionError {
  return new ExpressionError(
    `${who} did more work than allowed (${limit.toLocaleString('en-US')} units: evaluated parts plus the lengths of texts and lists that functions handle); make the data or the workflow smaller`,
    'expression_budget_exceeded',
  )
}

/**
 * An estimate of `value`'s size as JSON in bytes (text counted in UTF-16 units, escapes ignored), walked without
 * recursion and without building the JSON. Stops as soon as the estimate passes `limit` and returns it (> limit);
 * shared sub-values are counted each time they appear, as JSON.stringify would write them.
 */
export function jsonSizeUpTo(value: unknown, limit: number): number {
  let size = 0
  const stack: unknown[] = [value]
  while (stack.length) {
    const v = stack.pop()
    if (typeof v === 'string') size += v.length + 2
    else if (typeof v === 'number') size += 8
    else if (typeof v === 'boolean') size += 5
    else if (v === null || v === undefined) size += 4
    else if (Array.isArray(v)) {
      size += 2 + v.length
      if (size > limit) return size
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i])
    } else if (typeof v === 'object') {
      size += 2
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue
        size += key.length + 4
        stack.push((v as Record<string, unknown>)[key])
      }
    }
    if (size > limit) return size
  }
  return size
}

let active: ExpressionBudget | null = null

/** The budget the expression being evaluated charges; set by resolveValue for the duration of one (synchronous) call. */
export const activeBudget = (): ExpressionBudget | null => active

/** Runs `work` (synchronous) with `budget` as the active one, restoring the previous one after. */
export function withBudget<T>(budget: ExpressionBudget | null | undefined, work: () => T): T {
  if (!budget) return work()
  const previous = active
  budget.beginStep()
  active = budget
  try {
    return work()
  } finally {
    active = previous
  }
}

export const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB`
