// How a history page is read: which index walks it (a conversation's, a user's or the organisation's by time), the
// filters checked along the way, and the keyset bounds over (created_at, id). Pure query building, no I/O.
import type { Expression, ExpressionBuilder, Kysely, SelectQueryBuilder, SqlBool } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import type { InteractionKind } from '../../platform/db/tables/interactions.ts'

/** A position in the history: rows sort by (created_at, id), newest first. */
export type Position = readonly [createdAt: string, id: string]

/** The index a page walks, named after its equality columns (migration 0013). */
export type Drive =
  | { readonly by: 'conversation'; readonly conversationId: string }
  | { readonly by: 'user'; readonly userId: string }
  | { readonly by: 'time' }

/** Filters checked on every row the walk passes; those the drive already fixes are left out. */
export interface RowFilters {
  readonly kind?: InteractionKind
  readonly isError?: boolean
  readonly apiTitle?: string
  readonly action?: string
  readonly clientSource?: string
  /** Only with a conversation drive: a member's conversation is still only their own rows. */
  readonly userId?: string
}

export interface PageWalk {
  readonly drive: Drive
  readonly filters: RowFilters
  /** Rows at or after this position (from, or the end of the examined window). */
  readonly lower: Position | null
  /** Rows strictly before this position (the cursor, or to). */
  readonly upper: Position | null
}

type Where = ExpressionBuilder<Database, 'interactions'>

const atOrAfter = (eb: Where, p: Position) => eb(eb.refTuple('created_at', 'id'), '>=', eb.tuple(p[0], p[1]))
const before = (eb: Where, p: Position) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(p[0], p[1]))

function driveConditions(eb: Where, walk: PageWalk): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = []
  const { drive } = walk
  if (drive.by === 'conversation') conditions.push(eb('conversation_id', '=', drive.conversationId))
  if (drive.by === 'user') conditions.push(eb('user_id', '=', drive.userId))
  if (walk.lower) conditions.push(atOrAfter(eb, walk.lower))
  if (walk.upper) conditions.push(before(eb, walk.upper))
  return conditions
}

function filterConditions(eb: Where, filters: RowFilters): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = []
  if (filters.kind !== undefined) conditions.push(eb('kind', '=', filters.kind))
  if (filters.isError !== undefined) conditions.push(eb('is_error', '=', filters.isError ? 1 : 0))
  if (filters.apiTitle !== undefined) conditions.push(eb('api_title', '=', filters.apiTitle))
  if (filters.action !== undefined) conditions.push(eb('action', '=', filters.action))
  if (filters.clientSource !== undefined) conditions.push(eb('client_source', '=', filters.clientSource))
  // Wrapped so that no planner walks the user's index instead of the conversation's: a conversation is a handful of
  // rows, the user's index may hold millions before the first of them. coalesce is a no-op on a NOT NULL column.
  if (filters.userId !== undefined) conditions.push(eb(eb.fn.coalesce('user_id', eb.val('')), '=', filters.userId))
  return conditions
}

function walkOf(db: Kysely<Database>, walk: PageWalk, withFilters: boolean): SelectQueryBuilder<Database, 'interactions', { created_at: string; id: string }> {
  return db
    .selectFrom('interactions')
    .select(['created_at', 'id'])
    .where((eb) => eb.and([...driveConditions(eb, walk), ...(withFilters ? filterConditions(eb, walk.filters) : [])]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
}

/** The positions of the matching rows, newest first, at most `count`: an index-only walk. */
export function matchingPositions(db: Kysely<Database>, walk: PageWalk, count: number) {
  return walkOf(db, walk, true).limit(count)
}

/** The `budget`-th row the drive reaches, filters aside: where a page's examined window ends. */
export function windowEnd(db: Kysely<Database>, walk: PageWalk, budget: number) {
  return walkOf(db, walk, false)
    .limit(1)
    .offset(budget - 1)
}

/** True when some rows are filtered beyond what the drive's index order already selects. */
export const hasRowFilters = (filters: RowFilters) => Object.values(filters).some((value) => value !== undefined)

/** Everything of the listed rows but their payloads, with the payloads' sizes and the user's e-mail. */
export function rowsWithSizes(db: Kysely<Database>, ids: readonly string[]) {
  return db
    .selectFrom('interactions as i')
    .innerJoin('users as u', 'u.id', 'i.user_id')
    .select((eb) => [
      'i.id',
      'i.kind',
      'i.api_title',
      'i.action',
      'i.client_source',
      'i.conversation_id',
      'i.user_id',
      'u.email as user_email',
      'i.is_error',
      'i.duration_seconds',
      'i.created_at',
      eb.fn<number | null>('octet_length', ['i.arguments']).as('arguments_bytes'),
      eb.fn<number | null>('octet_length', ['i.result']).as('result_bytes'),
      eb.fn<number | null>('octet_length', ['i.user_input']).as('user_input_bytes'),
    ])
    .where('i.id', 'in', ids)
}

/** The stored JSON texts of the listed rows. */
export function payloads(db: Kysely<Database>, ids: readonly string[]) {
  return db.selectFrom('interactions').select(['id', 'user_input', 'arguments', 'result']).where('id', 'in', ids)
}
