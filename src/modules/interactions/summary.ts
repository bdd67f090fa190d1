// Interaction summaries: counts per time bucket, aggregated in SQL from the daily rollup (organisation) or the per-user index.
import { isoWeekOfDay, kindOf } from '../../platform/db/dialect.ts'
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import { compileOnce } from '../../platform/db/compiled-query.ts'
import { readDailyUsageByMonth, type UsageMonth } from '../../platform/db/daily-usage-by-month.ts'
import { foldRollups } from '../../platform/db/rollup-folder.ts'
import { EventLoopTurns, FairShare } from '../../platform/fair-share.ts'
import { requestTraffic } from '../../platform/http/traffic.ts'
import type { Database } from '../../platform/db/schema.ts'
import { forbidden, type InputIssue, invalidInput, notFound } from '../../platform/errors.ts'
import { bucketCount, bucketKey, bucketKeys, DAY_MS, dayKey, defaultStart, parseInstant, startOfDay, type TimeFrame } from './buckets.ts'

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

/**
 * Days read per query. A year of a busy organisation's rollup is ~700k (day, title) rows; read in one statement that
 * held the event loop for up to ~200 ms. So it is read a few days at a time, with a turn of the event loop between
 * chunks: the first chunk is FIRST_CHUNK_DAYS (a user's rows per day are a few of the organisation's, so theirs starts
 * larger), and each next one doubles while a chunk takes under CHUNK_FAST_MS and halves when one takes over
 * CHUNK_SLOW_MS. A member's year is then four queries, not ninety, and the busy organisation's chunks stay at a few
 * milliseconds (docs/benchmarks.md has the worst gap measured).
 */
const FIRST_CHUNK_DAYS = { organisation: 4, user: 32 } as const
const MAX_CHUNK_DAYS = 128
const CHUNK_FAST_MS = 1.5
const CHUNK_SLOW_MS = 4
/**
 * On PostgreSQL a chunk's query is a round trip to another process, during which the event loop turns (the driver
 * parses the rows as they arrive, a socket read at a time): what holds the loop is our work on the rows, and what
 * costs is the number of round trips. So there the next chunk is sized by the rows the last one held per day, to
 * about ROWS_PER_CHUNK rows (a few milliseconds of work). Most ranges on PostgreSQL never come to chunks: their days
 * are read by month first (MONTH_ROWS_AT_ONCE).
 */
const ROWS_PER_CHUNK = 4000
const MAX_CHUNK_DAYS_BY_ROWS = 1000

function nextChunkByRows(rows: number, daysRead: number, chunkDays: number): number {
  if (rows === 0) return Math.min(MAX_CHUNK_DAYS_BY_ROWS, chunkDays * 2)
  return Math.max(1, Math.min(MAX_CHUNK_DAYS_BY_ROWS, Math.floor((ROWS_PER_CHUNK * daysRead) / rows)))
}
/** Chunks and the JSON written hold the event loop at most about this long between turns (a member's year: none). */
const TURN_EVERY_MS = 2
/**
 * Summaries share the request thread: after 150 ms of their work in the last second or so, while other requests come,
 * each chunk (and the JSON written) is followed by a rest as long as it took, so one client looping the heaviest
 * summary leaves the thread to everyone else (the stall bench's `auth/me` keeps over half its throughput). A
 * single summary, or a client looping them alone, is never slowed.
 */
const SUMMARIES_SHARE = new FairShare(150, requestTraffic.started)

/** Bounds the response (buckets × titles) and the work: about 2.7 years daily, 19 years weekly, 83 years monthly. */
export const MAX_BUCKETS = 1000
/** Buckets in the default range, when start_date is omitted. */
export const DEFAULT_BUCKETS: Readonly<Record<TimeFrame, number>> = Object.freeze({ daily: 30, weekly: 12, monthly: 12 })

/** The schema's own message for the same mistake: the schema's format check is looser, this is the rest of it. */
const INVALID_DATE = 'Input should be a valid date-time'

