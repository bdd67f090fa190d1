// The insights figures for a scope and a range of UTC days, read from the rollups of migrations 0006, 0008 and 0011 (never
// from interaction rows, except one member's calls through one agent) in rounds of days. Runs in the insights worker
// (insights-worker.ts) on its own read-only connection, so the request thread only waits.
import type { CompiledQuery, Kysely } from 'kysely'
import { readTogether } from '../../platform/db/compiled-query.ts'
import { kindOf } from '../../platform/db/dialect.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { RunStatus } from '../../platform/db/tables/workflows.ts'
import { median, nearestRank } from './percentiles.ts'
import {
  agentActiveDays,
  agentDayDurations,
  agentDayTools,
  APPROVAL_PAGE,
  approvalDecisions,
  type BucketCount,
  type DayCalls,
  type DayCount,
  type DayKindCount,
  organisationActiveDays,
  organisationDayDurations,
  organisationDayKinds,
  organisationDayTools,
  organisationMonthDurations,
  organisationMonthTools,
  quietDaysQuery,
  runCountsQuery,
  type ToolCount,
  userDayDurations,
  userDayKinds,
  userDayCalls,
  userDayTools,
  userDurations,
  userMonthDurations,
  userMonthTools,
  userTools,
  waitingGatesQuery,
} from './rollup-queries.ts'

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
 * Days read per round of queries; between rounds the worker may rest (insights-worker.ts). It starts at a month and
 * adapts: a round that took under CHUNK_FAST_MS doubles the next one (a member's year is four rounds), one over
 * CHUNK_SLOW_MS halves it, so each round takes a few milliseconds whatever the data.
 */
const FIRST_CHUNK_DAYS = 31
const MAX_CHUNK_DAYS = 366
const CHUNK_FAST_MS = 1.5
const CHUNK_SLOW_MS = 4
const TOP = 10
const STATUSES: readonly RunStatus[] = ['running', 'waiting_human', 'succeeded', 'failed', 'rejected', 'cancelled']

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))
export const dayKey = (ms: number) => new Date(ms).toISOString().slice(0, 10)

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
  // Per day of the range, by index: calls of each kind, and active users.
  const dates: string[] = []
  for (let ms = fromMs; ms <= toMs; ms += DAY_MS) dates.push(dayKey(ms))
  const indexOf = new Map(dates.map((date, index) => [date, index]))
  const mcpCalls = new Float64Array(dates.length)
  const apiCalls = new Float64Array(dates.length)
  const active = new Float64Array(dates.length)
  const tools = new Map<string, { tool_name: string; mcp_server_name: string; count: number }>()
  const applications = new Map<string, number>()
  const durations = new Map<number, number>()
  const runs = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>
  let total = 0
  let errors = 0

  const user = scope.userId
  const agent = scope.agent
  const countDay = (row: DayKindCount) => {
    const n = Number(row.n)
    if (n <= 0) return
    const index = indexOf.get(row.day)
    if (index === undefined) return
    if (row.kind === 'mcp_tool') mcpCalls[index]! += n
    else apiCalls[index]! += n
    total += n
  }
  const setActive = (row: { day: string; count: number }) => {
    const index = indexOf.get(row.day)
    if (index !== undefined) active[index] = Number(row.count)
  }
  const countTool = (row: ToolCount) => {
    const n = Number(row.n)
    if (n <= 0) return
    if (row.kind === 'mcp_tool') {
      const key = `${row.api_title}\n${row.action}`
      const tool = tools.get(key) ?? { tool_name: row.action, mcp_server_name: row.api_title, count: 0 }
      tool.count += n
      tools.set(key, tool)
    } else applications.set(row.api_title, (applications.get(row.api_title) ?? 0) + n)
  }
  const countDurations = (rows: BucketCount[]) => {
    for (const row of rows) {
      const n = Number(row.n)
      if (n > 0) durations.set(row.bucket, (durations.get(row.bucket) ?? 0) + n)
    }
  }

  const countWhole = (toolRows: ToolCount[], durationRows: BucketCount[]) => {
    for (const row of toolRows) {
      countTool(row)
      // The organisation's failures come from its (day, kind) rollup, a member's from their tools.
      if (user !== null) errors += Number(row.errors)
    }
    countDurations(durationRows)
  }
  const countDays = (dayRows: (DayKindCount & { errors?: number })[], runRows: { status: RunStatus; count: number }[], activeRows: DayCount[]) => {
    for (const row of dayRows) {
      countDay(row)
      if (user === null) errors += Number(row.errors)
    }
    for (const row of activeRows) setActive(row)
    for (const row of runRows) runs[row.status] += Number(row.count)
  }

  // Whole calendar months come from the monthly rollups, or all of a member's stored interactions from their totals:
  // tools (and, for a member, failures) and durations.
  //
  // On PostgreSQL (without an agent) every statement is a round trip to another process, and what the range costs
  // there is mostly their number: so the whole range is read in one pass, one statement. Its per-day series (the
  // organisation's two rows a day; a member's one, summed over titles in the query), runs, active users, waiting
  // gates and first page of decisions do not depend on which months are whole; the monthly or all-time reads do, so
  // they are read for the usual answer (every coverage question quiet: "the last year" under a year's retention) in
  // the same statement, and read again only when the answers say otherwise. What is left for rounds are the tools and
  // durations of the days outside whole months (at most the two end months), usually none.
  const onePass = agent === null && kindOf(db) === 'postgres'
  let whole: WholeMonths | null = null
  let prefetched: PrefetchedApprovals | undefined
  let readBefore = false
  let took = 0
  if (onePass) {
    const range = { first: dayKey(fromMs), last: dayKey(toMs), user }
    const questions = coverageQuestions(db, user, fromMs, toMs)
    const guess = wholeMonthsOf(user, fromMs, toMs, new Map())
    const guessReads = guess ? wholeReads(db, user, guess) : []
    const [gatesRead, firstPageRead] = approvalReads(db, scope, fromMs, toMs)
    const reads: CompiledQuery<unknown>[] = [
      ...questions.map(([, query]) => query),
      ...guessReads,
      user === null ? organisationDayKinds.query(db, range) : userDayCalls.query(db, range),
      runCountsQuery(db, range, null),
      gatesRead,
      firstPageRead,
    ]
    if (user === null) reads.push(organisationActiveDays.query(db, range))
    const answers = (await readTogether(db, reads)) as unknown[][]
    const began = performance.now()
    let next = 0
    const quiet = new Map(questions.map(([name]) => [name, answers[next++]!.length === 0]))
    whole = wholeMonthsOf(user, fromMs, toMs, quiet)
    const guessed = guessReads.map(() => answers[next++]!)
    const dayRows = answers[next++]!
    const runRows = answers[next++] as { status: RunStatus; count: number }[]
    prefetched = { gates: answers[next++] as { count: number }[], firstPage: answers[next++] as { id: string; details: string }[] }
    if (user === null) countDays(dayRows as (DayKindCount & { errors: number })[], runRows, answers[next++] as DayCount[])
    else {
      for (const row of dayRows as DayCalls[]) {
        countDay({ day: row.day, kind: 'mcp_tool', n: Number(row.mcp_tool) })
        countDay({ day: row.day, kind: 'api_action', n: Number(row.api_action) })
      }
      countDays([], runRows, [])
    }
    if (whole !== null) {
      const [toolRows, durationRows] = sameMonths(guess, whole) ? guessed : await readTogether(db, wholeReads(db, user, whole))
      countWhole(toolRows as ToolCount[], durationRows as BucketCount[])
    }
    took = performance.now() - began
    readBefore = true
  } else {
    whole = agent === null ? await coverage(db, user, fromMs, toMs) : null
    if (whole) {
      const [toolRows, durationRows] = await readTogether(db, wholeReads(db, user, whole))
      countWhole(toolRows as ToolCount[], durationRows as BucketCount[])
    }
  }
  let chunkDays = FIRST_CHUNK_DAYS
  // On PostgreSQL a round's reads are a round trip to another process, which holds neither this thread nor the
  // database's lock on anything: what a round costs here is the work on its rows, timed from their arrival. Timed
  // from before the read, every round trip under load (a few ms) kept the chunks at a month or halved them, and a
  // member's year took a dozen round trips instead of four.
  const timedFromArrival = kindOf(db) === 'postgres'
  for (let start = fromMs; start <= toMs; ) {
    const days = { first: dayKey(start), last: dayKey(Math.min(start + (chunkDays - 1) * DAY_MS, toMs)), user }
    const parts = agent === null ? outside(days.first, days.last, whole).map(([first, last]) => ({ first, last, user })) : []
    if (onePass && parts.length === 0) {
      // Read in the one pass: nothing of these days is left.
      start += chunkDays * DAY_MS
      continue
    }
    if (readBefore) await betweenRounds(took)
    readBefore = true
    let began = performance.now()
    if (agent !== null) {
      // One agent: its tool rows hold everything (per day, failures, tools); the histogram has no monthly rollup.
      for (const row of await agentDayTools(db, days, agent.name)) {
        countDay(row)
        errors += Number(row.errors)
        countTool(row)
      }
      countDurations(await agentDayDurations(db, days, agent.name))
      if (user === null) for (const row of await agentActiveDays(db, days, agent.name)) setActive(row)
      for (const row of (await db.executeQuery(runCountsQuery(db, days, agent.id))).rows) runs[row.status] += Number(row.count)
    } else {
      // The round's reads in one round trip (PostgreSQL; readTogether): per day and kind, the tools and durations of
      // the days outside whole months, who was active (only the organisation asks: one person is active on the days
      // they made calls, which the per-day counts already know), and the runs. After the one pass, only the tools
      // and durations.
      const reads: CompiledQuery<unknown>[] = onePass
        ? []
        : [(user === null ? organisationDayKinds : userDayKinds).query(db, days), runCountsQuery(db, days, null)]
      for (const span of parts)
        reads.push(
          (user === null ? organisationDayTools : userDayTools).query(db, span),
          (user === null ? organisationDayDurations : userDayDurations).query(db, span),
        )
      if (user === null && !onePass) reads.push(organisationActiveDays.query(db, days))
      const answers = (await readTogether(db, reads)) as unknown[][]
      if (timedFromArrival) began = performance.now()
      if (!onePass) {
        const [dayRows, runRows] = answers.splice(0, 2)
        const activeRows = user === null ? answers.pop()! : []
        countDays(dayRows as (DayKindCount & { errors?: number })[], runRows as { status: RunStatus; count: number }[], activeRows as DayCount[])
      }
      for (let i = 0; i < answers.length; i += 2) {
        for (const row of answers[i] as ToolCount[]) {
          countTool(row)
          if (user !== null) errors += Number(row.errors)
        }
        countDurations(answers[i + 1] as BucketCount[])
      }
    }
    took = performance.now() - began
    start += chunkDays * DAY_MS
    if (took < CHUNK_FAST_MS) chunkDays = Math.min(MAX_CHUNK_DAYS, chunkDays * 2)
    else if (took > CHUNK_SLOW_MS) chunkDays = Math.max(1, Math.floor(chunkDays / 2))
  }

  if (user !== null) for (let index = 0; index < dates.length; index++) active[index] = mcpCalls[index]! + apiCalls[index]! > 0 ? 1 : 0
  return {
    from: dayKey(fromMs),
    to: dayKey(toMs),
    interactions_per_day: dates.map((date, index) => ({
      date,
      mcp_tool: mcpCalls[index]!,
      api_action: apiCalls[index]!,
      total: mcpCalls[index]! + apiCalls[index]!,
    })),
    top_tools: [...tools.values()].sort(byCountThenName((tool) => `${tool.mcp_server_name}\n${tool.tool_name}`)).slice(0, TOP),
    top_applications: [...applications]
      .map(([api_title, count]) => ({ api_title, count }))
      .sort(byCountThenName((app) => app.api_title))
      .slice(0, TOP),
    error_rate: total === 0 ? null : Math.round((errors / total) * 10_000) / 10_000,
    duration_ms: { p50: nearestRank(durations, 50), p95: nearestRank(durations, 95) },
    active_users_per_day: dates.map((date, index) => ({ date, count: active[index]! })),
    workflow_runs: runs,
    approvals: await approvals(db, scope, fromMs, toMs, prefetched),
  }
}

