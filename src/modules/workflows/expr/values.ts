// JSON value helpers shared by the evaluator, its functions and the nodes: type tests, deep equality, text, limits.
import { jsonSizeUpTo } from './budget.ts'
import { ExpressionError, isReservedKey } from './errors.ts'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** A result larger than this (as JSON or as a string) fails the expression instead of growing the run's memory. */
export const MAX_RESULT_CHARS = 1_000_000
/** find / filter_by look at no more elements than this. */
export const MAX_SCAN = 10_000

/** Plain objects only (prototype Object.prototype or null): never class instances, functions or host objects. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Missing values and non-finite numbers read as null, as the design says. */
export function normalise(value: unknown): unknown {
  if (value === undefined) return null
  if (typeof value === 'number' && !Number.isFinite(value)) return null
  return value
}

/** `==` is strict and structural: no coercion, arrays and objects compared by content. */
export function deepEqual(a: unknown, b: unknown): boolean {
  a = normalise(a)
  b = normalise(b)
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]))
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
  }
  return false
}

/** Text for mixed templates and concatenation: null is "", objects and arrays are JSON, never "[object Object]". */
export function toText(value: unknown): string {
  value = normalise(value)
  if (value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'object') return stringifyCapped(value)
  return String(value)
}

/** JSON text of a value, refused (before it is built) when it would pass MAX_RESULT_CHARS. */
export function stringifyCapped(value: unknown): string {
  if (jsonSizeUpTo(value, MAX_RESULT_CHARS) > MAX_RESULT_CHARS) throw new ExpressionError(`A text result may have at most ${MAX_RESULT_CHARS} characters`)
  return capString(JSON.stringify(value))
}

export function capString(text: string): string {
  if (text.length > MAX_RESULT_CHARS) throw new ExpressionError(`A text result may have at most ${MAX_RESULT_CHARS} characters`)
  return text
}

export function truthy(value: unknown): boolean {
  return Boolean(normalise(value))
}

/** Own property of a plain object or array element; anything else (prototype, methods, host objects) is missing. */
export function readMember(target: unknown, key: unknown): unknown {
  if (isReservedKey(key)) throw new ExpressionError(`Access to '${String(key)}' is not allowed`, 'expression_forbidden')
  if (target === null || target === undefined) return null
  if (Array.isArray(target)) {
    if (key === 'length') return target.length
    const index = typeof key === 'number' ? key : typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN
    return Number.isInteger(index) && index >= 0 && index < target.length ? normalise(target[index]) : null
  }
  if (typeof target === 'string') {
    if (key === 'length') return target.length
    const index = typeof key === 'number' ? key : typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN
    return Number.isInteger(index) && index >= 0 && index < target.length ? target[index] : null
  }
  if (isPlainObject(target)) {
    const name = typeof key === 'number' ? String(key) : key
    return typeof name === 'string' && Object.hasOwn(target, name) ? normalise(target[name]) : null
  }
  return null
}

/** A dot path (`a.b.0`) read with the same rules as member access; used by find / filter_by. */
export function readPath(target: unknown, path: string): unknown {
  let current = target
  for (const segment of path.split('.')) {
    current = readMember(current, segment)
    if (current === null) return null
  }
  return current
}

/**
 * JSON data without prototype keys (`JSON.parse` makes `__proto__` an own key): the value itself when it has none,
 * which one walk finds out, else a copy without them. Copying 100,000 small objects costs tens of milliseconds.
 */
export function cleanJson<T>(value: T): T {
  const stack: unknown[] = [value]
  while (stack.length) {
    const v = stack.pop()
    if (Array.isArray(v)) for (const item of v) stack.push(item)
    else if (v !== null && typeof v === 'object') {
      if (!isPlainObject(v)) return cloneJson(value)
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue
        if (isReservedKey(key)) return cloneJson(value)
        stack.push((v as Record<string, unknown>)[key])
      }
    } else if (v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return cloneJson(value)
  }
  return value
}

/** Deep copy of JSON data, refusing prototype keys: what set and merge start from, so run state is never shared. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T
  if (isPlainObject(value)) {
    const copy: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (isReservedKey(k)) continue
      copy[k] = cloneJson(v)
    }
    return copy as T
  }
  return normalise(value) as T
}