/** The rollup's day text → the bucket key, in SQL (the same keys buckets.ts lists). */
const bucketOfDay = (db: Kysely<Database>, frame: TimeFrame): RawBuilder<string> =>
  frame === 'daily' ? sql<string>`d.day` : frame === 'weekly' ? isoWeekOfDay(kindOf(db), 'd.day') : sql<string>`substr(d.day, 1, 7)`

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
  const issues: InputIssue[] = []
  const parse = (field: 'start_date' | 'end_date') => {
    const value = request[field]
    if (value === undefined) return undefined
    const ms = parseInstant(value)
    if (ms === null) issues.push({ loc: [field], msg: INVALID_DATE, type: 'value_error', input: value })
    return ms ?? undefined
  }
  const start = parse('start_date')
  const end = parse('end_date')
  if (issues.length > 0) throw invalidInput(...issues)
  const endMs = end ?? nowMs
  const startMs = start ?? defaultStart(frame, endMs, DEFAULT_BUCKETS[frame])
  if (startMs > endMs) {
    const msg = end === undefined ? 'start_date must not be after end_date (now, when end_date is omitted)' : 'start_date must not be after end_date'
    throw invalidInput({ loc: ['start_date'], msg, type: 'value_error', input: request.start_date })
  }
  const count = bucketCount(frame, startMs, endMs)
  if (count > MAX_BUCKETS) {
    throw invalidInput({
      loc: ['end_date'],
      msg: `The range covers ${count} ${frame} buckets; at most ${MAX_BUCKETS} are allowed: narrow it or choose a coarser time_frame`,
      type: 'value_error',
      ctx: { max_buckets: MAX_BUCKETS },
    })
  }
  return { startMs, endMs }
}

/**
 * The (bucket, api_title) counts of some days: the organisation's (day × title) rollup or one user's (user × day × title
 * × kind, summed over kinds). Rollup rows emptied by retention hold 0 until removed, so they are filtered out.
 */
function chunkQuery(
  db: Kysely<Database>,
  frame: TimeFrame,
  type: SummaryType,
  ofUser: boolean,
  span: { first: string; last: string; user: string | null },
  titles: string[],
) {
  const bucket = bucketOfDay(db, frame)
  const nonEmpty = sql.lit(0)
  // The organisation's rollup, or one user's (the same columns, keyed by user too).
  const daily = db
    .selectFrom(ofUser ? 'interaction_user_daily_usage' : 'interaction_daily_usage')
    .select(['day', 'api_title', 'n'])
    .$if(ofUser, (qb) => qb.where('user_id', '=', span.user!))
    .where('day', '>=', span.first)
    .where('day', '<=', span.last)
    .$if(titles.length > 0, (qb) => qb.where('api_title', 'in', titles))
  // Daily counts per title are the rollup's own rows (a user's one per kind, summed by the caller), read in key order
  // (the rollups' primary key: no sort) and written out as they come: half what SQLite's aggregate cost, and no merging.
  if (frame === 'daily' && type === 'api_usage')
    return db
      .selectFrom(daily.as('d'))
      .select(['d.day as bucket', 'd.api_title', 'd.n'])
      .where('d.n', '>', nonEmpty)
      .orderBy('d.day')
      .orderBy('d.api_title')
      .$castTo<BucketCount>()
  const grouped = db.selectFrom(daily.as('d')).select((eb) => [bucket.as('bucket'), eb.fn.sum<number>('d.n').as('n')])
  if (type === 'total')
    return grouped
      .select(sql<string>`''`.as('api_title'))
      .groupBy(bucket)
      .having((eb) => eb.fn.sum('d.n'), '>', nonEmpty)
      .$castTo<BucketCount>()
  return grouped
    .select('d.api_title')
    .groupBy([bucket, 'd.api_title'])
    .having((eb) => eb.fn.sum('d.n'), '>', nonEmpty)
    .$castTo<BucketCount>()
}

/**
 * PostgreSQL reads the days from its daily usage by month (platform/db/daily-usage-by-month.ts), the organisation's or
 * a user's, at most this many (month, title) rows at once (a year of ~75 titles); a range that holds more is read by
 * days in chunks, as above. A month's rows are worked on between turns of the event loop.
 */
const MONTH_ROWS_AT_ONCE = 1000

/**
 * The non-empty counts of one month's rows (every title's, in code-point order) within the days `first` … `last`, in
 * (day, title) order, each day's bucket computed once.
 */
function countsOfMonth(rows: readonly UsageMonth[], frame: TimeFrame, first: string, last: string): BucketCount[] {
  const counts: BucketCount[] = []
  const month = rows[0]?.month
  for (let index = 0; index < 31 && month !== undefined; index++) {
    const day = `${month}-${index < 9 ? '0' : ''}${index + 1}`
    if (day < first || day > last) continue
    let bucket: string | null = null
    for (const row of rows) {
      const n = row.days[index]!
      if (n <= 0) continue
      bucket ??= frame === 'daily' ? day : bucketKey(frame, Date.parse(day))
      counts.push({ bucket, api_title: row.api_title, n })
    }
  }
  return counts
}

/** The compiled chunk queries, by time frame, type and scope (12 at most). */
const compiledChunks = new Map<string, (db: Kysely<Database>, values: { first: string; last: string; user: string | null }) => Promise<BucketCount[]>>()