/** The waiting gates and the first page of decisions, read with the one pass (PostgreSQL). */
interface PrefetchedApprovals {
  gates: { count: number }[]
  firstPage: { id: string; details: string }[]
}

const approvalBounds = (fromMs: number, toMs: number) => ({
  since: `${dayKey(fromMs)}T00:00:00.000Z`,
  until: `${dayKey(toMs + DAY_MS)}T00:00:00.000Z`,
})

/** The queries of the waiting gates and of the first page of decisions in the days. */
function approvalReads(db: Kysely<Database>, scope: InsightsScope, fromMs: number, toMs: number) {
  return [waitingGatesQuery(db, scope.userId, scope.agent?.id ?? null), approvalDecisions.query(db, { ...approvalBounds(fromMs, toMs), after: '' })] as const
}

/** Gates waiting now, and the median wait of the decisions taken in the days (from the audit log). */
async function approvals(
  db: Kysely<Database>,
  scope: InsightsScope,
  fromMs: number,
  toMs: number,
  prefetched?: PrefetchedApprovals,
): Promise<Insights['approvals']> {
  const waits: number[] = []
  const { since, until } = approvalBounds(fromMs, toMs)
  // The gates waiting and the first page of decisions in one round trip (PostgreSQL), unless read with the one pass.
  const [[gates], firstPage] = prefetched ? [prefetched.gates, prefetched.firstPage] : await readTogether(db, approvalReads(db, scope, fromMs, toMs))
  const waiting = Number(gates?.count ?? 0)
  let after = ''
  // Decisions a page at a time (ids grow with time), a turn of the event loop between pages.
  for (let page = firstPage; ; page = await approvalDecisions(db, { since, until, after })) {
    for (const row of page) {
      const details = JSON.parse(row.details) as { waited_s?: unknown; starter_id?: unknown; agent_id?: unknown }
      if (typeof details.waited_s !== 'number') continue
      if (scope.userId !== null && details.starter_id !== scope.userId) continue
      if (scope.agent !== null && details.agent_id !== scope.agent.id) continue
      waits.push(details.waited_s)
    }
    if (page.length < APPROVAL_PAGE) break
    // The page's last id, whatever order a page read with others came back in.
    for (const row of page) if (row.id > after) after = row.id
    await yieldToEventLoop()
  }
  return { waiting, median_decision_s: median(waits) }
}

