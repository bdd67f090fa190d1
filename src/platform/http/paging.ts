// The one paging scheme of every list route: `limit` and `offset` query fields, integers within bounds, checked by the
// route's schema (422 at ["query","limit"] / ["query","offset"], every bad field at once) and resolved by the service.
import { t } from 'elysia'
import { IntegerField, MAX_SAFE_INTEGER } from './integer-field.ts'
import { invalidInput, type InputIssue } from '../errors.ts'

/** The longest page of a list that has a default page size. */
export const MAX_PAGE_LIMIT = 500

/** `limit`/`offset` as a service receives them: already checked when they come through a route. */
export interface Page {
  limit?: number
  offset?: number
}

export interface PagingRule {
  /** Items per page when `limit` is not given; undefined means every item (the agent list is never capped, spec Limits). */
  readonly defaultLimit?: number
  /** The largest `limit` accepted. */
  readonly maxLimit: number
}

/** Lists that page by default: 1 to 500 items, `defaultLimit` when not given. */
export const pagedList = (defaultLimit: number): PagingRule => ({ defaultLimit, maxLimit: MAX_PAGE_LIMIT })

/** Lists that return everything unless asked for a page (agents, versions). */
export const uncappedList: PagingRule = { maxLimit: MAX_SAFE_INTEGER }

/**
 * The `limit` and `offset` properties of a list's query schema; spread them into its `t.Object`.
 * Offsets stop at 2^53 - 1: past it a JSON number is no longer exact, and SQLite refuses a LIMIT or OFFSET that is not
 * a 64-bit integer ("datatype mismatch", which was a 500).
 */
export function pageQueryFields(rule: PagingRule) {
  const limitText = rule.defaultLimit === undefined ? 'Default: every item' : `Default ${rule.defaultLimit}`
  return {
    limit: t.Optional(IntegerField({ minimum: 1, maximum: rule.maxLimit, description: `Items per page, 1 to ${rule.maxLimit}. ${limitText}` })),
    offset: t.Optional(IntegerField({ minimum: 0, maximum: MAX_SAFE_INTEGER, description: 'Items to skip. Default 0' })),
  }
}

function boundIssue(field: 'limit' | 'offset', value: number, minimum: number, maximum: number): InputIssue | undefined {
  const loc = [field]
  if (!Number.isInteger(value)) return { in: 'query', loc, msg: 'Input should be a valid integer', type: 'int_type', input: value }
  if (value < minimum)
    return { in: 'query', loc, msg: `Input should be greater than or equal to ${minimum}`, type: 'greater_than_equal', input: value, ctx: { ge: minimum } }
  if (value > maximum)
    return { in: 'query', loc, msg: `Input should be less than or equal to ${maximum}`, type: 'less_than_equal', input: value, ctx: { le: maximum } }
  return undefined
}

/**
 * The page to read: defaults filled in (no limit is the largest exact integer, which SQLite and PostgreSQL both take as
 * a LIMIT; -1 would be refused by PostgreSQL), bounds checked again for callers that do not
 * come through a route (tools, other modules), with the same 422 entries the schema gives.
 */
export function resolvePage(page: Page, rule: PagingRule): { limit: number; offset: number } {
  const issues = [
    page.limit === undefined ? undefined : boundIssue('limit', page.limit, 1, rule.maxLimit),
    page.offset === undefined ? undefined : boundIssue('offset', page.offset, 0, MAX_SAFE_INTEGER),
  ].filter((issue) => issue !== undefined)
  if (issues.length > 0) throw invalidInput(...issues)
  return { limit: page.limit ?? rule.defaultLimit ?? MAX_SAFE_INTEGER, offset: page.offset ?? 0 }
}