/** JSON.stringify for titles, once per title however many buckets it appears in. */
function quoter(): (title: string) => string {
  const quoted = new Map<string, string>()
  return (title) => {
    let text = quoted.get(title)
    if (text === undefined) quoted.set(title, (text = JSON.stringify(title)))
    return text
  }
}

/**
 * Code-point order, as SQLite's BINARY collation sorts UTF-8 (the daily rows come in that order; on PostgreSQL text
 * columns are COLLATE "C", the same order): like `<` on UTF-16 units except that a character beyond U+FFFF (a surrogate pair) sorts after every
 * other one.
 */
function byCodePoint(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const xSurrogate = x >= 0xd800 && x <= 0xdfff
    const ySurrogate = y >= 0xd800 && y <= 0xdfff
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1
    return x - y
  }
  return a.length - b.length
}

/** Each day's `"title":count,…` text, from rows in (day, title) order; a user's rows repeat a title once per kind. */
class DailyBodies {
  readonly #bodies = new Map<string, string>()
  readonly #quote = quoter()
  #day = ''
  #title = ''
  #count = 0
  #body = ''

  add(rows: readonly BucketCount[]): void {
    for (const row of rows) {
      if (row.bucket !== this.#day || row.api_title !== this.#title) {
        this.#closeTitle()
        if (row.bucket !== this.#day) this.#closeDay(row.bucket)
        this.#title = row.api_title
      }
      this.#count += Number(row.n)
    }
  }

  /** The summary: every day of `keys`, empty ones as `{}`. */
  json(keys: readonly string[]): string {
    this.#closeTitle()
    this.#closeDay('')
    let text = ''
    for (const key of keys) text += `${text === '' ? '' : ','}"${key}":{${this.#bodies.get(key) ?? ''}}`
    return `{${text}}`
  }

  #closeTitle(): void {
    if (this.#count > 0) this.#body += `${this.#body === '' ? '' : ','}${this.#quote(this.#title)}:${this.#count}`
    this.#count = 0
  }

  #closeDay(next: string): void {
    if (this.#day !== '' && this.#body !== '') this.#bodies.set(this.#day, this.#body)
    this.#day = next
    this.#body = ''
  }
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
    try {
      return await this.#summarise(principal, request)
    } finally {
      SUMMARIES_SHARE.done()
    }
  }