interface WholeMonths {
  firstMonth: string
  lastMonth: string
  /** The first and last day of the range they stand for. */
  firstDay: string
  lastDay: string
  /** A member's totals stand for the whole range (no month is read). */
  allTime: boolean
}

/**
 * What the monthly rollups can stand for in [fromMs, toMs] (UTC days), or null when nothing: the calendar months wholly
 * inside, and a month at either end when its days outside the range hold no interaction (asked of the daily rollup).
 * So "the last 365 days", whose first month was pruned by retention and whose last ends today, reads thirteen months
 * and no day of tools or durations. For a member with no interaction before or after the range, their totals.
 */
async function coverage(db: Kysely<Database>, user: string | null, fromMs: number, toMs: number): Promise<WholeMonths | null> {
  // Every question asked at once (one round trip on PostgreSQL).
  const asked = coverageQuestions(db, user, fromMs, toMs)
  const answers = await readTogether(
    db,
    asked.map(([, query]) => query),
  )
  return wholeMonthsOf(user, fromMs, toMs, new Map(asked.map(([name], i) => [name, answers[i]!.length === 0])))
}

type CoverageQuestion = 'everBefore' | 'everAfter' | 'startMonth' | 'endMonth'

/**
 * What coverage asks, each a query that answers no row when the days are quiet: whether the member has calls before or
 * after the range, and whether the days of the end months outside it hold any. Only the questions the range raises.
 */
