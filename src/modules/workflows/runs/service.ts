// Workflow runs: start (real or dry), resume at a gate, cancel, gate timeouts; reading runs (history.ts), crash
// recovery and retention (housekeeping.ts) are delegated.
import type { Kysely } from 'kysely'
import type { Principal } from '../../../platform/auth/principal.ts'
import { isoTime, type Clock } from '../../../platform/clock.ts'
import type { Database } from '../../../platform/db/schema.ts'
import { conflict, forbidden, invalidInput, notFound } from '../../../platform/errors.ts'
import { newId, sha256Hex } from '../../../platform/ids.ts'
import type { Logger } from '../../../platform/log.ts'
import type { ModelProviders } from '../../../llm/registry.ts'
import { authorizeAgent, readSourceDocument } from '../../agents/index.ts'
import { WORKFLOW_NOT_FOUND } from '../definitions.ts'
import type { Static } from '@sinclair/typebox'
import { workflowsOf } from '../stored.ts'
import type { RunBody } from '../schema.ts'
import type { WorkflowDefinition } from '../definition/types.ts'
import { isPlainObject } from '../expr/values.ts'
import { WorkflowExecutor } from '../engine/executor.ts'
import type { EngineState, GateDecision, Outcome, RunInfo } from '../engine/types.ts'
import { StepRecorder, turnOfEventLoop } from './step-recorder.ts'
import { getRun, listRuns, RUN_NOT_FOUND, visibleRun, type RunHistoryQuery } from './history.ts'
import { pruneFinished, recoverInterrupted } from './housekeeping.ts'
import { checkResumeBody, type ResumeInput } from './resume-input.ts'
import { writeAudit } from '../../../platform/audit.ts'
import { readOrgSettings } from '../../../platform/org-settings.ts'
import { engineHost, type CancelHandle } from './host.ts'
import { finishRun, insertRunningRow, pauseRun, type RunMeta } from './store.ts'
import { outcomeView, runRowView, type RunView } from './views.ts'

export const OWNERS_RUN_DRAFT = 'Only owners can run the draft of this agent'
export const NOT_STARTER = 'Only the person who started this run can decide its approval gate'

/** What starting a run takes: the request body's schema is the definition. */
export type StartRunInput = Static<typeof RunBody>

export interface RunsDeps {
  db: Kysely<Database>
  clock: Clock
  logger: Logger
  providers: ModelProviders
  /** Several instances on one database: a run executing here may be cancelled on another (read its stored status). */
  shared?: boolean
}

const EXPIRY_BATCH = 100

/** Whole and fractional seconds between two ISO instants, to the millisecond. */
const secondsBetween = (from: string, to: string): number => Math.max(0, Date.parse(to) - Date.parse(from)) / 1000

export class WorkflowRuns {
  readonly #active = new Map<string, CancelHandle>()
  constructor(readonly deps: RunsDeps) {}

  #now = () => isoTime(this.deps.clock.now())

