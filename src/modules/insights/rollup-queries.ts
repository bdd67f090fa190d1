// The reads behind insights: the rollups of migrations 0006, 0008 and 0011, and the workflow tables. The queries of the
// organisation and of a member (what the console and most clients ask) are compiled once: a member's year is a dozen
// small reads, and building each with Kysely cost about as much as SQLite took to answer it. The rarer reads for one
// agent are built per request.
import { type Compilable, type CompiledQuery, type Kysely, sql } from 'kysely'
import { compileOnce } from '../../platform/db/compiled-query.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { InteractionKind } from '../../platform/db/tables/interactions.ts'
import type { RunStatus } from '../../platform/db/tables/workflows.ts'
import { durationBucket } from './percentiles.ts'

/** A range of UTC days (`2026-11-01`) or calendar months (`2026-11`), inclusive, for the organisation or one user. */
export interface Span {
  first: string
  last: string
  /** Ignored by the organisation's reads. */
  user: string | null
}

export interface ToolCount {
  kind: InteractionKind
  api_title: string
  action: string
  n: number
  errors: number
}
export interface DayToolCount extends ToolCount {
  day: string
}
export interface DayKindCount {
  day: string
  kind: InteractionKind
  n: number
}
export interface BucketCount {
  bucket: number
  n: number
}
export interface DayCount {
  day: string
  count: number
}

/** The span's values as query parameters; `firstAt` and `lastAt` bound timestamps (ISO text) to its days. */
type Names = keyof Span | 'firstAt' | 'lastAt'
const NAMES: readonly Names[] = ['first', 'last', 'user', 'firstAt', 'lastAt']
const valuesOf = (span: Span) => ({ ...span, firstAt: `${span.first}T00:00:00.000Z`, lastAt: `${span.last}T99` })
/** A span's read: run it alone, or take its `query` to run it with others (readTogether). */
export interface SpanRead<Row> {
  (db: Kysely<Database>, span: Span): Promise<Row[]>
  query(db: Kysely<Database>, span: Span): CompiledQuery<Row>
}
const compiled = <Row>(build: (db: Kysely<Database>, p: Record<Names, string>) => Compilable<Row>): SpanRead<Row> => {
  const run = compileOnce<Database, Names, Row>(NAMES, build)
  return Object.assign((db: Kysely<Database>, span: Span) => run(db, valuesOf(span)), {
    query: (db: Kysely<Database>, span: Span) => run.query(db, valuesOf(span)),
  })
}

/** The organisation's calls and failures per day and kind. */
export const organisationDayKinds = compiled<DayKindCount & { errors: number }>((db, p) =>
  db.selectFrom('interaction_daily_kinds').select(['day', 'kind', 'n', 'errors']).where('day', '>=', p.first).where('day', '<=', p.last),
)

/** One user's calls per day and kind (summed over titles below, in code). */
export const userDayKinds = compiled<DayKindCount>((db, p) =>
  db
    .selectFrom('interaction_user_daily_usage')
    .select(['day', 'kind', 'n'])
    .where('user_id', '=', p.user)
    .where('day', '>=', p.first)
    .where('day', '<=', p.last),
)

/** Calls of each kind on one day. */
export interface DayCalls {
  day: string
  mcp_tool: number | null
  api_action: number | null
}
/**
 * One user's calls per day, each kind summed in the query (over titles): what a whole range read at once asks
 * (PostgreSQL's one pass, compute.ts), one row a day however many titles the user called. Grouped by day alone, the
 * rows come in the primary key's order and need no hash or sort.
 */
export const userDayCalls = compiled<DayCalls>((db, p) =>
  db
    .selectFrom('interaction_user_daily_usage')
    .select((eb) => [
      'day',
      eb.fn.sum<number | null>('n').filterWhere('kind', '=', sql.lit('mcp_tool')).as('mcp_tool'),
      eb.fn.sum<number | null>('n').filterWhere('kind', '=', sql.lit('api_action')).as('api_action'),
    ])
    .where('user_id', '=', p.user)
    .where('day', '>=', p.first)
    .where('day', '<=', p.last)
    .groupBy('day'),
)

/** Calls and failures per tool or operation and day. */
export const organisationDayTools = compiled<DayToolCount>((db, p) =>
  db.selectFrom('interaction_daily_tools').select(['day', 'kind', 'api_title', 'action', 'n', 'errors']).where('day', '>=', p.first).where('day', '<=', p.last),
)
export const userDayTools = compiled<DayToolCount>((db, p) =>
  db
    .selectFrom('interaction_user_daily_tools')
    .select(['day', 'kind', 'api_title', 'action', 'n', 'errors'])
    .where('user_id', '=', p.user)
    .where('day', '>=', p.first)
    .where('day', '<=', p.last),
)

