// The interaction history: recorded MCP tool calls and API actions, newest first, filtered and keyset-paged
// (docs/api.md "Interactions"). Members read their own; admins anyone's.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { InteractionKind } from '../../platform/db/tables/interactions.ts'
import { forbidden, type InputIssue, invalidInput, notFound } from '../../platform/errors.ts'
import { DAY_MS, parseInstant, utcDate } from './buckets.ts'
import {
  type Drive,
  hasRowFilters,
  matchingPositions,
  type PageWalk,
  payloads,
  type Position,
  type RowFilters,
  rowsWithSizes,
  windowEnd,
} from './history-query.ts'

export interface HistoryQuery {
  kind?: InteractionKind
  api_title?: string
  tool_name?: string
  client_source?: string
  conversation_id?: string
  user_id?: string
  from?: string
  to?: string
  is_error?: boolean
  cursor?: string
  limit?: number
}

export const HISTORY_DEFAULT_LIMIT = 50
export const HISTORY_MAX_LIMIT = 200

export interface HistoryOptions {
  /**
   * Index entries one page may pass over looking for rows that match its filters. A filter the index order does not
   * select (kind, is_error, api_title, tool_name, client_source) is checked entry by entry inside the index; past this
   * many entries the page ends early, with a cursor where it stopped, so a rare match costs more pages, never a long
   * request (docs/benchmarks.md "Interaction history").
   */
  readonly scanBudget?: number
  /** Stored JSON (arguments, result, user_input) one page carries at most, past its first item: bounds its memory. */
  readonly pageBytes?: number
}

export const DEFAULT_SCAN_BUDGET = 10_000
export const DEFAULT_PAGE_BYTES = 2 * 1024 * 1024

const NOT_FOUND = 'Interaction not found'
const INVALID_DATE = 'Input should be a valid date-time'
const INVALID_CURSOR = 'Input should be a cursor from an earlier page (next_cursor)'
const STORED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/
/** The first instant a stored created_at cannot hold (its year has four digits). */
const END_OF_TIME = utcDate(10_000, 0, 1)

/** Opaque to clients: the position of the last row a page covered. */
export const encodeCursor = ([createdAt, id]: Position): string => Buffer.from(`${createdAt}|${id}`).toString('base64url')

function decodeCursor(cursor: string): Position | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  if (rest.length > 0 || !createdAt || !id || !STORED_TIME.test(createdAt) || !UUID.test(id)) return null
  return [createdAt, id]
}

const later = (a: Position, b: Position) => (a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? a : b)
const earlier = (a: Position, b: Position) => (later(a, b) === a ? b : a)

/** [from, to] as positions: rows at or after `lower`, strictly before `upper`. A plain `to` date includes its whole day. */
function timeBounds(query: HistoryQuery): { lower: Position | null; upper: Position | null } {
  const issues: InputIssue[] = []
  const parse = (field: 'from' | 'to') => {
    const value = query[field]
    if (value === undefined) return undefined
    const ms = parseInstant(value)
    if (ms === null) issues.push({ in: 'query', loc: [field], msg: INVALID_DATE, type: 'value_error', input: value })
    return ms ?? undefined
  }
  const fromMs = parse('from')
  const toMs = parse('to')
  if (issues.length > 0) throw invalidInput(...issues)
  // Stored times have millisecond precision, so "at or before to" is "before to + 1 ms".
  const upperMs = toMs === undefined ? undefined : PLAIN_DATE.test(query.to!) ? toMs + DAY_MS : toMs + 1
  if (fromMs !== undefined && upperMs !== undefined && fromMs >= upperMs) {
    throw invalidInput({ in: 'query', loc: ['from'], msg: 'from must not be after to', type: 'value_error', input: query.from })
  }
  // An empty id sorts before every id: (t, '') is "from the first row at t on".
  return {
    lower: fromMs === undefined ? null : [isoTime(fromMs), ''],
    upper: upperMs === undefined || upperMs >= END_OF_TIME ? null : [isoTime(upperMs), ''],
  }
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return HISTORY_DEFAULT_LIMIT
  const loc = ['limit']
  if (!Number.isInteger(limit)) throw invalidInput({ in: 'query', loc, msg: 'Input should be a valid integer', type: 'int_type', input: limit })
  if (limit < 1)
    throw invalidInput({ in: 'query', loc, msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: limit, ctx: { ge: 1 } })
  if (limit > HISTORY_MAX_LIMIT) {
    const msg = `Input should be less than or equal to ${HISTORY_MAX_LIMIT}`
    throw invalidInput({ in: 'query', loc, msg, type: 'less_than_equal', input: limit, ctx: { le: HISTORY_MAX_LIMIT } })
  }
  return limit
}

type Row = Awaited<ReturnType<ReturnType<typeof rowsWithSizes>['execute']>>[number]
type Payload = Awaited<ReturnType<ReturnType<typeof payloads>['execute']>>[number]

const text = (value: string) => JSON.stringify(value)
const textOrNull = (value: string | null) => (value === null ? 'null' : JSON.stringify(value))

/** The HTTP status an API answered, as the call's record keeps it (`result.status`: API actions and operation tools). */
function upstreamStatus(_row: Row, result: string | null): number | null {
  if (result === null) return null
  try {
    const status = (JSON.parse(result) as { status?: unknown } | null)?.status
    return Number.isInteger(status) ? (status as number) : null
  } catch {
    return null
  }
}

/**
 * One item as JSON text. `arguments` and `result` are spliced in as stored: the store writes them with JSON.stringify
 * (InteractionsService.record), so they are JSON already, and a page of large results is not parsed and written again.
 */
