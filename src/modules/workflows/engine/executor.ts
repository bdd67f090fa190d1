// The in-process engine: runs a definition's graph step by step, pauses at a gate with a serialisable state, resumes from it.
import { isoTime } from '../../../platform/clock.ts'
import { ExpressionBudget, mib } from '../expr/budget.ts'
import { ExpressionError } from '../expr/errors.ts'
import type { Scope } from '../expr/evaluate.ts'
import { resolveValue } from '../expr/template.ts'
import { cleanJson, cloneJson } from '../expr/values.ts'
import { measureValue, SizeCache, sizeProblem, VALUE_LIMITS, type ValueSize } from '../expr/value-size.ts'
import { graphOf, type Edge, type WorkflowGraph } from '../definition/graph.ts'
import { isValidNodeId, LIMITS, type WorkflowDefinition, type WorkflowNode } from '../definition/types.ts'
import { RunAbort, StepError, StepFailure, type StepErrorInfo } from './errors.ts'
import { mergePatch } from './merge-patch.ts'
import { runNode, stepDataOf } from '../nodes/index.ts'
import { RunMemory } from './run-memory.ts'
import type { Decision, StepTrace } from './trace.ts'
import type { Activation, EngineHost, EngineState, GateDecision, NodeResult, Outcome, PendingGate, RunInfo } from './types.ts'

export type { EngineHost, EngineState, GateDecision, LlmCall, Outcome, PendingGate, RunError, RunInfo } from './types.ts'

/** A map body's or the top level's bookkeeping. Only the top frame is ever paused, so only its fields are stored. */
class Frame {
  // Keyed by node ids, which come from the workflow's author: null prototypes, so no id can reach Object.prototype
  // (the ids are also checked on save and before a run, see isValidNodeId).
  readonly queue: Activation[] = []
  readonly edges: Record<number, 'delivered' | 'skipped'> = Object.create(null)
  readonly joins: Record<string, Record<string, unknown>> = Object.create(null)
  readonly settled = new Set<string>()
  readonly steps: Record<string, { json: unknown }> = Object.create(null)
  iterationResult: unknown = null
  constructor(
    readonly owner: string | undefined,
    readonly iteration: number[],
    readonly item: { value: unknown; index: number } | null,
    parentSteps: Record<string, { json: unknown }> | null,
  ) {
    if (parentSteps) Object.assign(this.steps, parentSteps)
  }
}

/** Dry-run reject with no rejected port: ends the run `rejected`, like a real reject. */
class RejectedSignal {}

class PauseSignal {
  constructor(readonly gate: PendingGate) {}
}

export class WorkflowExecutor {
  readonly #graph: WorkflowGraph
  readonly #maxSteps: number
  readonly #timeoutMs: number
  #segmentStart = 0
  #state!: EngineState
  #budget = new ExpressionBudget()
  #memory!: RunMemory
  /** Sizes of values already measured (outputs, items, the input, big lists inside them): a step's input is the output before it. */
  readonly #sizes = new SizeCache()
  /** The run input as the engine uses it: one clean copy (no prototype keys), shared by the first steps. */
  #input: unknown = null
  /**
   * performance.now() at the last turn of the event loop this run gave up (see #yieldIfBusy). Zero at first: the
   * request that starts or resumes a run has worked without a turn already (its body, the definition, the checkpoint),
   * so the first step waits for one.
   */
  #lastYield = 0

  constructor(
    readonly definition: WorkflowDefinition,
    readonly run: RunInfo,
    readonly host: EngineHost,
  ) {
    this.#graph = graphOf(definition)
    this.#maxSteps = definition.settings?.max_steps ?? LIMITS.maxStepsDefault
    // Clamped: versions saved before the cap was lowered to an hour may still ask for a day.
    this.#timeoutMs = Math.min(definition.settings?.timeout_s ?? LIMITS.timeoutDefaultS, LIMITS.timeoutCapS) * 1000
  }