/** Calls and failures per tool or operation over whole months. */
export const organisationMonthTools = compiled<ToolCount>((db, p) =>
  db
    .selectFrom('interaction_monthly_tools')
    .select((eb) => ['kind', 'api_title', 'action', eb.fn.sum<number>('n').as('n'), eb.fn.sum<number>('errors').as('errors')])
    .where('month', '>=', p.first)
    .where('month', '<=', p.last)
    .groupBy(['kind', 'api_title', 'action']),
)
export const userMonthTools = compiled<ToolCount>((db, p) =>
  db
    .selectFrom('interaction_user_monthly_tools')
    .select((eb) => ['kind', 'api_title', 'action', eb.fn.sum<number>('n').as('n'), eb.fn.sum<number>('errors').as('errors')])
    .where('user_id', '=', p.user)
    .where('month', '>=', p.first)
    .where('month', '<=', p.last)
    .groupBy(['kind', 'api_title', 'action']),
)

/** One user's calls and failures per tool or operation, all stored interactions. */
export const userTools = compiled<ToolCount>((db, p) =>
  db.selectFrom('interaction_user_tools').select(['kind', 'api_title', 'action', 'n', 'errors']).where('user_id', '=', p.user),
)

/** The duration histogram (bucket → calls) of days, of whole months, or of all of one user's interactions. */
export const organisationDayDurations = compiled<BucketCount>((db, p) =>
  db
    .selectFrom('interaction_daily_durations')
    .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
    .where('day', '>=', p.first)
    .where('day', '<=', p.last)
    .groupBy('bucket'),
)
// A member's histograms are a few thousand rows a year: read as they are and merged by the caller, which costs less
// than SQLite's GROUP BY sort.
export const userDayDurations = compiled<BucketCount>((db, p) =>
  db
    .selectFrom('interaction_user_daily_durations')
    .select(['bucket', 'n'])
    .where('user_id', '=', p.user)
    .where('day', '>=', p.first)
    .where('day', '<=', p.last),
)
export const organisationMonthDurations = compiled<BucketCount>((db, p) =>
  db
    .selectFrom('interaction_monthly_durations')
    .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
    .where('month', '>=', p.first)
    .where('month', '<=', p.last)
    .groupBy('bucket'),
)
export const userMonthDurations = compiled<BucketCount>((db, p) =>
  db
    .selectFrom('interaction_user_monthly_durations')
    .select(['bucket', 'n'])
    .where('user_id', '=', p.user)
    .where('month', '>=', p.first)
    .where('month', '<=', p.last),
)
export const userDurations = compiled<BucketCount>((db, p) => db.selectFrom('interaction_user_durations').select(['bucket', 'n']).where('user_id', '=', p.user))

/** Whether the days hold no interaction (of the organisation, or of the span's user). */
const organisationActivity = compiled<{ day: string }>((db, p) =>
  db.selectFrom('interaction_daily_kinds').select('day').where('day', '>=', p.first).where('day', '<=', p.last).where('n', '>', sql.lit(0)).limit(sql.lit(1)),
)
const userActivity = compiled<{ day: string }>((db, p) =>
  db
    .selectFrom('interaction_user_daily_usage')
    .select('day')
    .where('user_id', '=', p.user)
    .where('day', '>=', p.first)
    .where('day', '<=', p.last)
    .where('n', '>', sql.lit(0))
    .limit(sql.lit(1)),
)
/** Whether the days hold no interaction: the query answers no row. */
export const quietDaysQuery = (db: Kysely<Database>, span: Span): CompiledQuery<{ day: string }> =>
  (span.user === null ? organisationActivity : userActivity).query(db, span)

/** How many people made at least one call, per day, for the organisation. */
export const organisationActiveDays = compiled<DayCount>((db, p) =>
  db
    .selectFrom('interaction_daily_active')
    .select((eb) => ['day', eb.fn.countAll<number>().as('count')])
    .where('day', '>=', p.first)
    .where('day', '<=', p.last)
    .where('n', '>', sql.lit(0))
    .groupBy('day'),
)

/** Runs started in the days, by their status now (runs recorded with `disabled` are kept only while they wait). */
const runsBetween = (db: Kysely<Database>, p: Record<Names, string>) =>
  db
    .selectFrom('workflow_runs')
    .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
    .where('started_at', '>=', p.firstAt)
    .where('started_at', '<', p.lastAt)
    .groupBy('status')
