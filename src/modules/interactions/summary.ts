// Interaction summaries: counts per time bucket, aggregated in SQL from the daily rollup (organisation) or the per-user index.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { forbidden, notFound, validationFailed, type ValidationIssue } from '../../platform/http/http-error.ts'
import { bucketCount, bucketKeys, DAY_MS, dayKey, defaultStart, parseInstant, type TimeFrame } from './buckets.ts'

export type SummaryType = 'api_usage' | 'total'

export interface SummaryRequest {
  summary_type?: SummaryType
  time_frame?: TimeFrame
  start_date?: string
  end_date?: string
  api_title?: string[]
  user_id?: string
}

/** Bucket key → counts per api_title (api_usage) or one count (total), oldest bucket first, every bucket present. */
export type Summary = Record<string, number | Record<string, number>>

/** Bounds the response (buckets × titles) and the work: about 2.7 years daily, 19 years weekly, 83 years monthly. */
export const MAX_BUCKETS = 1000
/** Buckets in the default range, when start_date is omitted. */
export const DEFAULT_BUCKETS: Readonly<Record<TimeFrame, number>> = Object.freeze({ daily: 30, weekly: 12, monthly: 12 })

/** The schema's own message for the same mistake: the schema's format check is looser, this is the rest of it. */
const INVALID_DATE = 'Input should be a valid date-time'

/** The rollup's day text → the bucket key, in SQL (the same keys buckets.ts lists). */
const BUCKET_OF_DAY: Readonly<Record<TimeFrame, RawBuilder<string>>> = {
  daily: sql<string>`d.day`,
  weekly: sql<string>`strftime('%G-W%V', d.day)`,
  monthly: sql<string>`substr(d.day, 1, 7)`,
}

interface BucketCount {
  bucket: string
  api_title: string
  n: number
}

interface Range {
  startMs: number
  endMs: number
}

/** Both dates are checked before either is used, so a request with two bad dates hears about both. */
function resolveRange(request: SummaryRequest, frame: TimeFrame, nowMs: number): Range {
  const issues: ValidationIssue[] = []
  const parse = (field: 'start_date' | 'end_date') => {
    const value = request[field]
    if (value === undefined) return undefined
    const ms = parseInstant(value)
    if (ms === null) issues.push({ loc: ['body', field], msg: INVALID_DATE, type: 'value_error', input: value })
    return ms ?? undefined
  }
  const start = parse('start_date')
  const end = parse('end_date')
  if (issues.length > 0) throw validationFailed(...issues)
  const endMs = end ?? nowMs
  const startMs = start ?? defaultStart(frame, endMs, DEFAULT_BUCKETS[frame])
  if (startMs > endMs) {
    const msg = end === undefined ? 'start_date must not be after end_date (now, when end_date is omitted)' : 'start_date must not be after end_date'
    throw validationFailed({ loc: ['body', 'start_date'], msg, type: 'value_error', input: request.start_date })
  }
  const count = bucketCount(frame, startMs, endMs)
  if (count > MAX_BUCKETS) {
    throw validationFailed({
      loc: ['body', 'end_date'],
      msg: `The range covers ${count} ${frame} buckets; at most ${MAX_BUCKETS} are allowed: narrow it or choose a coarser time_frame`,
      type: 'value_error',
      ctx: { max_buckets: MAX_BUCKETS },
    })
  }
  return { startMs, endMs }
}