  /** Starts a run: every top-level node without incoming connections gets the run input as $json. */
  async start(): Promise<Outcome> {
    // The input is measured (and walked for prototype keys) after a turn: the request worked without one to get here.
    await this.#yieldIfBusy()
    const frame = new Frame(undefined, [], null, null)
    this.#state = { queue: [], outputs: {}, edges: {}, joins: {}, settled: [], result: null, steps: 0, seq: 0, active_ms: 0, expr_units: 0 }
    this.#memory = new RunMemory(0, 0, this.host.keeps)
    const problem = sizeProblem('The run input', this.#sizeOf(this.run.input))
    if (problem) return { kind: 'finished', status: 'failed', result: null, error: { code: 'output_too_large', message: problem }, state: this.#state }
    this.#input = cleanJson(this.run.input)
    // The run holds its input from start to end ($run.input, the first steps' $json).
    this.#memory.held = this.#sizeOf(this.#input).memory
    for (const node of this.#graph.nodes.values()) {
      if (this.#graph.owner.has(node.id)) continue
      if (this.#graph.inEdges(node.id).length === 0) frame.queue.push({ node: node.id, json: this.#input })
    }
    // Versions saved before node ids were checked may still hold one the engine must never use as a key.
    const unsafe = this.definition.nodes.find((node) => !isValidNodeId(node.id))
    if (unsafe)
      return {
        kind: 'finished',
        status: 'failed',
        result: null,
        error: { code: 'invalid_definition', message: `Node id '${String(unsafe.id).slice(0, 64)}' is not allowed: save the workflow again with a valid id` },
        state: this.#state,
      }
    return this.#drive(frame)
  }

  /** Continues from a checkpoint with the human's (or the timeout's) decision on the pending gate. */
  async resume(state: EngineState, gate: { gate_id: string; data: unknown }, decision: GateDecision): Promise<Outcome> {
    this.#state = state
    this.#budget = new ExpressionBudget(state.expr_units ?? 0)
    // Checkpoints saved before the memory budget existed start it from nothing.
    this.#memory = new RunMemory(state.memory_held ?? 0, state.memory_kept ?? 0, this.host.keeps)
    this.#input = this.run.input
    const frame = this.#restore(state)
    this.#segmentStart = this.host.clock.now()
    const node = this.#graph.nodes.get(gate.gate_id)!
    const output = gateOutput(gate.data, decision)
    const port = decision.decision === 'approve' ? 'approved' : decision.decision === 'reject' ? 'rejected' : 'timeout'
    const started = isoTime(this.host.clock.now())
    let ended: Outcome | null = null
    const decide = () => {
      this.#holdOutput(node, output)
      this.#trace(frame, node, { started, input: gate.data, params: null, output, status: 'succeeded', port, decision: toDecision(decision) })
      if (port !== 'approved' && this.#graph.outEdges(node.id).every((e) => e.port !== port)) {
        if (port === 'rejected') ended = { kind: 'finished', status: 'rejected', result: state.result, error: null, state }
        else
          ended = {
            kind: 'finished',
            status: 'failed',
            result: state.result,
            error: { code: 'approval_timeout', message: `Nobody decided on approval gate '${node.id}' in time`, node_id: node.id },
            state,
          }
        return
      }
      this.#emit(frame, node.id, port, output)
    }
    return this.#drive(frame, true, decide, () => ended)
  }

  /**
   * Runs the frame to its end, a pause or a failure. `first` (a resume's decision) runs inside the same handling, so a
   * limit it passes ends the run like any step's would; `early` returns the outcome it reached without running on.
   */
  async #drive(frame: Frame, resumed = false, first?: () => void, early?: () => Outcome | null): Promise<Outcome> {
    if (!resumed) this.#segmentStart = this.host.clock.now()
    const state = this.#state
    try {
      first?.()
      const done = early?.()
      if (done) {
        this.#save(frame)
        state.active_ms += this.host.clock.now() - this.#segmentStart
        return done
      }
      await this.#runFrame(frame)
      this.#save(frame)
      state.active_ms += this.host.clock.now() - this.#segmentStart
      return { kind: 'finished', status: 'succeeded', result: state.result, error: null, state }
    } catch (signal) {
      this.#save(frame)
      state.active_ms += this.host.clock.now() - this.#segmentStart
      if (signal instanceof PauseSignal) return { kind: 'paused', gate: signal.gate, state }
      if (signal instanceof RejectedSignal) return { kind: 'finished', status: 'rejected', result: state.result, error: null, state }
      if (signal instanceof RunAbort) {
        const status = signal.code === 'cancelled' ? 'cancelled' : 'failed'
        const error = status === 'cancelled' ? null : { code: signal.code, message: signal.message, ...(signal.nodeId ? { node_id: signal.nodeId } : {}) }
        return { kind: 'finished', status, result: state.result, error, state }
      }
      if (signal instanceof StepFailure) {
        return {
          kind: 'finished',
          status: 'failed',
          result: state.result,
          error: { code: signal.info.code, message: signal.info.message, node_id: signal.info.node_id },
          state,
        }
      }
      throw signal
    }
  }

  #save(frame: Frame): void {
    const state = this.#state
    state.queue = frame.queue
    state.edges = frame.edges
    state.joins = frame.joins
    state.settled = [...frame.settled]
    state.expr_units = this.#budget.used
    state.memory_held = this.#memory.held
    state.memory_kept = this.#memory.kept
    state.outputs = Object.fromEntries(Object.entries(frame.steps).map(([id, v]) => [id, v.json]))
  }

  #restore(state: EngineState): Frame {
    const frame = new Frame(undefined, [], null, null)
    frame.queue.push(...state.queue)
    Object.assign(frame.edges, state.edges)
    for (const [id, received] of Object.entries(state.joins)) frame.joins[id] = Object.assign(Object.create(null), received)
    for (const id of state.settled) frame.settled.add(id)
    for (const [id, json] of Object.entries(state.outputs)) frame.steps[id] = { json }
    return frame
  }

  async #runFrame(frame: Frame): Promise<void> {
    while (frame.queue.length) {
      await this.#yieldIfBusy()
      this.#checkLimits()
      const activation = frame.queue.shift()!
      const node = this.#graph.nodes.get(activation.node)!
      if (node.type === 'agentbox.approval') {
        await this.#gate(frame, node, activation.json)
        continue
      }
      await this.#step(frame, node, activation.json)
    }
  }

