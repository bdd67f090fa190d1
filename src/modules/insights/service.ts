// Insights: usage analytics over a range of UTC days, for the organisation (admins) or the caller (members), optionally
// for one agent. Read from the rollups of migrations 0006 and 0008, never from interaction rows, a few days per query
// with a turn of the event loop between, so no request holds the server for more than a few milliseconds.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { RunStatus } from '../../platform/db/tables/workflows.ts'
import { invalidInput, type InputIssue } from '../../platform/errors.ts'
import { authorizeAgent } from '../agents/service.ts'
import { median, nearestRank } from './percentiles.ts'

export interface InsightsRequest {
  from?: string
  to?: string
  agent_name?: string
}

export interface Insights {
  from: string
  to: string
  interactions_per_day: { date: string; mcp_tool: number; api_action: number; total: number }[]
  top_tools: { tool_name: string; mcp_server_name: string; count: number }[]
  top_applications: { api_title: string; count: number }[]
  error_rate: number | null
  duration_ms: { p50: number | null; p95: number | null }
  active_users_per_day: { date: string; count: number }[]
  workflow_runs: Record<RunStatus, number>
  approvals: { waiting: number; median_decision_s: number | null }
}

const DAY_MS = 86_400_000
/** Days read per query; a turn of the event loop between chunks. */
const CHUNK_DAYS = 7
export const DEFAULT_DAYS = 30
export const MAX_DAYS = 1000
const TOP = 10
const STATUSES: readonly RunStatus[] = ['running', 'waiting_human', 'succeeded', 'failed', 'rejected', 'cancelled']
const DATE = /^\d{4}-\d{2}-\d{2}$/

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10)

function parseDay(value: string): number | null {
  if (!DATE.test(value)) return null
  const ms = Date.parse(`${value}T00:00:00.000Z`)
  return Number.isNaN(ms) || dayKey(ms) !== value ? null : ms
}

interface ToolRow {
  day: string
  kind: 'mcp_tool' | 'api_action'
  api_title: string
  action: string
  n: number
  errors: number
}

interface Scope {
  /** null: the organisation. */
  userId: string | null
  /** The agent's id and name, when filtered by agent. */
  agent: { id: string; name: string } | null
}

