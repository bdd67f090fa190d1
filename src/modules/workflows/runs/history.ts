// Reading runs: one run as its caller may see it, and the run history of an agent.
import type { Kysely } from 'kysely'
import type { Principal } from '../../../platform/auth/principal.ts'
import type { Database } from '../../../platform/db/schema.ts'
import type { RunStatus } from '../../../platform/db/tables/workflows.ts'
import { notFound } from '../../../platform/errors.ts'
import { resolvePage } from '../../../platform/http/paging.ts'
import { authorizeAgent } from '../../agents/index.ts'
import { RUN_HISTORY_PAGING } from '../schema.ts'
import type { StepTrace } from '../engine/trace.ts'
import { turnOfEventLoop } from './step-recorder.ts'
import { runRowView, stepRowView, type RunView } from './views.ts'

export const RUN_NOT_FOUND = 'Run not found'

export interface RunHistoryQuery {
  status?: RunStatus
  workflow_id?: string
  limit?: number
  offset?: number
}

/** The run as `principal` may see it: not found for unknown runs, other agents' runs and members' runs of others. */
export async function visibleRun(db: Kysely<Database>, principal: Principal, agentName: string, runId: string) {
  const agent = await authorizeAgent(db, agentName, principal, 'use')
  const row = await db.selectFrom('workflow_runs').selectAll().where('id', '=', runId).where('agent_id', '=', agent.id).executeTakeFirst()
  if (!row || (principal.role !== 'admin' && row.starter_id !== principal.userId)) throw notFound(RUN_NOT_FOUND)
  return { agent, row }
}

export async function getRun(db: Kysely<Database>, principal: Principal, agentName: string, runId: string, includeData: boolean): Promise<RunView> {
  const { agent, row } = await visibleRun(db, principal, agentName, runId)
  const checkpoint =
    row.status === 'waiting_human'
      ? await db
          .selectFrom('workflow_checkpoints')
          .select(['gate_id', 'message', 'waiting_since', 'expires_at', 'data'])
          .where('run_id', '=', runId)
          .executeTakeFirst()
      : undefined
  const view = runRowView(
    row,
    agent.name,
    checkpoint
      ? {
          gate_id: checkpoint.gate_id,
          message: checkpoint.message,
          since: checkpoint.waiting_since,
          expires_at: checkpoint.expires_at,
          data: JSON.parse(checkpoint.data),
        }
      : null,
  )
  if (includeData) view.steps = await readSteps(db, runId)
  return view
}

/** Step rows read per query: reading and parsing them takes a few ms, then the event loop gets a turn. */
const STEP_PAGE = 250

/** A run's steps in order, a page at a time (workflow_steps_run): a run may have 100,000 of them. */
async function readSteps(db: Kysely<Database>, runId: string): Promise<StepTrace[]> {
  const steps: StepTrace[] = []
  for (let after = -1; ; ) {
    const rows = await db
      .selectFrom('workflow_steps')
      .selectAll()
      .where('run_id', '=', runId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(STEP_PAGE)
      .execute()
    for (const row of rows) steps.push(stepRowView(row))
    if (rows.length < STEP_PAGE) return steps
    after = rows.at(-1)!.seq
    await turnOfEventLoop()
  }
}

/** History, newest first: admins every run of the agent, members their own; served by workflow_runs_agent / _starter. */
export async function listRuns(db: Kysely<Database>, principal: Principal, agentName: string, query: RunHistoryQuery): Promise<RunView[]> {
  const agent = await authorizeAgent(db, agentName, principal, 'use')
  let q = db
    .selectFrom('workflow_runs as r')
    .leftJoin('workflow_checkpoints as c', 'c.run_id', 'r.id')
    .selectAll('r')
    .select(['c.gate_id', 'c.message', 'c.waiting_since', 'c.expires_at'])
    .where('r.agent_id', '=', agent.id)
  if (principal.role !== 'admin') q = q.where('r.starter_id', '=', principal.userId)
  if (query.status) q = q.where('r.status', '=', query.status)
  if (query.workflow_id) q = q.where('r.workflow_id', '=', query.workflow_id)
  const { limit, offset } = resolvePage(query, RUN_HISTORY_PAGING)
  const rows = await q.orderBy('r.id', 'desc').limit(limit).offset(offset).execute()
  return rows.map(({ gate_id, message, waiting_since, expires_at, ...row }) =>
    runRowView(
      row,
      agent.name,
      row.status === 'waiting_human' && gate_id ? { gate_id, message: message!, since: waiting_since!, expires_at: expires_at! } : null,
    ),
  )
}
