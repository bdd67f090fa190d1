// What a JSON value costs: its size as JSON (what a response or a recorded step writes) and an estimate of the memory
// it takes as objects (what the server holds), both from one walk that never builds the JSON.
import { LIMITS } from '../definition/types.ts'
import { mib } from './budget.ts'

/**
 * Memory per value, in bytes, calibrated on Bun (JavaScriptCore) with a forced GC: an empty object in a list takes
 * ~72 bytes, a one-key object ~40, a number in a list 8, a 10-character text ~65. Every value (each list element and
 * each object entry) costs a slot; objects, lists and texts their cell on top; texts and keys their characters.
 */
export const MEMORY = Object.freeze({ slot: 16, object: 48, list: 32, text: 24 })

export interface ValueSize {
  /** Estimated JSON bytes (text in UTF-16 units, escapes ignored). */
  json: number
  /** Estimated bytes of memory as objects. */
  memory: number
  /** Values walked: the value itself, every list element and every object entry, at any depth. */
  values: number
}

/** The limits one value is measured against; a walk stops as soon as either is passed. */
export interface SizeLimits {
  json: number
  memory: number
}

export const VALUE_LIMITS: SizeLimits = Object.freeze({ json: LIMITS.valueBytesCap, memory: LIMITS.valueMemoryBytesCap })
export const NO_LIMITS: SizeLimits = Object.freeze({ json: Number.POSITIVE_INFINITY, memory: Number.POSITIVE_INFINITY })

/**
 * Sizes of big lists and objects measured before, for one run: run values are never changed once made, so a list
 * referred to twelve times is walked once. Only containers of at least BIG entries are kept (a lookup per small object
 * would cost as much as measuring it).
 */
export class SizeCache {
  readonly sizes = new WeakMap<object, ValueSize>()
  /** Lists are looked up when they are big; objects only once a big one was kept (their size is known only by walking). */
  bigObjects = false
}

const BIG = 64

/** Marks the end of a big container's entries on the walk's stack: its size is then known and can be kept. */
class End {
  constructor(
    readonly container: object,
    readonly json: number,
    readonly memory: number,
    readonly values: number,
  ) {}
}

/**
 * Measures `value` without recursion. A sub-value that appears twice is counted twice, as JSON would write it: a value
 * made of references to one big list costs what a copy of it would (the set node makes such copies, responses and
 * recordings write them out). Stops once either limit is passed and returns the partial size (> that limit). With a
 * cache, big containers measured before are not walked again (their size is added), and those walked are kept.
 */
export function measureValue(value: unknown, limits: SizeLimits = VALUE_LIMITS, cache?: SizeCache): ValueSize {
  let json = 0
  let memory = 0
  let values = 0
  const stack: unknown[] = [value]
  while (stack.length) {
    const v = stack.pop()
    if (v instanceof End) {
      const size = { json: json - v.json, memory: memory - v.memory, values: values - v.values }
      cache!.sizes.set(v.container, size)
      if (!Array.isArray(v.container)) cache!.bigObjects = true
      continue
    }
    if (cache && v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length >= BIG : cache.bigObjects)) {
      const known = cache.sizes.get(v)
      if (known) {
        json += known.json
        memory += known.memory
        values += known.values
        if (json > limits.json || memory > limits.memory) break
        continue
      }
    }
    const json0 = json
    const memory0 = memory
    const values0 = values
    values++
    memory += MEMORY.slot
    if (typeof v === 'string') {
      json += v.length + 2
      memory += MEMORY.text + v.length
    } else if (typeof v === 'number') json += 8
    else if (typeof v === 'boolean') json += 5
    else if (v === null || v === undefined) json += 4
    else if (Array.isArray(v)) {
      if (cache && v.length >= BIG) stack.push(new End(v, json0, memory0, values0))
      json += 2 + v.length
      memory += MEMORY.list
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i])
    } else if (typeof v === 'object') {
      const mark = stack.length
      json += 2
      memory += MEMORY.object
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue
        json += key.length + 4
        memory += key.length
        stack.push((v as Record<string, unknown>)[key])
      }
      // The end goes under the entries just pushed, so it is reached once they are all measured.
      if (cache && stack.length - mark >= BIG) stack.splice(mark, 0, new End(v, json0, memory0, values0))
    }
    if (json > limits.json || memory > limits.memory) break
  }
  return { json, memory, values }
}

/** The sentence for a value past the limits, or null when it is within them. `what` starts it ("The step's output"). */
export function sizeProblem(what: string, size: ValueSize, limits: SizeLimits = VALUE_LIMITS): string | null {
  if (size.json > limits.json) return `${what} is larger than ${mib(limits.json)} as JSON (the limit for one value in a run)`
  if (size.memory > limits.memory)
    return (
      `${what} would take more than ${mib(limits.memory)} in memory (estimated from what it holds: over ` +
      `${size.values.toLocaleString('en-US')} values, every list element and object entry counted, not only its JSON bytes); make the data smaller`
    )
  return null
}