const byCountThenName =
  <T extends { count: number }>(key: (item: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)

export class InsightsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async insights(principal: Principal, request: InsightsRequest): Promise<Insights> {
    const { fromMs, toMs } = this.#range(request)
    const agent = request.agent_name === undefined ? null : await authorizeAgent(this.db, request.agent_name, principal)
    const scope: Scope = { userId: principal.role === 'admin' ? null : principal.userId, agent: agent ? { id: agent.id, name: agent.name } : null }

    const perDay = new Map<string, { mcp_tool: number; api_action: number }>()
    const active = new Map<string, number>()
    const tools = new Map<string, { tool_name: string; mcp_server_name: string; count: number }>()
    const applications = new Map<string, number>()
    const durations = new Map<number, number>()
    const runs = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>
    let total = 0
    let errors = 0

    for (let start = fromMs, chunk = 0; start <= toMs; start += CHUNK_DAYS * DAY_MS, chunk++) {
      if (chunk > 0) await yieldToEventLoop()
      const first = dayKey(start)
      const last = dayKey(Math.min(start + (CHUNK_DAYS - 1) * DAY_MS, toMs))
      for (const row of await this.#tools(scope, first, last)) {
        const n = Number(row.n)
        if (n <= 0) continue
        const day = perDay.get(row.day) ?? { mcp_tool: 0, api_action: 0 }
        day[row.kind] += n
        perDay.set(row.day, day)
        total += n
        errors += Number(row.errors)
        if (row.kind === 'mcp_tool') {
          const key = `${row.api_title}\n${row.action}`
          const tool = tools.get(key) ?? { tool_name: row.action, mcp_server_name: row.api_title, count: 0 }
          tool.count += n
          tools.set(key, tool)
        } else applications.set(row.api_title, (applications.get(row.api_title) ?? 0) + n)
      }
      for (const row of await this.#durations(scope, first, last)) {
        const n = Number(row.n)
        if (n > 0) durations.set(row.bucket, (durations.get(row.bucket) ?? 0) + n)
      }
      for (const row of await this.#activeUsers(scope, first, last)) active.set(row.day, Number(row.count))
      for (const row of await this.#runs(scope, first, last)) runs[row.status] += Number(row.count)
    }

    const days: string[] = []
    for (let ms = fromMs; ms <= toMs; ms += DAY_MS) days.push(dayKey(ms))
    return {
      from: dayKey(fromMs),
      to: dayKey(toMs),
      interactions_per_day: days.map((date) => {
        const day = perDay.get(date) ?? { mcp_tool: 0, api_action: 0 }
        return { date, mcp_tool: day.mcp_tool, api_action: day.api_action, total: day.mcp_tool + day.api_action }
      }),
      top_tools: [...tools.values()].sort(byCountThenName((tool) => `${tool.mcp_server_name}\n${tool.tool_name}`)).slice(0, TOP),
      top_applications: [...applications]
        .map(([api_title, count]) => ({ api_title, count }))
        .sort(byCountThenName((app) => app.api_title))
        .slice(0, TOP),
      error_rate: total === 0 ? null : Math.round((errors / total) * 10_000) / 10_000,
      duration_ms: { p50: nearestRank(durations, 50), p95: nearestRank(durations, 95) },
      active_users_per_day: days.map((date) => ({ date, count: active.get(date) ?? 0 })),
      workflow_runs: runs,
      approvals: await this.#approvals(scope, fromMs, toMs),
    }
  }

  #range(request: InsightsRequest): { fromMs: number; toMs: number } {
    const issues: InputIssue[] = []
    const read = (field: 'from' | 'to') => {
      const value = request[field]
      if (value === undefined) return undefined
      const ms = parseDay(value)
      if (ms === null)
        issues.push({
          in: 'query',
          loc: [field],
          msg: 'Input should be a valid date in the format YYYY-MM-DD',
          type: 'date_from_datetime_parsing',
          input: value,
        })
      return ms ?? undefined
    }
    const from = read('from')
    const to = read('to')
    if (issues.length > 0) throw invalidInput(...issues)
    const toMs = to ?? parseDay(dayKey(this.clock.now()))!
    const fromMs = from ?? toMs - (DEFAULT_DAYS - 1) * DAY_MS
    if (fromMs > toMs) throw invalidInput({ in: 'query', loc: ['from'], msg: 'from must not be after to', type: 'value_error', input: request.from })
    const days = (toMs - fromMs) / DAY_MS + 1
    if (days > MAX_DAYS)
      throw invalidInput({
        in: 'query',
        loc: ['to'],
        msg: `The range covers ${days} days; at most ${MAX_DAYS} are allowed`,
        type: 'value_error',
        input: request.to,
        ctx: { max_days: MAX_DAYS },
      })
    return { fromMs, toMs }
  }

  /** Calls and failures per tool or operation and day; for one agent, the calls made through its MCP server. */
  async #tools(scope: Scope, first: string, last: string): Promise<ToolRow[]> {
    const agent = scope.agent?.name
    if (scope.userId === null)
      return this.db
        .selectFrom('interaction_daily_tools')
        .select(['day', 'kind', 'api_title', 'action', 'n', 'errors'])
        .where('day', '>=', first)
        .where('day', '<=', last)
        .$if(agent !== undefined, (qb) => qb.where('kind', '=', 'mcp_tool').where('api_title', '=', agent!))
        .execute()
    return this.db
      .selectFrom('interaction_user_daily_tools')
      .select(['day', 'kind', 'api_title', 'action', 'n', 'errors'])
      .where('user_id', '=', scope.userId)
      .where('day', '>=', first)
      .where('day', '<=', last)
      .$if(agent !== undefined, (qb) => qb.where('kind', '=', 'mcp_tool').where('api_title', '=', agent!))
      .execute()
  }

  /** The duration histogram of the days: bucket → calls. */
  async #durations(scope: Scope, first: string, last: string): Promise<{ bucket: number; n: number }[]> {
    const agent = scope.agent?.name
    if (scope.userId === null)
      return this.db
        .selectFrom('interaction_daily_durations')
        .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
        .where('day', '>=', first)
        .where('day', '<=', last)
        .$if(agent !== undefined, (qb) => qb.where('api_title', '=', agent!))
        .groupBy('bucket')
        .execute()
    return this.db
      .selectFrom('interaction_user_daily_durations')
      .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
      .where('user_id', '=', scope.userId)
      .where('day', '>=', first)
      .where('day', '<=', last)
      .$if(agent !== undefined, (qb) => qb.where('api_title', '=', agent!))
      .groupBy('bucket')
      .execute()
  }

  #activeUsers(scope: Scope, first: string, last: string): Promise<{ day: string; count: number }[]> {
    if (scope.agent !== null) {
      return this.db
        .selectFrom('interaction_user_daily_tools')
        .select((eb) => ['day', eb.fn.count<number>('user_id').distinct().as('count')])
        .where('day', '>=', first)
        .where('day', '<=', last)
        .where('api_title', '=', scope.agent.name)
        .where('kind', '=', 'mcp_tool')
        .where('n', '>', 0)
        .$if(scope.userId !== null, (qb) => qb.where('user_id', '=', scope.userId!))
        .groupBy('day')
        .execute()
    }
    return this.db
      .selectFrom('interaction_user_daily_usage')
      .select((eb) => ['day', eb.fn.count<number>('user_id').distinct().as('count')])
      .where('day', '>=', first)
      .where('day', '<=', last)
      .where('n', '>', 0)
      .$if(scope.userId !== null, (qb) => qb.where('user_id', '=', scope.userId!))
      .groupBy('day')
      .execute()
  }

  /** Runs started in the days, by their status now (runs recorded with `disabled` are kept only while they wait). */
  #runs(scope: Scope, first: string, last: string) {
    return this.db
      .selectFrom('workflow_runs')
      .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
      .where('started_at', '>=', `${first}T00:00:00.000Z`)
      .where('started_at', '<', `${last}T99`)
      .$if(scope.userId !== null, (qb) => qb.where('starter_id', '=', scope.userId!))
      .$if(scope.agent !== null, (qb) => qb.where('agent_id', '=', scope.agent!.id))
      .groupBy('status')
      .execute()
  }

  /** Gates waiting now, and the median wait of the decisions taken in the days (from the audit log). */
  async #approvals(scope: Scope, fromMs: number, toMs: number): Promise<Insights['approvals']> {
    const waiting = await this.db
      .selectFrom('workflow_checkpoints as c')
      .innerJoin('workflow_runs as r', 'r.id', 'c.run_id')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('r.status', '=', 'waiting_human')
      .$if(scope.userId !== null, (qb) => qb.where('r.starter_id', '=', scope.userId!))
      .$if(scope.agent !== null, (qb) => qb.where('r.agent_id', '=', scope.agent!.id))
      .executeTakeFirstOrThrow()
    const waits: number[] = []
    const until = dayKey(toMs + DAY_MS)
    let after = ''
    // Decisions in pages of 500 (ids grow with time), a turn of the event loop between pages.
    for (;;) {
      const page = await this.db
        .selectFrom('audit_log')
        .select(['id', 'details'])
        .where('action', '=', 'workflow.approval')
        .where('at', '>=', `${dayKey(fromMs)}T00:00:00.000Z`)
        .where('at', '<', `${until}T00:00:00.000Z`)
        .where('id', '>', after)
        .orderBy('id')
        .limit(500)
        .execute()
      for (const row of page) {
        const details = JSON.parse(row.details) as { waited_s?: unknown; starter_id?: unknown; agent_id?: unknown }
        if (typeof details.waited_s !== 'number') continue
        if (scope.userId !== null && details.starter_id !== scope.userId) continue
        if (scope.agent !== null && details.agent_id !== scope.agent.id) continue
        waits.push(details.waited_s)
      }
      if (page.length < 500) break
      after = page.at(-1)!.id
      await yieldToEventLoop()
    }
    return { waiting: Number(waiting.count), median_decision_s: median(waits) }
  }
}