export class SummaryService {
  readonly #db: Kysely<Database>
  readonly #clock: Clock

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db
    this.#clock = clock
  }

  /** The summary as an object, for callers inside the process. */
  async summarise(principal: Principal, request: SummaryRequest): Promise<Summary> {
    return JSON.parse(await this.summariseAsJson(principal, request))
  }

  /**
   * The summary as JSON text, for the HTTP response. Members count their own interactions; admins the organisation's,
   * or one user's with `user_id`. The range covers the whole UTC days from start_date's to end_date's, so a bucket's
   * count never depends on the time of day asked.
   */
  async summariseAsJson(principal: Principal, request: SummaryRequest): Promise<string> {
    const frame = request.time_frame ?? 'daily'
    const type = request.summary_type ?? 'api_usage'
    const { startMs, endMs } = resolveRange(request, frame, this.#clock.now())
    const userId = await this.#scope(principal, request.user_id)
    const titles = request.api_title ?? []
    const firstDay = dayKey(startMs)
    const lastDay = dayKey(endMs)

    // Per (day, api_title) counts: the rollup for the organisation, the covering (user_id, created_at, api_title) index for one user.
    const rollup = this.#db
      .selectFrom('interaction_daily_usage')
      .where('day', '>=', firstDay)
      .where('day', '<=', lastDay)
      .$if(titles.length > 0, (qb) => qb.where('api_title', 'in', titles))
    const daily =
      userId === null
        ? rollup.select(['day', 'api_title', 'n'])
        : this.#db
            .selectFrom('interactions')
            .select((eb) => [sql<string>`substr(created_at, 1, 10)`.as('day'), 'api_title', eb.fn.countAll<number>().as('n')])
            .where('user_id', '=', userId)
            .where('created_at', '>=', `${firstDay}T00:00:00.000Z`)
            .where('created_at', '<', `${dayKey(endMs + DAY_MS)}T00:00:00.000Z`)
            .$if(titles.length > 0, (qb) => qb.where('api_title', 'in', titles))
            .groupBy([sql`day`, 'api_title'])

    // One row per (bucket, api_title) with a count above 0. Rollup rows emptied by retention hold 0 until removed, and a
    // title with no interactions in a bucket is not listed.
    const bucket = BUCKET_OF_DAY[frame]
    const counts =
      userId === null && frame === 'daily'
        ? // Already one row per (day, title), in primary-key order: no grouping, so no sort.
          rollup.select(['day as bucket', 'api_title', 'n']).where('n', '>', 0).$castTo<BucketCount>()
        : this.#db
            .selectFrom(daily.as('d'))
            .select((eb) => [bucket.as('bucket'), 'd.api_title', eb.fn.sum<number>('d.n').as('n')])
            .groupBy([bucket, 'd.api_title'])
            .having((eb) => eb.fn.sum('d.n'), '>', 0)
            .$castTo<BucketCount>()

    // One row per non-empty bucket, its value already JSON (SQLite's json_group_object escapes the titles): the response
    // is stitched from at most MAX_BUCKETS short strings, never from one JavaScript object per (day, title).
    const value: RawBuilder<number | string> = type === 'total' ? sql<number>`sum(c.n)` : sql<string>`json_group_object(c.api_title, c.n)`
    const rows = await this.#db
      .selectFrom(counts.as('c'))
      .select([sql<string>`c.bucket`.as('bucket'), value.as('value')])
      .groupBy(sql`c.bucket`)
      .execute()
    const keys = bucketKeys(frame, startMs, endMs)
    const values = new Map<string, string | number>(rows.map((row) => [row.bucket, row.value]))
    const empty = type === 'total' ? '0' : '{}'
    // Bucket keys are digits, dashes and W: nothing to escape.
    return `{${keys.map((key) => `"${key}":${values.get(key) ?? empty}`).join(',')}}`
  }

  /** Whose interactions to count: null means the organisation's (admins without user_id). */
  async #scope(principal: Principal, requested: string | undefined): Promise<string | null> {
    if (principal.role !== 'admin') {
      if (requested !== undefined && requested !== principal.userId) throw forbidden('Members can only summarise their own interactions')
      return principal.userId
    }
    if (requested === undefined) return null
    const user = await this.#db.selectFrom('users').select('id').where('id', '=', requested).executeTakeFirst()
    if (!user) throw notFound('User not found')
    return requested
  }
}