function itemJson(row: Row, payload: Payload): string {
  return (
    `{"id":${text(row.id)},"kind":${text(row.kind)},"api_title":${text(row.api_title)},"tool_name":${text(row.action)},` +
    `"mcp_server_name":${row.kind === 'mcp_tool' ? text(row.api_title) : 'null'},"client_source":${textOrNull(row.client_source)},` +
    `"conversation_id":${textOrNull(row.conversation_id)},"user_id":${text(row.user_id)},"user_email":${text(row.user_email)},` +
    `"user_input":${textOrNull(payload.user_input)},"arguments":${payload.arguments ?? 'null'},"result":${payload.result ?? 'null'},` +
    `"is_error":${row.is_error === 1},"status":${upstreamStatus(row, payload.result) ?? 'null'},` +
    `"duration_seconds":${row.duration_seconds === null ? 'null' : JSON.stringify(row.duration_seconds)},"created_at":${text(row.created_at)}}`
  )
}

const payloadBytes = (row: Row) => (row.arguments_bytes ?? 0) + (row.result_bytes ?? 0) + (row.user_input_bytes ?? 0)

export class InteractionHistory {
  readonly #db: Kysely<Database>
  readonly #scanBudget: number
  readonly #pageBytes: number

  constructor(db: Kysely<Database>, options: HistoryOptions = {}) {
    this.#db = db
    this.#scanBudget = options.scanBudget ?? DEFAULT_SCAN_BUDGET
    this.#pageBytes = options.pageBytes ?? DEFAULT_PAGE_BYTES
  }

  /**
   * `{items, next_cursor}` as JSON text. Steps performed:
   * 1. check the input (dates, cursor, limit) and whose rows the caller may read;
   * 2. pick the index the page walks: the conversation's, else the user's, else the organisation's by time;
   * 3. with filters the index order does not select, find where the examined window ends (`scanBudget` entries on);
   * 4. read the positions of the matching rows in the window (index only), then those rows, then their payloads up to
   *    `pageBytes`; next_cursor is the last row given, or the window's end when the window ran out first.
   */
  async pageAsJson(principal: Principal, query: HistoryQuery): Promise<string> {
    const limit = checkLimit(query.limit)
    const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor)
    if (query.cursor !== undefined && cursor === null) {
      throw invalidInput({ in: 'query', loc: ['cursor'], msg: INVALID_CURSOR, type: 'value_error', input: query.cursor })
    }
    const bounds = timeBounds(query)
    const user = await this.#scope(principal, query.user_id)
    const drive: Drive =
      query.conversation_id !== undefined
        ? { by: 'conversation', conversationId: query.conversation_id }
        : user !== null
          ? { by: 'user', userId: user }
          : { by: 'time' }
    const filters: RowFilters = {
      kind: query.kind,
      isError: query.is_error,
      apiTitle: query.api_title,
      action: query.tool_name,
      clientSource: query.client_source,
      userId: drive.by === 'conversation' && user !== null ? user : undefined,
    }
    const upper = cursor && bounds.upper ? earlier(cursor, bounds.upper) : (cursor ?? bounds.upper)
    const walk: PageWalk = { drive, filters, lower: bounds.lower, upper }

    let window: Position | null = null
    if (hasRowFilters(filters)) {
      const end = await windowEnd(this.#db, walk, this.#scanBudget).executeTakeFirst()
      if (end) window = [end.created_at, end.id]
    }
    const lower = window && walk.lower ? later(window, walk.lower) : (window ?? walk.lower)
    const positions = await matchingPositions(this.#db, { ...walk, lower }, limit + 1).execute()
    const candidates = positions.slice(0, limit)

    const rows =
      candidates.length === 0
        ? []
        : await rowsWithSizes(
            this.#db,
            candidates.map((p) => p.id),
          ).execute()
    const byId = new Map(rows.map((row) => [row.id, row]))
    const page: Row[] = []
    let bytes = 0
    let taken = 0
    for (const candidate of candidates) {
      // A row pruned by retention between the two reads is passed over like one given.
      const row = byId.get(candidate.id)
      if (row) {
        if (page.length > 0 && bytes + payloadBytes(row) > this.#pageBytes) break
        bytes += payloadBytes(row)
        page.push(row)
      }
      taken++
    }
    const last = candidates[taken - 1]
    const more = taken < candidates.length || positions.length > limit
    const next: Position | null = more && last ? [last.created_at, last.id] : window

    const stored =
      page.length === 0
        ? []
        : await payloads(
            this.#db,
            page.map((row) => row.id),
          ).execute()
    const payloadOf = new Map(stored.map((payload) => [payload.id, payload]))
    const items = page.filter((row) => payloadOf.has(row.id)).map((row) => itemJson(row, payloadOf.get(row.id)!))
    return `{"items":[${items.join(',')}],"next_cursor":${next === null ? 'null' : text(encodeCursor(next))}}`
  }

  /** One item as JSON text; another member's is as unknown as an id that never existed. */
  async itemAsJson(principal: Principal, id: string): Promise<string> {
    const [row] = await rowsWithSizes(this.#db, [id]).execute()
    if (!row || (principal.role !== 'admin' && row.user_id !== principal.userId)) throw notFound(NOT_FOUND)
    const [payload] = await payloads(this.#db, [id]).execute()
    if (!payload) throw notFound(NOT_FOUND)
    return itemJson(row, payload)
  }

  /** Whose rows: null means everyone's (admins without user_id). */
  async #scope(principal: Principal, requested: string | undefined): Promise<string | null> {
    if (principal.role !== 'admin') {
      if (requested !== undefined && requested !== principal.userId) throw forbidden('Members can only list their own interactions')
      return principal.userId
    }
    if (requested === undefined) return null
    const user = await this.#db.selectFrom('users').select('id').where('id', '=', requested).executeTakeFirst()
    if (!user) throw notFound('User not found')
    return requested
  }
}
