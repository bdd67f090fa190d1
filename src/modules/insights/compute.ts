// The insights figures for a scope and a range of UTC days, read from the rollups of migrations 0006 and 0008 (never
// from interaction rows, except one member's calls through one agent) in rounds of days. Runs in the insights worker
// (insights-worker.ts) on its own read-only connection, so the request thread only waits.
import type { Kysely } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import type { RunStatus } from '../../platform/db/tables/workflows.ts'
import { durationBucket, median, nearestRank } from './percentiles.ts'

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

export const DAY_MS = 86_400_000
/**
 * Days read per round of queries, with a turn of the event loop between rounds. It starts at a week and adapts: a round
 * that took under CHUNK_FAST_MS doubles the next one (a member's year is a few rounds, not fifty), one over
 * CHUNK_SLOW_MS halves it, so each round holds the server for a few milliseconds whatever the data.
 */
const FIRST_CHUNK_DAYS = 7
const MAX_CHUNK_DAYS = 128
const CHUNK_FAST_MS = 1.5
const CHUNK_SLOW_MS = 4
const TOP = 10
const STATUSES: readonly RunStatus[] = ['running', 'waiting_human', 'succeeded', 'failed', 'rejected', 'cancelled']

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
export const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10)

interface ToolRow {
  day: string
  kind: 'mcp_tool' | 'api_action'
  api_title: string
  action: string
  n: number
  errors: number
}

export interface InsightsScope {
  /** null: the organisation. */
  userId: string | null
  /** The agent's id and name, when filtered by agent. */
  agent: { id: string; name: string } | null
}

const byCountThenName =
  <T extends { count: number }>(key: (item: T) => string) =>
  (a: T, b: T) =>
    b.count - a.count || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)

/** Between rounds: how long to wait after a round that took `tookMs` (the worker throttles; default: a turn). */
export type BetweenRounds = (tookMs: number) => Promise<void>

export async function computeInsights(
  db: Kysely<Database>,
  scope: InsightsScope,
  fromMs: number,
  toMs: number,
  betweenRounds: BetweenRounds = () => yieldToEventLoop(),
): Promise<Insights> {
  const perDay = new Map<string, { mcp_tool: number; api_action: number }>()
  const active = new Map<string, number>()
  const tools = new Map<string, { tool_name: string; mcp_server_name: string; count: number }>()
  const applications = new Map<string, number>()
  const durations = new Map<number, number>()
  const runs = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>
  let total = 0
  let errors = 0

  const organisationWide = scope.userId === null && scope.agent === null
  const countTool = (row: { kind: string; api_title: string; action: string; n: number }) => {
    const n = Number(row.n)
    if (n <= 0) return
    if (row.kind === 'mcp_tool') {
      const key = `${row.api_title}\n${row.action}`
      const tool = tools.get(key) ?? { tool_name: row.action, mcp_server_name: row.api_title, count: 0 }
      tool.count += n
      tools.set(key, tool)
    } else applications.set(row.api_title, (applications.get(row.api_title) ?? 0) + n)
  }
  const whole = scope.agent === null ? wholeMonths(fromMs, toMs) : null
  if (whole && organisationWide) for (const row of await monthlyToolRows(db, whole.firstMonth, whole.lastMonth)) countTool(row)
  if (whole)
    for (const row of await monthlyDurationRows(db, scope, whole.firstMonth, whole.lastMonth)) {
      const n = Number(row.n)
      if (n > 0) durations.set(row.bucket, (durations.get(row.bucket) ?? 0) + n)
    }
  let chunkDays = FIRST_CHUNK_DAYS
  let took = 0
  for (let start = fromMs; start <= toMs; ) {
    if (start > fromMs) await betweenRounds(took)
    const began = performance.now()
    const first = dayKey(start)
    const last = dayKey(Math.min(start + (chunkDays - 1) * DAY_MS, toMs))
    if (organisationWide) {
      // The per-day figures from (day, kind); tools and applications of the days outside whole months.
      for (const row of await dailyKindRows(db, first, last)) {
        const n = Number(row.n)
        if (n <= 0) continue
        const day = perDay.get(row.day) ?? { mcp_tool: 0, api_action: 0 }
        day[row.kind] += n
        perDay.set(row.day, day)
        total += n
        errors += Number(row.errors)
      }
      for (const [from, to] of outside(first, last, whole)) for (const row of await toolRows(db, scope, from, to)) countTool(row)
    } else {
      for (const row of await toolRows(db, scope, first, last)) {
        const n = Number(row.n)
        if (n <= 0) continue
        const day = perDay.get(row.day) ?? { mcp_tool: 0, api_action: 0 }
        day[row.kind] += n
        perDay.set(row.day, day)
        total += n
        errors += Number(row.errors)
        countTool(row)
      }
    }
    // Durations of whole months come from the monthly histogram (below); only the days outside them are read here.
    for (const [from, to] of outside(first, last, whole))
      for (const row of await durationRows(db, scope, from, to)) {
        const n = Number(row.n)
        if (n > 0) durations.set(row.bucket, (durations.get(row.bucket) ?? 0) + n)
      }
    // One person is active on the days they made calls, which perDay already knows; only the organisation asks.
    if (scope.userId === null)
      for (const row of await (organisationWide ? dailyActiveRows(db, first, last) : agentActiveRows(db, scope.agent!.name, first, last)))
        active.set(row.day, Number(row.count))
    for (const row of await runRows(db, scope, first, last)) runs[row.status] += Number(row.count)
    took = performance.now() - began
    start += chunkDays * DAY_MS
    if (took < CHUNK_FAST_MS) chunkDays = Math.min(MAX_CHUNK_DAYS, chunkDays * 2)
    else if (took > CHUNK_SLOW_MS) chunkDays = Math.max(1, Math.floor(chunkDays / 2))
  }

  const days: string[] = []
  for (let ms = fromMs; ms <= toMs; ms += DAY_MS) days.push(dayKey(ms))
  if (scope.userId !== null) for (const [day, counts] of perDay) if (counts.mcp_tool + counts.api_action > 0) active.set(day, 1)
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
    approvals: await approvals(db, scope, fromMs, toMs),
  }
}

