// The if node's conditions (docs/api.md "Workflows"): string, number, boolean and array operators with ignore_case.
import { ExpressionError } from '../expr/errors.ts'
import { RE2JS } from 're2js'
import { deepEqual, isPlainObject, normalise } from '../expr/values.ts'

const STRING_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'matches_regex',
  'not_matches_regex',
  'is_empty',
  'is_not_empty',
  'exists',
  'not_exists',
] as const
const OTHER_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'is_true', 'is_false', 'length_eq', 'length_gt', 'length_lt'] as const
export const IF_OPERATORS: ReadonlySet<string> = new Set([...STRING_OPERATORS, ...OTHER_OPERATORS])
/** Operators that take no right side. */
export const UNARY_OPERATORS: ReadonlySet<string> = new Set(['is_empty', 'is_not_empty', 'exists', 'not_exists', 'is_true', 'is_false'])

export const MAX_PATTERN_CHARS = 256
export const MAX_SUBJECT_CHARS = 100_000

export interface Condition {
  left?: unknown
  operator: string
  right?: unknown
}

/** A compiled user pattern: RE2 semantics (re2js), so matching is linear in the subject whatever the pattern. */
export interface UserRegex {
  test(subject: string): boolean
}

const RE2_FLAGS: Readonly<Record<string, number>> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 }
/** Compiling costs ~0.1 ms; conditions test the same few patterns over and over (map bodies), so keep the latest ones. */
const compiled = new Map<string, UserRegex>()
const COMPILED_CACHE_SIZE = 256

/**
 * `/pattern/flags` or a bare pattern; flags limited to i, m, s, u and the pattern to 256 characters. Patterns run on
 * RE2 (no backtracking): `^(a+)+$` costs linear time instead of exponential, and backreferences and lookarounds,
 * which need backtracking, are refused as invalid.
 */
export function compileRegex(source: string, ignoreCase: boolean): { regex?: UserRegex; problem?: string } {
  let pattern = source
  let flags = ''
  const literal = /^\/(.*)\/([a-z]*)$/s.exec(source)
  if (literal) {
    pattern = literal[1]!
    flags = literal[2]!
  }
  if (pattern.length > MAX_PATTERN_CHARS) return { problem: `A regular expression may have at most ${MAX_PATTERN_CHARS} characters` }
  if (!/^[imsu]*$/.test(flags) || new Set(flags).size !== flags.length) return { problem: 'Regular expression flags are limited to i, m, s and u' }
  if (ignoreCase && !flags.includes('i')) flags += 'i'
  const key = `${flags}/${pattern}`
  const known = compiled.get(key)
  if (known) return { regex: known }
  try {
    const re2 = RE2JS.compile(
      pattern,
      [...flags].reduce((all, flag) => all | RE2_FLAGS[flag]!, 0),
    )
    const regex: UserRegex = { test: (subject) => re2.matcher(subject).find() }
    if (compiled.size >= COMPILED_CACHE_SIZE) compiled.delete(compiled.keys().next().value!)
    compiled.set(key, regex)
    return { regex }
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : 'unknown error'
    return { problem: `Invalid regular expression (backreferences and lookarounds are not supported): ${reason}` }
  }
}

function asText(value: unknown, side: string): string {
  value = normalise(value)
  if (value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw new ExpressionError(`The ${side} side of a text condition is ${Array.isArray(value) ? 'a list' : 'an object'}; compare one of its fields instead`)
}

function asNumber(value: unknown, side: string): number {
  value = normalise(value)
  if (typeof value === 'number') return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  throw new ExpressionError(`The ${side} side of a number condition is not a number`)
}

function sizeOf(value: unknown): number {
  if (Array.isArray(value) || typeof value === 'string') return value.length
  if (isPlainObject(value)) return Object.keys(value).length
  if (value === null || value === undefined) return 0
  throw new ExpressionError('length_* operators need a list, an object or text')
}

/** One resolved condition (left and right already through their templates). Throws ExpressionError for impossible ones. */
export function testCondition({ left, operator, right }: Condition, ignoreCase: boolean): boolean {
  left = normalise(left)
  right = normalise(right)
  const fold = (s: string) => (ignoreCase ? s.toLowerCase() : s)
  switch (operator) {
    case 'exists':
      return left !== null
    case 'not_exists':
      return left === null
    case 'is_empty':
      return left === null || left === '' || (Array.isArray(left) && left.length === 0)
    case 'is_not_empty':
      return !(left === null || left === '' || (Array.isArray(left) && left.length === 0))
    case 'is_true':
      return left === true
    case 'is_false':
      return left === false
    case 'gt':
      return asNumber(left, 'left') > asNumber(right, 'right')
    case 'gte':
      return asNumber(left, 'left') >= asNumber(right, 'right')
    case 'lt':
      return asNumber(left, 'left') < asNumber(right, 'right')
    case 'lte':
      return asNumber(left, 'left') <= asNumber(right, 'right')
    case 'length_eq':
      return sizeOf(left) === asNumber(right, 'right')
    case 'length_gt':
      return sizeOf(left) > asNumber(right, 'right')
    case 'length_lt':
      return sizeOf(left) < asNumber(right, 'right')
  }
  if (Array.isArray(left) && (operator === 'contains' || operator === 'not_contains')) {
    const found = left.some((item) => (typeof item === 'string' && typeof right === 'string' ? fold(item) === fold(right) : deepEqual(item, right)))
    return operator === 'contains' ? found : !found
  }
  if ((operator === 'equals' || operator === 'not_equals') && typeof left === 'number' && typeof right === 'number') {
    return operator === 'equals' ? left === right : left !== right
  }
  const l = asText(left, 'left')
  if (operator === 'matches_regex' || operator === 'not_matches_regex') {
    if (l.length > MAX_SUBJECT_CHARS) throw new ExpressionError(`A regular expression is tested against at most ${MAX_SUBJECT_CHARS} characters`)
    const { regex, problem } = compileRegex(asText(right, 'right'), ignoreCase)
    if (!regex) throw new ExpressionError(problem!)
    return regex.test(l) === (operator === 'matches_regex')
  }
  const a = fold(l)
  const b = fold(asText(right, 'right'))
  switch (operator) {
    case 'equals':
      return a === b
    case 'not_equals':
      return a !== b
    case 'contains':
      return a.includes(b)
    case 'not_contains':
      return !a.includes(b)
    case 'starts_with':
      return a.startsWith(b)
    case 'not_starts_with':
      return !a.startsWith(b)
    case 'ends_with':
      return a.endsWith(b)
    case 'not_ends_with':
      return !a.endsWith(b)
  }
  throw new ExpressionError(`Unknown operator '${operator}'`)
}