  async #summarise(principal: Principal, request: SummaryRequest): Promise<string> {
    const frame = request.time_frame ?? 'daily'
    const type = request.summary_type ?? 'api_usage'
    const { startMs, endMs } = resolveRange(request, frame, this.#clock.now())
    const userId = await this.#scope(principal, request.user_id)
    // SQLite counts recorded rows into the rollups a little later: every row committed before this request, counted.
    await foldRollups(this.#db)
    const titles = request.api_title ?? []
    const keys = bucketKeys(frame, startMs, endMs)
    // Bucket → title → count (api_usage), or bucket → count (total). Filled chunk by chunk, see FIRST_CHUNK_DAYS.
    const byBucket = new Map<string, Map<string, number>>()
    const totals = new Map<string, number>()
    // Daily api_usage: each day's JSON body, written as its rows come in (day, title) order; a day is never split
    // across chunks.
    const daily = frame === 'daily' && type === 'api_usage' ? new DailyBodies() : null
    let chunkDays: number = FIRST_CHUNK_DAYS[userId === null ? 'organisation' : 'user']
    const byRows = kindOf(this.#db) === 'postgres'
    const turns = new EventLoopTurns(TURN_EVERY_MS)
    const take = (rows: readonly BucketCount[]) => {
      if (daily) daily.add(rows)
      else
        for (const row of rows) {
          if (type === 'total') {
            // Number(): SQLite's sum() is a number, but other drivers give an integer sum as a bigint or text.
            totals.set(row.bucket, (totals.get(row.bucket) ?? 0) + Number(row.n))
            continue
          }
          let titlesOfBucket = byBucket.get(row.bucket)
          if (!titlesOfBucket) byBucket.set(row.bucket, (titlesOfBucket = new Map()))
          titlesOfBucket.set(row.api_title, (titlesOfBucket.get(row.api_title) ?? 0) + Number(row.n))
        }
    }
    let chunkStart = startOfDay(startMs)
    // PostgreSQL: the days a row per month and title, when the range holds few enough of them.
    if (byRows && (await this.#fromMonths(frame, userId, dayKey(startMs), dayKey(endMs), titles, take, turns))) chunkStart = endMs + 1
    while (chunkStart <= endMs) {
      let began = performance.now()
      const firstDay = dayKey(chunkStart)
      const lastEnd = Math.min(chunkStart + (chunkDays - 1) * DAY_MS, endMs)
      const lastDay = dayKey(lastEnd)
      const rows = await this.#chunk(frame, type, userId, titles, firstDay, lastDay)
      // PostgreSQL: the wait for the rows did not hold the loop; the work on them does.
      if (byRows) began = performance.now()
      take(rows)
      const took = performance.now() - began
      const daysRead = Math.floor((lastEnd - chunkStart) / DAY_MS) + 1
      chunkStart = startOfDay(lastEnd) + DAY_MS
      if (byRows) chunkDays = nextChunkByRows(rows.length, daysRead, chunkDays)
      else if (took < CHUNK_FAST_MS) chunkDays = Math.min(MAX_CHUNK_DAYS, chunkDays * 2)
      else if (took > CHUNK_SLOW_MS) chunkDays = Math.max(1, Math.floor(chunkDays / 2))
      if (await SUMMARIES_SHARE.after(took)) turns.rested()
      else await turns.maybe()
    }
    // Bucket keys are digits, dashes and W: nothing to escape; titles go through JSON.stringify.
    if (type === 'total') return `{${keys.map((key) => `"${key}":${totals.get(key) ?? 0}`).join(',')}}`
    if (daily) return daily.json(keys)
    const writing = performance.now()
    const json = await this.#write(keys, byBucket)
    await SUMMARIES_SHARE.after(performance.now() - writing)
    return json
  }

  /** The api_usage summary as JSON text: every bucket, titles in code-point order within each. */
  async #write(keys: string[], byBucket: Map<string, Map<string, number>>): Promise<string> {
    const parts: string[] = []
    const quote = quoter()
    const turns = new EventLoopTurns(TURN_EVERY_MS)
    for (const key of keys) {
      // A year of days × thousands of titles is ~700k entries to write: a turn of the event loop every few ms.
      await turns.maybe()
      // Titles in code-point order: chunks meet titles in any order, and the same data must read the same way.
      const counts = byBucket.get(key)
      const entries = counts === undefined ? [] : counts.size > 1 ? [...counts].sort(([a], [b]) => byCodePoint(a, b)) : [...counts]
      let body = ''
      for (const [title, n] of entries) body += `${body === '' ? '' : ','}${quote(title)}:${n}`
      parts.push(`"${key}":{${body}}`)
    }
    return `{${parts.join(',')}}`
  }

  /**
   * The counts of the days `first` … `last` (the organisation's, or one user's) from PostgreSQL's daily usage by month,
   * handed to `take` a month at a time in (day, title) order, with a turn of the event loop when due. False, with
   * nothing taken, when the range holds more than MONTH_ROWS_AT_ONCE rows: those ranges are read by days in chunks.
   */
  async #fromMonths(
    frame: TimeFrame,
    userId: string | null,
    first: string,
    last: string,
    titles: string[],
    take: (rows: readonly BucketCount[]) => void,
    turns: EventLoopTurns,
  ): Promise<boolean> {
    const months = await readDailyUsageByMonth(this.#db, { first: first.slice(0, 7), last: last.slice(0, 7), user: userId }, titles, MONTH_ROWS_AT_ONCE + 1)
    if (months.length > MONTH_ROWS_AT_ONCE) return false
    for (let start = 0; start < months.length; ) {
      const began = performance.now()
      let end = start
      while (end < months.length && months[end]!.month === months[start]!.month) end++
      take(countsOfMonth(months.slice(start, end), frame, first, last))
      start = end
      if (await SUMMARIES_SHARE.after(performance.now() - began)) turns.rested()
      else await turns.maybe()
    }
    return true
  }

  /**
   * One chunk's non-empty (bucket, api_title) counts, from a rollup, never from the interaction rows. Without a title
   * filter (the usual request) the query is compiled once per time frame, type and scope: building it cost about what
   * SQLite takes to answer a member's month.
   */
  async #chunk(frame: TimeFrame, type: SummaryType, userId: string | null, titles: string[], firstDay: string, lastDay: string): Promise<BucketCount[]> {
    const span = { first: firstDay, last: lastDay, user: userId }
    if (titles.length > 0) return await chunkQuery(this.#db, frame, type, userId !== null, span, titles).execute()
    const key = `${frame} ${type} ${userId === null ? 'organisation' : 'user'}` as const
    let compiled = compiledChunks.get(key)
    if (!compiled) {
      compiled = compileOnce<Database, keyof typeof span, BucketCount>(['first', 'last', 'user'], (db, p) =>
        chunkQuery(db, frame, type, userId !== null, p, []),
      )
      compiledChunks.set(key, compiled)
    }
    return compiled(this.#db, span)
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