/** Calls and failures per tool or operation and day; for one agent, the calls made through its MCP server. */
async function toolRows(db: Kysely<Database>, scope: InsightsScope, first: string, last: string): Promise<ToolRow[]> {
  const agent = scope.agent?.name
  if (scope.userId === null)
    return db
      .selectFrom('interaction_daily_tools')
      .select(['day', 'kind', 'api_title', 'action', 'n', 'errors'])
      .where('day', '>=', first)
      .where('day', '<=', last)
      .$if(agent !== undefined, (qb) => qb.where('kind', '=', 'mcp_tool').where('api_title', '=', agent!))
      .execute()
  return db
    .selectFrom('interaction_user_daily_tools')
    .select(['day', 'kind', 'api_title', 'action', 'n', 'errors'])
    .where('user_id', '=', scope.userId)
    .where('day', '>=', first)
    .where('day', '<=', last)
    .$if(agent !== undefined, (qb) => qb.where('kind', '=', 'mcp_tool').where('api_title', '=', agent!))
    .execute()
}

/** The duration histogram of the days: bucket → calls. */
async function durationRows(db: Kysely<Database>, scope: InsightsScope, first: string, last: string): Promise<{ bucket: number; n: number }[]> {
  const agent = scope.agent?.name
  if (scope.userId === null && agent === undefined)
    return db
      .selectFrom('interaction_daily_durations')
      .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
      .where('day', '>=', first)
      .where('day', '<=', last)
      .groupBy('bucket')
      .execute()
  if (scope.userId === null)
    return db
      .selectFrom('interaction_title_daily_durations')
      .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
      .where('api_title', '=', agent!)
      .where('day', '>=', first)
      .where('day', '<=', last)
      .groupBy('bucket')
      .execute()
  if (agent === undefined)
    return db
      .selectFrom('interaction_user_daily_durations')
      .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
      .where('user_id', '=', scope.userId)
      .where('day', '>=', first)
      .where('day', '<=', last)
      .groupBy('bucket')
      .execute()
  // One member's calls through one agent: no rollup keeps that pair (it would hold as many rows as calls), so their
  // own rows are read, a week at a time like everything else, through the (user, time, title) index.
  const rows = await db
    .selectFrom('interactions')
    .select('duration_seconds')
    .where('user_id', '=', scope.userId)
    .where('created_at', '>=', `${first}T00:00:00.000Z`)
    .where('created_at', '<', `${last}T99`)
    .where('api_title', '=', agent)
    .where('kind', '=', 'mcp_tool')
    .where('duration_seconds', 'is not', null)
    .execute()
  const histogram = new Map<number, number>()
  for (const row of rows) {
    const bucket = durationBucket(row.duration_seconds! * 1000)
    histogram.set(bucket, (histogram.get(bucket) ?? 0) + 1)
  }
  return [...histogram].map(([bucket, n]) => ({ bucket, n }))
}

