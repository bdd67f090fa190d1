// The expression functions (docs/api.md "Workflows"): small, pure, bounded; the only things a `{{ }}` can call.
import { ExpressionError } from './errors.ts'
import { capString, cloneJson, deepEqual, isPlainObject, MAX_RESULT_CHARS, MAX_SCAN, normalise, readPath, stringifyCapped, toText } from './values.ts'

type Fn = (...args: unknown[]) => unknown

const fail = (message: string) => new ExpressionError(message)

function list(name: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw fail(`${name}() needs an array as its first argument`)
  if (value.length > MAX_SCAN) throw fail(`${name}() looks at most ${MAX_SCAN} elements`)
  return value
}
function text(name: string, value: unknown): string {
  value = normalise(value)
  if (value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw fail(`${name}() needs text`)
}
function numbers(name: string, args: unknown[]): number[] {
  const values = args.length === 1 && Array.isArray(args[0]) ? args[0] : args
  if (values.length > MAX_SCAN) throw fail(`${name}() looks at most ${MAX_SCAN} numbers`)
  return values.map((v) => {
    if (typeof v !== 'number') throw fail(`${name}() needs numbers`)
    return v
  })
}
function matches(item: unknown, field: unknown, value: unknown): boolean {
  if (typeof field !== 'string') throw fail('The field of find() and filter_by() must be text (a dot path)')
  return deepEqual(readPath(item, field), value)
}

// A null-prototype table: `toString`, `constructor` or `__proto__` can never be found here by name.
const table: Record<string, Fn> = Object.create(null)
Object.assign(table, {
  find: (array: unknown, field: unknown, value: unknown) => list('find', array).find((item) => matches(item, field, value)) ?? null,
  filter_by: (array: unknown, field: unknown, value: unknown) => list('filter_by', array).filter((item) => matches(item, field, value)),
  length: (value: unknown) => {
    if (Array.isArray(value) || typeof value === 'string') return value.length
    if (isPlainObject(value)) return Object.keys(value).length
    if (value === null || value === undefined) return 0
    throw fail('length() needs an array, an object or text')
  },
  keys: (value: unknown) => (isPlainObject(value) ? Object.keys(value) : []),
  values: (value: unknown) => (isPlainObject(value) ? Object.values(value).map(normalise) : []),
  first: (value: unknown) => (Array.isArray(value) ? normalise(value[0]) : null),
  last: (value: unknown) => (Array.isArray(value) ? normalise(value[value.length - 1]) : null),
  join: (array: unknown, separator: unknown = ',') => {
    const sep = text('join', separator)
    let total = 0
    // Measured part by part, so a list of large values never becomes one huge text before the cap is checked.
    const parts = list('join', array).map((item) => {
      const part = toText(item)
      total += part.length + sep.length
      if (total > MAX_RESULT_CHARS + sep.length) throw fail(`join() would make more than ${MAX_RESULT_CHARS} characters`)
      return part
    })
    return parts.join(sep)
  },
  // The limit stops the split itself after MAX_SCAN pieces: never a list of every piece of a huge text, then cut.
  split: (value: unknown, separator: unknown) => text('split', value).split(text('split', separator), MAX_SCAN),
  lower: (value: unknown) => text('lower', value).toLowerCase(),
  upper: (value: unknown) => text('upper', value).toUpperCase(),
  trim: (value: unknown) => text('trim', value).trim(),
  contains: (haystack: unknown, needle: unknown) => {
    if (Array.isArray(haystack)) return haystack.some((item) => deepEqual(item, needle))
    return text('contains', haystack).includes(text('contains', needle))
  },
  starts_with: (value: unknown, prefix: unknown) => text('starts_with', value).startsWith(text('starts_with', prefix)),
  ends_with: (value: unknown, suffix: unknown) => text('ends_with', value).endsWith(text('ends_with', suffix)),
  // Literal replacement of every occurrence: split/join, so "$&" and friends mean nothing.
  replace: (value: unknown, from: unknown, to: unknown) => {
    const source = text('replace', value)
    const search = text('replace', from)
    if (search === '') return source
    const replacement = text('replace', to)
    const parts = source.split(search)
    // The result's length is known before it is built: refuse it there, not after.
    if (source.length + (parts.length - 1) * (replacement.length - search.length) > MAX_RESULT_CHARS)
      throw fail(`replace() would make more than ${MAX_RESULT_CHARS} characters`)
    return parts.join(replacement)
  },
  to_number: (value: unknown) => {
    value = normalise(value)
    if (typeof value === 'number') return value
    if (typeof value === 'boolean') return value ? 1 : 0
    if (typeof value === 'string' && value.trim() !== '') {
      const n = Number(value)
      if (Number.isFinite(n)) return n
    }
    throw fail(`to_number() cannot convert ${JSON.stringify(value)?.slice(0, 50)} to a number`)
  },
  to_string: (value: unknown) => capString(toText(value)),
  to_json: (value: unknown) => stringifyCapped(normalise(value)),
  parse_json: (value: unknown) => {
    const source = text('parse_json', value)
    if (source.length > MAX_RESULT_CHARS) throw fail('parse_json() takes at most 1 MB')
    try {
      // JSON.parse makes "__proto__" an own key; cloneJson drops such keys so they can never reach an assignment.
      return cloneJson(JSON.parse(source))
    } catch {
      throw fail('parse_json() got text that is not JSON')
    }
  },
  round: (value: unknown, digits: unknown = 0) => {
    if (typeof value !== 'number') throw fail('round() needs a number')
    if (typeof digits !== 'number' || !Number.isInteger(digits) || digits < 0 || digits > 15) throw fail('round() takes 0 to 15 digits')
    const factor = 10 ** digits
    return Math.round(value * factor) / factor
  },
  min: (...args: unknown[]) => {
    const ns = numbers('min', args)
    return ns.length ? Math.min(...ns) : null
  },
  max: (...args: unknown[]) => {
    const ns = numbers('max', args)
    return ns.length ? Math.max(...ns) : null
  },
  sum: (...args: unknown[]) => numbers('sum', args).reduce((a, b) => a + b, 0),
})

export const FUNCTIONS: Readonly<Record<string, Fn>> = Object.freeze(table)
export const FUNCTION_NAMES: ReadonlySet<string> = new Set(Object.keys(table))
