// Step failures (handled by on_error and on_item_error) and run aborts (limits, cancel), which nothing inside a run catches.

export interface StepErrorInfo {
  code: string
  message: string
  node_id: string
  attempt: number
  retryable: boolean
}

/** A step failed after its retries and its on_error is `stop`: the run fails, or the enclosing map's on_item_error decides. */
export class StepFailure extends Error {
  constructor(readonly info: StepErrorInfo) {
    super(info.message)
    this.name = 'StepFailure'
  }
}

/** Something inside a step went wrong; `retryable` carries a model call's ProviderError.retryable (time-outs, network, 408, 429, 5xx). */
export class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable = false,
  ) {
    super(message)
    this.name = 'StepError'
  }
}

/** Ends the whole run at once: cancel, max_steps, run_timeout, the run's memory budget (which names the step that passed it). */
export class RunAbort extends Error {
  constructor(
    readonly code: 'cancelled' | 'max_steps_exceeded' | 'run_timeout' | 'memory_budget_exceeded',
    message: string,
    readonly nodeId?: string,
  ) {
    super(message)
    this.name = 'RunAbort'
  }
}
