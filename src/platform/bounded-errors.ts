// Error bodies stay small whatever produced them: a 422 lists at most MAX_LISTED_ISSUES problems and ends with one
// entry saying how many more there were, each message, location, echoed input and ctx value is shortened, and a whole
// body never passes ERROR_BODY_MAX_BYTES. HTTP (http-platform.ts) and tool errors (tools/tool.ts) both go through here,
// so a producer that lists a million problems or echoes a megabyte costs the client 64 KiB at most.

/** What an error body may weigh as UTF-8 JSON. */
export const ERROR_BODY_MAX_BYTES = 64 * 1024
/** Problems listed in one error; the rest are counted in a final `too_many_errors` entry. */
export const MAX_LISTED_ISSUES = 50
/** The type of the entry that ends a cut list: `ctx.more` says how many were left out. */
export const TOO_MANY_ERRORS = 'too_many_errors'

/** JSON characters an echoed input or one ctx value keeps. */
const VALUE_CHARS = 200
const MESSAGE_CHARS = 1000
const LOC_TOKEN_CHARS = 200
const LOC_TOKENS = 64
const TYPE_CHARS = 64
/** A sentence error (`{"detail": "…"}`) keeps this many characters. */
const DETAIL_CHARS = 8192
/** The listed problems' share of the body, leaving room for the wrapper and the final entry. */
const LISTED_BYTES = ERROR_BODY_MAX_BYTES - 4096

/** The shape every located problem shares (InputIssue, ValidationIssue). */
export interface IssueLike {
  loc: (string | number)[]
  msg: string
  type: string
  input?: unknown
  ctx?: Record<string, unknown>
}

const ellipsis = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`)

/** A sentence cut to what an error body allows. */
export const boundedText = (text: string, max = DETAIL_CHARS): string => ellipsis(text, max)

/**
 * A copy of `value` whose JSON is about `maxChars` long at most: long strings end in "…", arrays and objects keep
 * their first members while the budget lasts (then a "…" member). The walk stops with the budget, so its cost does not
 * depend on the size of what it is given.
 */
export function shortenValue(value: unknown, maxChars = VALUE_CHARS): unknown {
  const budget = { left: maxChars }
  return shorten(value, budget)
}

function shorten(value: unknown, budget: { left: number }): unknown {
  if (value === null || typeof value === 'boolean') {
    budget.left -= 5
    return value
  }
  if (typeof value === 'number') {
    budget.left -= 8
    return value
  }
  if (typeof value === 'string') {
    const kept = Math.max(8, budget.left - 2)
    budget.left -= Math.min(value.length, kept) + 2
    return ellipsis(value, kept)
  }
  if (typeof value !== 'object') return undefined
  budget.left -= 2
  if (Array.isArray(value)) {
    const out: unknown[] = []
    for (let index = 0; index < value.length; index++) {
      if (budget.left <= 0) {
        out.push('…')
        break
      }
      out.push(shorten(value[index], budget))
    }
    return out
  }
  const out: Record<string, unknown> = {}
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    if (budget.left <= 0) {
      out['…'] = '…'
      break
    }
    const name = ellipsis(key, Math.max(8, Math.min(LOC_TOKEN_CHARS, budget.left)))
    budget.left -= name.length + 3
    out[name] = shorten((value as Record<string, unknown>)[key], budget)
  }
  return out
}

function boundedLoc(loc: readonly (string | number)[]): (string | number)[] {
  const tokens = loc.length <= LOC_TOKENS ? loc : [...loc.slice(0, LOC_TOKENS - 1), '…']
  return tokens.map((token) => (typeof token === 'string' ? ellipsis(token, LOC_TOKEN_CHARS) : token))
}

function boundedIssue<T extends IssueLike>(issue: T): T {
  const bounded: T = { ...issue, loc: boundedLoc(issue.loc), msg: ellipsis(String(issue.msg), MESSAGE_CHARS), type: ellipsis(String(issue.type), TYPE_CHARS) }
  if (issue.input !== undefined) bounded.input = shortenValue(issue.input)
  else delete bounded.input
  if (issue.ctx !== undefined) {
    const ctx: Record<string, unknown> = {}
    let count = 0
    for (const key in issue.ctx) {
      if (!Object.hasOwn(issue.ctx, key)) continue
      if (++count > 8) break
      ctx[ellipsis(key, TYPE_CHARS)] = shortenValue(issue.ctx[key])
    }
    bounded.ctx = ctx
  }
  return bounded
}

/** The final entry of a cut list. */
export function tooManyErrors(more: number, atLeast: boolean, loc: (string | number)[] = []): IssueLike {
  const count = more.toLocaleString('en-US')
  const msg = atLeast ? (more > 0 ? `… and at least ${count} more errors` : '… and more errors') : `… and ${count} more error${more === 1 ? '' : 's'}`
  return { loc, msg, type: TOO_MANY_ERRORS, ctx: atLeast ? { more, at_least: true } : { more } }
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8')

/**
 * At most MAX_LISTED_ISSUES problems, each shortened, together under the body's byte budget; the rest counted in a
 * final `too_many_errors` entry (added to the count of one the producer already ended its list with, which keeps its
 * location). `summaryLoc` locates a new one (`['body']` over HTTP; nothing for a tool's arguments).
 */
export function boundedIssues<T extends IssueLike>(issues: readonly T[], summaryLoc: (string | number)[] = []): T[] {
  let list = issues
  let more = 0
  let atLeast = false
  let where = summaryLoc
  const last = list.at(-1)
  if (last?.type === TOO_MANY_ERRORS) {
    more += Number(last.ctx?.more) || 0
    atLeast = last.ctx?.at_least === true
    if (last.loc.length > 0) where = boundedLoc(last.loc)
    list = list.slice(0, -1)
  }
  const kept: T[] = []
  let bytes = 2
  for (const issue of list) {
    if (kept.length === MAX_LISTED_ISSUES) break
    const bounded = boundedIssue(issue)
    const size = jsonBytes(bounded) + 1
    if (bytes + size > LISTED_BYTES) break
    kept.push(bounded)
    bytes += size
  }
  more += list.length - kept.length
  if (more > 0 || atLeast) kept.push(tooManyErrors(more, atLeast, where) as T)
  return kept
}

/**
 * The JSON text of `{"detail": …}` under ERROR_BODY_MAX_BYTES: a sentence is cut, a list bounded as above, and should
 * a list still be too heavy (it cannot, but this is the last line of defence) problems are dropped until it fits.
 */
export function errorBodyText(detail: string | readonly IssueLike[], summaryLoc: (string | number)[] = []): string {
  if (typeof detail === 'string') return JSON.stringify({ detail: boundedText(detail) })
  const issues = boundedIssues(detail, summaryLoc)
  let text = JSON.stringify({ detail: issues })
  while (Buffer.byteLength(text, 'utf8') > ERROR_BODY_MAX_BYTES && issues.length > 1) {
    const summary = issues.at(-1)!.type === TOO_MANY_ERRORS ? issues.pop()! : undefined
    issues.pop()
    const more = (Number(summary?.ctx?.more) || 0) + 1
    issues.push(tooManyErrors(more, summary?.ctx?.at_least === true, summaryLoc))
    text = JSON.stringify({ detail: issues })
  }
  return text
}