function coverageQuestions(db: Kysely<Database>, user: string | null, fromMs: number, toMs: number): [CoverageQuestion, CompiledQuery<{ day: string }>][] {
  const { start, end } = monthsAround(fromMs, toMs)
  const before = dayKey(fromMs - DAY_MS)
  const after = dayKey(toMs + DAY_MS)
  const questions: Record<CoverageQuestion, CompiledQuery<{ day: string }> | null> = {
    everBefore: user === null ? null : quietDaysQuery(db, { first: '0000-01-01', last: before, user }),
    everAfter: user === null ? null : quietDaysQuery(db, { first: after, last: '9999-12-31', user }),
    startMonth: start < fromMs ? quietDaysQuery(db, { first: dayKey(start), last: before, user }) : null,
    endMonth: end > toMs ? quietDaysQuery(db, { first: after, last: dayKey(end), user }) : null,
  }
  return Object.entries(questions).filter((entry): entry is [CoverageQuestion, CompiledQuery<{ day: string }>] => entry[1] !== null)
}

/** The first day of the range's first month and the last day of its last month. */
function monthsAround(fromMs: number, toMs: number): { start: number; end: number } {
  const from = new Date(fromMs)
  const to = new Date(toMs)
  return { start: Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1), end: Date.UTC(to.getUTCFullYear(), to.getUTCMonth() + 1, 1) - DAY_MS }
}