  /**
   * Runs are in-process and their steps synchronous: after ~5 ms of work since the last turn, give the event loop one
   * (setImmediate runs after pending I/O), so other requests are served while a heavy run continues. The host may
   * write what the run recorded meanwhile, in slices of its own.
   */
  async #yieldIfBusy(): Promise<void> {
    if (performance.now() - this.#lastYield < YIELD_AFTER_MS) return
    if (this.host.turn) await this.host.turn()
    else await new Promise<void>((resolve) => setImmediate(resolve))
    this.#lastYield = performance.now()
  }

  #checkLimits(): void {
    if (this.host.isCancelled()) throw new RunAbort('cancelled', 'The run was cancelled')
    if (this.#state.steps >= this.#maxSteps) throw new RunAbort('max_steps_exceeded', `The run stopped after ${this.#maxSteps} steps (settings.max_steps)`)
    if (this.#state.active_ms + (this.host.clock.now() - this.#segmentStart) > this.#timeoutMs) {
      throw new RunAbort('run_timeout', `The run took longer than ${this.#timeoutMs / 1000} s (settings.timeout_s)`)
    }
  }

  #scope(frame: Frame, json: unknown): Scope {
    return {
      $json: json,
      $steps: frame.steps,
      $run: { id: this.run.id, input: this.run.input, started_at: this.run.started_at, starter: this.run.starter, dry_run: this.run.dry_run },
      $workflow: this.run.workflow,
      $item: frame.item?.value ?? null,
      $index: frame.item?.index ?? null,
      $now: isoTime(this.host.clock.now()),
    }
  }

  async #gate(frame: Frame, node: WorkflowNode, json: unknown): Promise<void> {
    this.#state.steps++
    const scope = this.#scope(frame, json)
    let message = ''
    try {
      message = String(resolveValue(node.params?.message ?? '', scope, this.#budget) ?? '')
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error
      message = `(message could not be resolved: ${error.message})`
    }
    const started = isoTime(this.host.clock.now())
    if (!this.host.stepData) {
      this.#trace(frame, node, { started, input: json, params: { message }, output: null, status: 'waiting_human', port: null })
      throw new PauseSignal({ gate_id: node.id, message, data: json, timeout_s: (node.params?.timeout_s as number | undefined) ?? LIMITS.gateTimeoutDefaultS })
    }
    // Dry run: decide from step_data (default approve), exactly as a resume would, without pausing.
    const given = (stepDataOf(this.host.stepData, node.id) ?? {}) as { decision?: string; edits?: Record<string, unknown>; reason?: string }
    const decision: GateDecision = {
      decision: given.decision === 'reject' ? 'reject' : given.decision === 'timeout' ? 'timeout' : 'approve',
      edits: given.edits,
      reason: given.reason,
      decided_by: this.run.starter,
      decided_at: started,
      channel: 'dry_run',
    }
    const output = gateOutput(json, decision)
    const port = decision.decision === 'approve' ? 'approved' : decision.decision === 'reject' ? 'rejected' : 'timeout'
    this.#holdOutput(node, output)
    this.#trace(frame, node, { started, input: json, params: { message }, output, status: 'succeeded', port, decision: toDecision(decision), simulated: true })
    if (port !== 'approved' && this.#graph.outEdges(node.id).every((e) => e.port !== port)) {
      if (port === 'rejected') throw new RejectedSignal()
      throw new StepFailure({
        code: 'approval_timeout',
        message: `Nobody decided on approval gate '${node.id}' in time`,
        node_id: node.id,
        attempt: 1,
        retryable: false,
      })
    }
    this.#emit(frame, node.id, port, output)
  }

  async #step(frame: Frame, node: WorkflowNode, json: unknown): Promise<void> {
    this.#state.steps++
    const startedMs = this.host.clock.now()
    const started = isoTime(startedMs)
    const maxTries = node.type === 'agentbox.llm' ? (node.retry?.max_tries ?? 1) : 1
    const attempts: StepTrace['attempts'] = []
    let params: unknown = null
    for (let attempt = 1; ; attempt++) {
      try {
        params = null
        const resolved = resolveValue(node.params ?? {}, this.#scope(frame, json), this.#budget)
        params = this.#traceable(resolved)
        const result: NodeResult = await runNode(node, resolved as Record<string, unknown>, json, {
          host: this.host,
          runMap: (items) => this.#runMap(frame, node, items),
          measure: (value) => this.#sizeOf(value),
        })
        if (!result.held) this.#checkOutput(node, json, result.json)
        if (result.result !== undefined) this.#state.result = result.result
        this.#trace(frame, node, {
          started,
          input: json,
          params,
          output: result.json,
          status: 'succeeded',
          port: result.port,
          attempts,
          simulated: result.simulated,
        })
        if (result.port) this.#emit(frame, node.id, result.port, result.json)
        else this.#emit(frame, node.id, null, null)
        return
      } catch (error) {
        if (error instanceof RunAbort || error instanceof PauseSignal || error instanceof RejectedSignal) throw error
        const info = toErrorInfo(error, node.id, attempt)
        attempts.push({ n: attempt, error: { code: info.code, message: info.message, retryable: info.retryable } })
        if (info.retryable && attempt < maxTries) {
          const wait = node.retry?.wait_ms ?? 1000
          await this.host.sleep(node.retry?.backoff === 'exponential' ? wait * 2 ** (attempt - 1) : wait)
          this.#checkLimits()
          continue
        }
        this.#trace(frame, node, { started, input: json, params, output: null, status: 'failed', port: null, attempts, error: info })
        const onError = node.on_error ?? 'stop'
        if (onError === 'stop') throw new StepFailure(info)
        const errorJson = { error: { code: info.code, message: info.message, node_id: node.id } }
        this.#emit(
          frame,
          node.id,
          onError === 'continue' ? (node.type === 'agentbox.if' ? 'false' : node.type === 'agentbox.map' ? 'done' : 'main') : 'error',
          errorJson,
        )
        return
      }
    }
  }

  /**
   * One child frame per item, run in order; results come back in input order, whatever on_item_error drops or nulls.
   * The items are held while the map runs; each iteration lets go of what it held once it is over, except its result.
   */
  async #runMap(frame: Frame, node: WorkflowNode, items: unknown[]): Promise<unknown[]> {
    const mode = (node.params?.on_item_error as string | undefined) ?? 'stop'
    const loopEdges = this.#graph.outEdges(node.id).filter((e) => e.port === 'loop')
    const beforeMap = this.#memory.held
    const itemsHeld = this.#sizeOf(items).memory
    this.#memory.hold(itemsHeld, node.id)
    try {
      const results = await this.#iterate(frame, node, items, mode, loopEdges)
      // The items were a list the map was given (held elsewhere, or made for it and now let go): no longer held twice.
      this.#memory.release(itemsHeld)
      return results
    } catch (error) {
      // A failed map's results are dropped with its items (a run that stops here does not care).
      this.#memory.releaseTo(beforeMap)
      throw error
    }
  }

  async #iterate(frame: Frame, node: WorkflowNode, items: unknown[], mode: string, loopEdges: Edge[]): Promise<unknown[]> {
    const results: unknown[] = []
    const total: ValueSize = { json: 0, memory: 0, values: 0 }
    for (let index = 0; index < items.length; index++) {
      await this.#yieldIfBusy()
      const mark = this.#memory.held
      const item = cloneJson(items[index])
      this.#memory.hold(this.#sizeOf(item).memory, node.id)
      let result: unknown = item
      if (loopEdges.length > 0) {
        const child = new Frame(node.id, [...frame.iteration, index], { value: item, index }, frame.steps)
        for (const e of loopEdges) child.queue.push({ node: e.to, json: item })
        try {
          await this.#runFrame(child)
          result = child.iterationResult
        } catch (error) {
          if (!(error instanceof StepFailure)) throw error
          this.#memory.releaseTo(mark)
          if (mode === 'stop') throw new StepError('item_failed', `Item ${index} failed at '${error.info.node_id}': ${error.info.message}`)
          if (mode === 'null') results.push(null)
          continue
        }
      }
      // The iteration is over: of everything it made, only its result is still held.
      this.#memory.releaseTo(mark)
      const size = this.#sizeOf(result)
      // The results grow with every item: bounded as they grow, not only once the map is done.
      total.json += size.json
      total.memory += size.memory
      total.values += size.values
      const problem = sizeProblem(`The map's results at item ${index}`, total)
      if (problem) throw new StepError('output_too_large', problem)
      this.#memory.hold(size.memory, node.id)
      results.push(result)
    }
    return results
  }

  /** Measures a value against the limits of one value (4 MiB of JSON, 16 MiB of memory), once: sizes are kept by object. */
  #sizeOf(value: unknown): ValueSize {
    if (value === null || typeof value !== 'object') return measureValue(value)
    const known = this.#sizes.sizes.get(value)
    if (known) return known
    const size = measureValue(value, VALUE_LIMITS, this.#sizes)
    this.#sizes.sizes.set(value, size)
    return size
  }

  /**
   * A step's output is one value within the limits of one value, and the run holds it (in `$steps`) until the run
   * or the map iteration ends. An output that is its input (an if passes `$json` on) is held already; a join's
   * `$json` is made of its branches' outputs, held already, but it is one value and measured as such.
   */
  #checkOutput(node: WorkflowNode, input: unknown, json: unknown): void {
    if (json === input && node.type !== 'agentbox.join') return
    const size = this.#sizeOf(json)
    const problem = sizeProblem("The step's output", size)
    if (problem) throw new StepError('output_too_large', problem)
    if (json !== input) this.#memory.hold(size.memory, node.id)
  }

  /** A gate's output (its $json with the decision, edits merged): checked and held like any step's. */
  #holdOutput(node: WorkflowNode, output: unknown): void {
    try {
      this.#checkOutput(node, undefined, output)
    } catch (error) {
      if (!(error instanceof StepError)) throw error
      throw new StepFailure({ code: error.code, message: error.message, node_id: node.id, attempt: 1, retryable: false })
    }
  }

  /**
   * Resolved parameters as a trace keeps them. They may refer to the same big value many times, which costs nothing
   * until it is written out: when the answer or the recording would write more than one value's JSON limit, a note
   * stands in for them.
   */
  #traceable(params: unknown): unknown {
    if (!this.#memory.keepsData) return params
    if (sizeProblem('', this.#sizeOf(params)) === null) return params
    return `[not kept: the resolved parameters are larger than one value may be (${mib(LIMITS.valueBytesCap)} as JSON, ${mib(LIMITS.valueMemoryBytesCap)} in memory)]`
  }

  /** Delivers on `port` and skips every other outgoing connection, so joins and nodes down untaken branches settle. */
  #emit(frame: Frame, nodeId: string, port: string | null, json: unknown): void {
    if (port !== null) frame.steps[nodeId] = { json }
    for (const e of this.#frameEdgesFrom(frame, nodeId)) {
      if (e.port === port) this.#deliver(frame, e, json)
      else this.#skipEdge(frame, e)
    }
    if (frame.owner && port !== null)
      for (const e of this.#graph.backEdgesFrom(nodeId)) if (e.to === frame.owner && e.port === port) frame.iterationResult = json
  }

  #frameEdgesFrom(frame: Frame, nodeId: string): Edge[] {
    return this.#graph.outEdges(nodeId).filter((e) => this.#graph.owner.get(e.to) === frame.owner)
  }

  #frameEdgesTo(frame: Frame, nodeId: string): Edge[] {
    return this.#graph.inEdges(nodeId).filter((e) => this.#graph.owner.get(e.from) === frame.owner)
  }

  #deliver(frame: Frame, e: Edge, json: unknown): void {
    frame.edges[e.index] = 'delivered'
    const target = this.#graph.nodes.get(e.to)!
    if (target.type === 'agentbox.join') {
      ;(frame.joins[e.to] ??= Object.create(null) as Record<string, unknown>)[e.from] = json
      this.#settleJoin(frame, e.to)
    } else frame.queue.push({ node: e.to, json })
  }

  #skipEdge(frame: Frame, e: Edge): void {
    if (frame.edges[e.index]) return
    frame.edges[e.index] = 'skipped'
    const target = this.#graph.nodes.get(e.to)!
    if (target.type === 'agentbox.join') return this.#settleJoin(frame, e.to)
    if (this.#frameEdgesTo(frame, e.to).every((i) => frame.edges[i.index] === 'skipped')) this.#skipNode(frame, e.to)
  }

  /** A join fires once every inbound branch delivered or was skipped; it is skipped itself when all were. */
  #settleJoin(frame: Frame, joinId: string): void {
    if (frame.settled.has(joinId)) return
    const inbound = this.#frameEdgesTo(frame, joinId)
    if (!inbound.every((e) => frame.edges[e.index])) return
    frame.settled.add(joinId)
    if (inbound.every((e) => frame.edges[e.index] === 'skipped')) return this.#skipNode(frame, joinId)
    const received = frame.joins[joinId] ?? Object.create(null)
    const output: Record<string, unknown> = Object.create(null)
    for (const e of inbound) if (frame.edges[e.index] === 'delivered' && Object.hasOwn(received, e.from)) output[e.from] = received[e.from]
    frame.queue.push({ node: joinId, json: output })
  }

  #skipNode(frame: Frame, nodeId: string): void {
    const node = this.#graph.nodes.get(nodeId)!
    const now = isoTime(this.host.clock.now())
    this.#trace(frame, node, { started: now, input: null, params: null, output: null, status: 'skipped', port: null })
    for (const e of this.#frameEdgesFrom(frame, nodeId)) this.#skipEdge(frame, e)
  }

  #trace(
    frame: Frame,
    node: WorkflowNode,
    t: {
      started: string
      input: unknown
      params: unknown
      output: unknown
      status: StepTrace['status']
      port: string | null
      attempts?: StepTrace['attempts']
      error?: StepErrorInfo
      decision?: Decision
      simulated?: boolean
    },
  ): void {
    if (this.#memory.keepsData) {
      const data = this.#sizeOf(t.input).json + this.#sizeOf(t.params).json + this.#sizeOf(t.output).json
      this.#memory.keep(data, node.id)
    }
    const finishedMs = this.host.clock.now()
    this.host.onTrace({
      node_id: node.id,
      node_type: node.type,
      name: node.name ?? null,
      iteration: frame.iteration,
      seq: ++this.#state.seq,
      status: t.status,
      port: t.port,
      started_at: t.started,
      finished_at: isoTime(finishedMs),
      duration_ms: Math.max(0, finishedMs - Date.parse(t.started)),
      attempts: t.attempts ?? [],
      input: t.input,
      params_resolved: t.params,
      output: t.output,
      error: t.error ?? null,
      decision: t.decision ?? null,
      simulated: t.simulated ?? false,
    })
  }
}