  async start(principal: Principal, agentName: string, workflowId: string, body: StartRunInput): Promise<RunView> {
    const dry = body.dry_run === true
    if (body.step_data !== undefined && !isPlainObject(body.step_data))
      throw invalidInput({ loc: ['step_data'], msg: 'step_data must be an object keyed by node id', type: 'model_type' })
    if (body.step_data !== undefined && !dry)
      throw invalidInput({ loc: ['step_data'], msg: 'step_data is only accepted with dry_run: true', type: 'value_error' })
    const source = body.version ?? 'live'
    const { db } = this.deps
    const { agent, document, version } = await readSourceDocument(db, principal, agentName, source, OWNERS_RUN_DRAFT)
    const workflow = workflowsOf(document).find((w) => w.id === workflowId)
    if (!workflow) throw notFound(source === 'live' ? `${WORKFLOW_NOT_FOUND} in the live version` : WORKFLOW_NOT_FOUND)

    const recording = dry ? 'disabled' : (await readOrgSettings(db)).workflow_recording
    const info: RunInfo = {
      id: newId(),
      input: body.input ?? null,
      started_at: this.#now(),
      starter: principal.userId,
      dry_run: dry,
      workflow: { id: workflow.id, name: workflow.name, version, agent: agent.name },
    }
    const meta: RunMeta = { info, agentId: agent.id, source, definitionHash: sha256Hex(JSON.stringify(workflow.definition)), recording }
    const recorder = new StepRecorder(db, info.id, recording, body.include_data === true)
    const handle: CancelHandle = { cancelled: false, agentId: agent.id, starterId: principal.userId, storedCancel: this.#storedCancel(info.id, recording, dry) }
    const executor = new WorkflowExecutor(
      workflow.definition,
      info,
      engineHost(this.deps.clock, this.deps.providers, handle, dry ? ((body.step_data ?? {}) as Record<string, unknown>) : null, recorder),
    )
    if (dry) {
      const outcome = await this.#execute(info.id, () => executor.start())
      return outcomeView(meta, outcome, outcome.kind === 'finished' ? outcome.status : 'waiting_human', this.#now(), recorder.answer)
    }
    // Reading and checking the request's body took a while already; writing the input (full recording) comes after a turn.
    await turnOfEventLoop()
    if (recording !== 'disabled') await insertRunningRow(db, meta, info.started_at)
    this.#active.set(info.id, handle)
    try {
      const outcome = await this.#execute(info.id, () => executor.start())
      return await this.#settle(meta, workflow.definition, outcome, recorder)
    } finally {
      this.#active.delete(info.id)
    }
  }

  /** A recorded run on a shared database reads its row between steps; a cancel on another instance moved it. */
  #storedCancel(runId: string, recording: RunMeta['recording'], dry: boolean): CancelHandle['storedCancel'] {
    if (!this.deps.shared || dry || recording === 'disabled') return undefined
    return async () => (await this.deps.db.selectFrom('workflow_runs').select('status').where('id', '=', runId).executeTakeFirst())?.status === 'cancelled'
  }

  /** A bug in a node must not leave a run `running` forever: it fails the run with `internal_error` and is logged. */
  async #execute(runId: string, work: () => Promise<Outcome>): Promise<Outcome> {
    try {
      return await work()
    } catch (error) {
      this.deps.logger.error('workflow run failed unexpectedly', { run_id: runId, error: (error as Error).message, stack: (error as Error).stack })
      const state = { queue: [], outputs: {}, edges: {}, joins: {}, settled: [], result: null, steps: 0, seq: 0, active_ms: 0 }
      return {
        kind: 'finished',
        status: 'failed',
        result: null,
        error: { code: 'internal_error', message: 'Internal error while running the workflow' },
        state,
      }
    }
  }