/** The whole months given which questions found their days quiet (a question not in `quiet` counts as quiet). */
function wholeMonthsOf(user: string | null, fromMs: number, toMs: number, quiet: ReadonlyMap<CoverageQuestion, boolean>): WholeMonths | null {
  const from = new Date(fromMs)
  const to = new Date(toMs)
  let { start, end } = monthsAround(fromMs, toMs)
  if (user !== null && quiet.get('everBefore') !== false && quiet.get('everAfter') !== false)
    return { firstMonth: '', lastMonth: '', firstDay: dayKey(fromMs), lastDay: dayKey(toMs), allTime: true }
  if (quiet.get('startMonth') === false) start = Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1)
  if (quiet.get('endMonth') === false) end = Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), 1) - DAY_MS
  if (start > end) return null
  return {
    firstMonth: dayKey(start).slice(0, 7),
    lastMonth: dayKey(end).slice(0, 7),
    firstDay: dayKey(Math.max(start, fromMs)),
    lastDay: dayKey(Math.min(end, toMs)),
    allTime: false,
  }
}

const sameMonths = (a: WholeMonths | null, b: WholeMonths) =>
  a !== null && a.allTime === b.allTime && a.firstMonth === b.firstMonth && a.lastMonth === b.lastMonth

/** The tools and the duration histogram that the whole months (or a member's totals) stand for. */
function wholeReads(db: Kysely<Database>, user: string | null, whole: WholeMonths): [CompiledQuery<ToolCount>, CompiledQuery<BucketCount>] {
  const months = { first: whole.firstMonth, last: whole.lastMonth, user }
  if (user === null) return [organisationMonthTools.query(db, months), organisationMonthDurations.query(db, months)]
  return whole.allTime
    ? [userTools.query(db, months), userDurations.query(db, months)]
    : [userMonthTools.query(db, months), userMonthDurations.query(db, months)]
}

/** The parts of the days [first, last] outside the whole months (zero, one or two ranges). */
function outside(first: string, last: string, whole: WholeMonths | null): [string, string][] {
  if (!whole || last < whole.firstDay || first > whole.lastDay) return [[first, last]]
  const parts: [string, string][] = []
  if (first < whole.firstDay) parts.push([first, dayKey(Date.parse(`${whole.firstDay}T00:00:00Z`) - DAY_MS)])
  if (last > whole.lastDay) parts.push([dayKey(Date.parse(`${whole.lastDay}T00:00:00Z`) + DAY_MS), last])
  return parts
}