/** How many people called the agent's MCP server, per day. */
function agentActiveRows(db: Kysely<Database>, agentName: string, first: string, last: string): Promise<{ day: string; count: number }[]> {
  return db
    .selectFrom('interaction_user_daily_tools')
    .select((eb) => ['day', eb.fn.count<number>('user_id').distinct().as('count')])
    .where('day', '>=', first)
    .where('day', '<=', last)
    .where('api_title', '=', agentName)
    .where('kind', '=', 'mcp_tool')
    .where('n', '>', 0)
    .groupBy('day')
    .execute()
}

/** Runs started in the days, by their status now (runs recorded with `disabled` are kept only while they wait). */
function runRows(db: Kysely<Database>, scope: InsightsScope, first: string, last: string) {
  return db
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
async function approvals(db: Kysely<Database>, scope: InsightsScope, fromMs: number, toMs: number): Promise<Insights['approvals']> {
  const waiting = await db
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
    const page = await db
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

interface WholeMonths {
  firstMonth: string
  lastMonth: string
  /** The first and last day they cover. */
  firstDay: string
  lastDay: string
}

/** The calendar months wholly inside [fromMs, toMs] (UTC days), or null when there is none. */
function wholeMonths(fromMs: number, toMs: number): WholeMonths | null {
  const from = new Date(fromMs)
  const start = from.getUTCDate() === 1 ? fromMs : Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1)
  const to = new Date(toMs)
  const nextDay = new Date(toMs + DAY_MS)
  const end = nextDay.getUTCDate() === 1 ? toMs : Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), 1) - DAY_MS
  if (start > end) return null
  return { firstMonth: dayKey(start).slice(0, 7), lastMonth: dayKey(end).slice(0, 7), firstDay: dayKey(start), lastDay: dayKey(end) }
}

/** The parts of the days [first, last] outside the whole months (zero, one or two ranges). */
function outside(first: string, last: string, whole: WholeMonths | null): [string, string][] {
  if (!whole || last < whole.firstDay || first > whole.lastDay) return [[first, last]]
  const parts: [string, string][] = []
  if (first < whole.firstDay) parts.push([first, dayKey(Date.parse(`${whole.firstDay}T00:00:00Z`) - DAY_MS)])
  if (last > whole.lastDay) parts.push([dayKey(Date.parse(`${whole.lastDay}T00:00:00Z`) + DAY_MS), last])
  return parts
}

/** The duration histogram of whole months, for the organisation or one user. */
function monthlyDurationRows(db: Kysely<Database>, scope: InsightsScope, firstMonth: string, lastMonth: string): Promise<{ bucket: number; n: number }[]> {
  if (scope.userId === null)
    return db
      .selectFrom('interaction_monthly_durations')
      .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
      .where('month', '>=', firstMonth)
      .where('month', '<=', lastMonth)
      .groupBy('bucket')
      .execute()
  return db
    .selectFrom('interaction_user_monthly_durations')
    .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
    .where('user_id', '=', scope.userId)
    .where('month', '>=', firstMonth)
    .where('month', '<=', lastMonth)
    .groupBy('bucket')
    .execute()
}

/** The organisation's calls and failures per day and kind. */
function dailyKindRows(db: Kysely<Database>, first: string, last: string) {
  return db.selectFrom('interaction_daily_kinds').select(['day', 'kind', 'n', 'errors']).where('day', '>=', first).where('day', '<=', last).execute()
}

/** The organisation's calls per tool or operation over whole months. */
function monthlyToolRows(db: Kysely<Database>, firstMonth: string, lastMonth: string) {
  return db
    .selectFrom('interaction_monthly_tools')
    .select((eb) => ['kind', 'api_title', 'action', eb.fn.sum<number>('n').as('n')])
    .where('month', '>=', firstMonth)
    .where('month', '<=', lastMonth)
    .groupBy(['kind', 'api_title', 'action'])
    .execute()
}

/** How many people made at least one call, per day, for the organisation. */
function dailyActiveRows(db: Kysely<Database>, first: string, last: string): Promise<{ day: string; count: number }[]> {
  return db
    .selectFrom('interaction_daily_active')
    .select((eb) => ['day', eb.fn.countAll<number>().as('count')])
    .where('day', '>=', first)
    .where('day', '<=', last)
    .where('n', '>', 0)
    .groupBy('day')
    .execute()
}