/** Synchronous work a run may do before it lets the event loop turn. */
const YIELD_AFTER_MS = 5

function toErrorInfo(error: unknown, nodeId: string, attempt: number): StepErrorInfo {
  if (error instanceof StepError) return { code: error.code, message: error.message, node_id: nodeId, attempt, retryable: error.retryable }
  if (error instanceof ExpressionError) return { code: error.code, message: error.message, node_id: nodeId, attempt, retryable: false }
  if (error instanceof StepFailure) return { ...error.info, node_id: nodeId, attempt }
  throw error
}

/** The gate's output: its $json (edits merged on approve) plus `_approval`, under a reserved key so user fields stay intact. */
export function gateOutput(data: unknown, decision: GateDecision): unknown {
  const base = decision.decision === 'approve' && decision.edits ? mergeEdits(data, decision.edits) : cloneJson(data)
  const approval: Record<string, unknown> = {
    decision: decision.decision,
    decided_by: decision.decided_by,
    decided_at: decision.decided_at,
    channel: decision.channel,
  }
  if (decision.reason !== undefined) approval.reason = decision.reason
  if (decision.edits) approval.edited_keys = Object.keys(decision.edits)
  const object = base !== null && typeof base === 'object' && !Array.isArray(base) ? (base as Record<string, unknown>) : { value: base }
  return { ...object, _approval: approval }
}

const mergeEdits = (data: unknown, edits: Record<string, unknown>) => mergePatch(data, edits)

function toDecision(decision: GateDecision): Decision {
  const out: Decision = { decision: decision.decision, decided_by: decision.decided_by, decided_at: decision.decided_at, channel: decision.channel }
  if (decision.reason !== undefined) out.reason = decision.reason
  if (decision.edits) out.edited_keys = Object.keys(decision.edits)
  return out
}
