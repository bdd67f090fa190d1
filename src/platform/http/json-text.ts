// A JSON request body from its bytes: UTF-8 checked, nesting bounded, parsed. Shared by the request thread (small
// bodies) and the JSON worker (large ones), so both give the same value and the same reasons for refusing.

/** The deepest nesting of arrays and objects a JSON body may have; no request of the API needs more than a dozen levels. */
export const MAX_JSON_DEPTH = 128

/**
 * True when the JSON text nests arrays and objects deeper than `max`: one pass over the characters, strings skipped.
 * Run before JSON.parse, because every later walk of the value (schema checks, cleaning, cloning) recurses: 100,000
 * levels blocked the server for a second and then failed with a 500.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= max) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // Inside a string: skip to its closing quote, stepping over escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) i++
        else if (d === 0x22) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

/**
 * The most values (objects, arrays, strings, numbers, booleans, nulls; not keys) a JSON body larger than the API's
 * 1 MiB may hold. Only the template routes take such a body, and theirs holds a few dozen; millions of small values
 * (7 MiB of `0,` or `{},`) cost the request thread 30–300 ms even parsed elsewhere: copying the value back from the
 * worker, and every later walk of it. At this count the copy is a few milliseconds.
 */
export const MAX_LARGE_BODY_VALUES = 100_000

/**
 * True when `value` holds more than `max` values: a walk that counts each array's or object's members before visiting
 * them, so it stops at the first container that takes the count past `max` (a 3.6M-item array is not walked).
 */
export function holdsMoreValuesThan(value: unknown, max: number): boolean {
  let count = 1
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const next = stack.pop()
    if (next === null || typeof next !== 'object') continue
    const members = Array.isArray(next) ? next : Object.values(next)
    count += members.length
    if (count > max) return true
    for (const member of members) if (member !== null && typeof member === 'object') stack.push(member)
  }
  return count > max
}

/** The parsed value, or why the bytes are not JSON (the `ctx.error` of the 422 `json_invalid` answer). */
export type JsonBodyResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

const decoder = new TextDecoder('utf-8', { fatal: true })

/** `maxValues`: refuse a body holding more values than this (MAX_LARGE_BODY_VALUES for a body over 1 MiB). */
export function parseJsonBytes(bytes: Uint8Array, maxValues = Number.POSITIVE_INFINITY): JsonBodyResult {
  let text: string
  try {
    text = decoder.decode(bytes)
  } catch {
    return { ok: false, error: 'Body is not valid UTF-8' }
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { ok: false, error: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, error: (error as Error).message }
  }
  if (holdsMoreValuesThan(value, maxValues)) return { ok: false, error: `A JSON body this large may hold at most ${maxValues} values` }
  return { ok: true, value }
}