type RunCount = { status: RunStatus; count: number }
const organisationRuns = compiled<RunCount>((db, p) => runsBetween(db, p))
const userRuns = compiled<RunCount>((db, p) => runsBetween(db, p).where('starter_id', '=', p.user))
export const runCountsQuery = (db: Kysely<Database>, span: Span, agentId: string | null): CompiledQuery<RunCount> => {
  if (agentId === null) return (span.user === null ? organisationRuns : userRuns).query(db, span)
  return runsBetween(db, { ...valuesOf(span), user: span.user ?? '' })
    .$if(span.user !== null, (qb) => qb.where('starter_id', '=', span.user!))
    .where('agent_id', '=', agentId)
    .compile()
}

/** Gates waiting now, of the organisation's runs, a user's, or one agent's. */
const waitingGatesOf = (db: Kysely<Database>) =>
  db
    .selectFrom('workflow_checkpoints as c')
    .innerJoin('workflow_runs as r', 'r.id', 'c.run_id')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('r.status', '=', sql.lit('waiting_human'))
const organisationWaitingGates = compiled<{ count: number }>((db) => waitingGatesOf(db))
const userWaitingGates = compiled<{ count: number }>((db, p) => waitingGatesOf(db).where('r.starter_id', '=', p.user))
export function waitingGatesQuery(db: Kysely<Database>, user: string | null, agentId: string | null): CompiledQuery<{ count: number }> {
  const span = { first: '', last: '', user }
  if (agentId === null) return (user === null ? organisationWaitingGates : userWaitingGates).query(db, span)
  return waitingGatesOf(db)
    .$if(user !== null, (qb) => qb.where('r.starter_id', '=', user!))
    .where('r.agent_id', '=', agentId)
    .compile()
}

/** Approval decisions recorded in [since, until) (ISO timestamps), by id after `after`, a page of 500. */
export const APPROVAL_PAGE = 500
export const approvalDecisions = compileOnce<Database, 'since' | 'until' | 'after', { id: string; details: string }>(['since', 'until', 'after'], (db, p) =>
  db
    .selectFrom('audit_log')
    .select(['id', 'details'])
    .where('action', '=', sql.lit('workflow.approval'))
    .where('at', '>=', p.since)
    .where('at', '<', p.until)
    .where('id', '>', p.after)
    .orderBy('id')
    .limit(sql.lit(APPROVAL_PAGE)),
)

// ------------------------------------------------------------------------------------------------ one agent

/** Calls and failures per tool and day through one agent's MCP server, for the organisation or one user. */
export function agentDayTools(db: Kysely<Database>, span: Span, agentName: string): Promise<DayToolCount[]> {
  const user = span.user
  if (user === null)
    return db
      .selectFrom('interaction_daily_tools')
      .select(['day', 'kind', 'api_title', 'action', 'n', 'errors'])
      .where('day', '>=', span.first)
      .where('day', '<=', span.last)
      .where('kind', '=', 'mcp_tool')
      .where('api_title', '=', agentName)
      .execute()
  return db
    .selectFrom('interaction_user_daily_tools')
    .select(['day', 'kind', 'api_title', 'action', 'n', 'errors'])
    .where('user_id', '=', user)
    .where('day', '>=', span.first)
    .where('day', '<=', span.last)
    .where('kind', '=', 'mcp_tool')
    .where('api_title', '=', agentName)
    .execute()
}

/** The duration histogram of the calls through one agent's MCP server. */
export async function agentDayDurations(db: Kysely<Database>, span: Span, agentName: string): Promise<BucketCount[]> {
  if (span.user === null)
    return db
      .selectFrom('interaction_title_daily_durations')
      .select((eb) => ['bucket', eb.fn.sum<number>('n').as('n')])
      .where('api_title', '=', agentName)
      .where('day', '>=', span.first)
      .where('day', '<=', span.last)
      .groupBy('bucket')
      .execute()
  // One member's calls through one agent: no rollup keeps that pair (it would hold as many rows as calls), so their
  // own rows are read, a round of days at a time like everything else, through the (user, time, title) index.
  const rows = await db
    .selectFrom('interactions')
    .select('duration_seconds')
    .where('user_id', '=', span.user)
    .where('created_at', '>=', `${span.first}T00:00:00.000Z`)
    .where('created_at', '<', `${span.last}T99`)
    .where('api_title', '=', agentName)
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
export function agentActiveDays(db: Kysely<Database>, span: Span, agentName: string): Promise<DayCount[]> {
  return db
    .selectFrom('interaction_user_daily_tools')
    .select((eb) => ['day', eb.fn.count<number>('user_id').distinct().as('count')])
    .where('day', '>=', span.first)
    .where('day', '<=', span.last)
    .where('api_title', '=', agentName)
    .where('kind', '=', 'mcp_tool')
    .where('n', '>', 0)
    .groupBy('day')
    .execute()
}