  /**
   * Steps performed:
   * 1. the step rows not written yet are written, in slices with turns of the event loop between them;
   * 2. the run pauses (checkpoint and status in one transaction) or ends (status, result) as the outcome says.
   * The answer is given only after 2 has committed: an acknowledged run or checkpoint is never lost.
   */
  async #settle(meta: RunMeta, definition: WorkflowDefinition, outcome: Outcome, recorder: StepRecorder): Promise<RunView> {
    await recorder.flush()
    const now = this.#now()
    const rest = recorder.takePending()
    if (outcome.kind === 'paused') {
      const expiresAt = isoTime(this.deps.clock.now() + outcome.gate.timeout_s * 1000)
      const waiting = await pauseRun(this.deps.db, meta, definition, outcome.gate, outcome.state, rest, now, expiresAt)
      const view = outcomeView(meta, outcome, waiting ? 'waiting_human' : 'cancelled', now, recorder.answer)
      if (waiting) view.waiting = { gate_id: outcome.gate.gate_id, message: outcome.gate.message, since: now, expires_at: expiresAt, data: outcome.gate.data }
      else view.finished_at = now
      return view
    }
    const status = await finishRun(this.deps.db, meta, outcome.status, outcome.result, outcome.error, rest, now)
    return outcomeView(meta, outcome, status, now, recorder.answer)
  }

  async resume(principal: Principal, agentName: string, runId: string, body: ResumeInput, channel: GateDecision['channel'] = 'api'): Promise<RunView> {
    const { db, clock } = this.deps
    const { agent, row } = await visibleRun(this.deps.db, principal, agentName, runId)
    if (row.starter_id !== principal.userId) throw forbidden(NOT_STARTER)
    checkResumeBody(body)
    if (row.status !== 'waiting_human') throw conflict(`Run is ${row.status}, not waiting for approval`)
    const checkpoint = await db.selectFrom('workflow_checkpoints').selectAll().where('run_id', '=', runId).executeTakeFirst()
    if (!checkpoint) throw conflict(`Run is ${row.status}, not waiting for approval`)
    if (Date.parse(checkpoint.expires_at) <= clock.now()) {
      const status = await this.#expire(runId)
      throw conflict(`Run is ${status ?? 'no longer waiting'}: its approval gate timed out`)
    }
    const decidedAt = this.#now()
    const claimed = await db.transaction().execute(async (trx) => {
      // Compare-and-set: of two concurrent resumes (a double click), exactly one moves the run; the other gets 409.
      const moved = await trx
        .updateTable('workflow_runs')
        .set({ status: 'running', pending_gate: null, updated_at: decidedAt })
        .where('id', '=', runId)
        .where('status', '=', 'waiting_human')
        .executeTakeFirst()
      if (Number(moved.numUpdatedRows) !== 1) return false
      await writeAudit(trx, clock, {
        actor_id: principal.userId,
        action: 'workflow.approval',
        target_type: 'workflow_run',
        target_id: runId,
        details: {
          decision: body.decision,
          channel,
          agent: agent.name,
          workflow_id: row.workflow_id,
          gate_id: checkpoint.gate_id,
          edited_keys: body.edits ? Object.keys(body.edits as object) : [],
          reason_given: body.reason !== undefined,
          // For insights: how long the gate waited, on which agent, for whose run.
          agent_id: row.agent_id,
          starter_id: row.starter_id,
          waited_s: secondsBetween(checkpoint.waiting_since, decidedAt),
        },
      })
      return true
    })
    if (!claimed) {
      const current = await db.selectFrom('workflow_runs').select('status').where('id', '=', runId).executeTakeFirst()
      throw conflict(`Run is ${current?.status ?? 'gone'}, not waiting for approval`)
    }
    return this.#continue(
      row.recording,
      checkpoint,
      {
        decision: body.decision,
        edits: body.edits as Record<string, unknown> | undefined,
        reason: body.reason,
        decided_by: principal.userId,
        decided_at: decidedAt,
        channel,
      },
      row.agent_id,
      body.include_data,
    )
  }

  async #continue(
    recording: RunMeta['recording'],
    checkpoint: { run_id: string; gate_id: string; data: string; definition: string; run_info: string; state: string },
    decision: GateDecision,
    agentId: string,
    includeData?: boolean,
  ): Promise<RunView> {
    const definition = JSON.parse(checkpoint.definition) as WorkflowDefinition
    const info = JSON.parse(checkpoint.run_info) as RunInfo
    const state = JSON.parse(checkpoint.state) as EngineState
    const row = await this.deps.db.selectFrom('workflow_runs').select(['source', 'definition_hash']).where('id', '=', info.id).executeTakeFirst()
    const meta: RunMeta = { info, agentId, source: (row?.source ?? 'live') as 'live' | 'draft', definitionHash: row?.definition_hash ?? '', recording }
    const recorder = new StepRecorder(this.deps.db, info.id, recording, includeData === true)
    const handle: CancelHandle = { cancelled: false, agentId, starterId: info.starter, storedCancel: this.#storedCancel(info.id, recording, false) }
    const executor = new WorkflowExecutor(definition, info, engineHost(this.deps.clock, this.deps.providers, handle, null, recorder))
    this.#active.set(info.id, handle)
    try {
      const outcome = await this.#execute(info.id, () => executor.resume(state, { gate_id: checkpoint.gate_id, data: JSON.parse(checkpoint.data) }, decision))
      return await this.#settle(meta, definition, outcome, recorder)
    } finally {
      this.#active.delete(info.id)
    }
  }

  /** A gate past its expiry: the timeout port if connected, else the run fails with approval_timeout. Returns the new status. */
  async #expire(runId: string): Promise<string | null> {
    const { db, clock } = this.deps
    const checkpoint = await db.selectFrom('workflow_checkpoints').selectAll().where('run_id', '=', runId).executeTakeFirst()
    if (!checkpoint) return null
    const now = this.#now()
    const run = await db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('workflow_runs')
        .set({ status: 'running', pending_gate: null, updated_at: now })
        .where('id', '=', runId)
        .where('status', '=', 'waiting_human')
        .executeTakeFirst()
      if (Number(moved.numUpdatedRows) !== 1) return null
      const row = await trx
        .selectFrom('workflow_runs')
        .select(['recording', 'agent_id', 'workflow_id', 'starter_id'])
        .where('id', '=', runId)
        .executeTakeFirstOrThrow()
      await writeAudit(trx, clock, {
        actor_id: null,
        action: 'workflow.approval',
        target_type: 'workflow_run',
        target_id: runId,
        details: {
          decision: 'timeout',
          channel: 'system',
          workflow_id: row.workflow_id,
          gate_id: checkpoint.gate_id,
          agent_id: row.agent_id,
          starter_id: row.starter_id,
          waited_s: secondsBetween(checkpoint.waiting_since, now),
        },
      })
      return row
    })
    if (!run) return null
    const view = await this.#continue(run.recording, checkpoint, { decision: 'timeout', decided_by: null, decided_at: now, channel: 'system' }, run.agent_id)
    return view.status
  }

  /** The gate-timeout sweep: every checkpoint past its expiry, earliest first (workflow_checkpoints_expiry). */
  async expireGates(): Promise<number> {
    const due = await this.deps.db
      .selectFrom('workflow_checkpoints')
      .select('run_id')
      .where('expires_at', '<=', this.#now())
      .orderBy('expires_at')
      .limit(EXPIRY_BATCH)
      .execute()
    let expired = 0
    for (const { run_id } of due) if (await this.#expire(run_id)) expired++
    return expired
  }

  async cancel(principal: Principal, agentName: string, runId: string): Promise<RunView> {
    const { db } = this.deps
    const agent = await authorizeAgent(db, agentName, principal, 'use')
    const row = await db.selectFrom('workflow_runs').selectAll().where('id', '=', runId).where('agent_id', '=', agent.id).executeTakeFirst()
    const active = this.#active.get(runId)
    if (!row) {
      // A run recorded `disabled` has no row while it runs; the one in flight here can still be stopped.
      if (active && active.agentId === agent.id && (principal.role === 'admin' || active.starterId === principal.userId)) {
        active.cancelled = true
        throw conflict('Run is running unrecorded; it stops at its next step')
      }
      throw notFound(RUN_NOT_FOUND)
    }
    if (principal.role !== 'admin' && row.starter_id !== principal.userId) throw notFound(RUN_NOT_FOUND)
    const now = this.#now()
    const cancelled = await db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('workflow_runs')
        .set({ status: 'cancelled', pending_gate: null, finished_at: now, updated_at: now })
        .where('id', '=', runId)
        .where('status', 'in', ['running', 'waiting_human'])
        .executeTakeFirst()
      if (Number(moved.numUpdatedRows) !== 1) return false
      await trx.deleteFrom('workflow_checkpoints').where('run_id', '=', runId).execute()
      if (row.recording === 'disabled') await trx.deleteFrom('workflow_runs').where('id', '=', runId).execute()
      // An admin stopping someone's run is an act on their work: on the record. A starter cancelling their own is not.
      if (principal.userId !== row.starter_id) {
        await writeAudit(trx, this.deps.clock, {
          actor_id: principal.userId,
          action: 'workflow.cancel',
          target_type: 'workflow_run',
          target_id: runId,
          details: { workflow_id: row.workflow_id, starter_id: row.starter_id, status_before: row.status },
        })
      }
      return true
    })
    if (!cancelled) throw conflict(`Run is already ${row.status}`)
    if (active) active.cancelled = true
    return runRowView({ ...row, status: 'cancelled', pending_gate: null, finished_at: now, updated_at: now }, agent.name, null)
  }

  get(principal: Principal, agentName: string, runId: string, includeData = false): Promise<RunView> {
    return getRun(this.deps.db, principal, agentName, runId, includeData)
  }

  list(principal: Principal, agentName: string, query: RunHistoryQuery): Promise<RunView[]> {
    return listRuns(this.deps.db, principal, agentName, query)
  }

  /** Boot: runs a crash left `running` fail as `interrupted` (unrecorded ones vanish); waiting runs keep their checkpoints. */
  recoverInterrupted(): Promise<number> {
    return recoverInterrupted(this.deps.db, this.#now())
  }

  /** Retention: finished runs older than `days`, oldest first, in batches; unfinished runs are never touched. */
  pruneFinished(days: number): Promise<number> {
    return pruneFinished(this.deps.db, isoTime(this.deps.clock.now() - days * 86_400_000))
  }
}
