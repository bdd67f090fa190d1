// Equality of JSON values in linear time: `enum`, `const` and `uniqueItems` compare values by a canonical text (object
// keys sorted) kept in a Set, instead of comparing every pair deeply (20,000 objects with uniqueItems held the server
// for 15 s when compared pairwise).

/** Called with the work a step costs, so the check's budget sees it. */
export type Charge = (units: number) => void

const isPrimitive = (value: unknown): value is string | number | boolean | null | undefined => value === null || typeof value !== 'object'

/**
 * A text equal for equal JSON values and different otherwise (numbers by value, object keys in sorted order). Only for
 * arrays and objects; primitives compare as themselves. One walk checks whether every object's keys are already in
 * order (they usually are); then the native JSON.stringify writes the text, given the sorted keys when they were not.
 */
export function canonicalText(value: object, charge: Charge): string {
  const stack: object[] = [value]
  let ordered = true
  while (stack.length > 0) {
    const node = stack.pop()!
    if (Array.isArray(node)) {
      charge(1 + node.length)
      for (const item of node) if (item !== null && typeof item === 'object') stack.push(item)
      continue
    }
    const keys = Object.keys(node)
    charge(1 + keys.length * 2)
    for (let index = 0; index < keys.length; index++) {
      if (index > 0 && keys[index - 1]! > keys[index]!) ordered = false
      const child = (node as Record<string, unknown>)[keys[index]!]
      if (child !== null && typeof child === 'object') stack.push(child)
    }
  }
  // A list of property names makes JSON.stringify write every object's keys in that list's order.
  const text = ordered ? JSON.stringify(value) : JSON.stringify(value, allKeys(value))
  charge(text.length >> 6)
  return text
}

/** Every key of every object inside `value`, sorted. */
function allKeys(value: object): string[] {
  const keys = new Set<string>()
  const stack: object[] = [value]
  while (stack.length > 0) {
    const node = stack.pop()!
    for (const [key, child] of Object.entries(node)) {
      if (!Array.isArray(node)) keys.add(key)
      if (child !== null && typeof child === 'object') stack.push(child)
    }
  }
  return [...keys].sort()
}

/** An `enum` (or `const`) ready for lookups: primitives in one Set, objects and arrays by their canonical text. */
export interface AllowedValues {
  readonly primitives: ReadonlySet<unknown>
  readonly composites: ReadonlySet<string>
  readonly count: number
}

const prepared = new WeakMap<readonly unknown[], AllowedValues>()

/** The lookup for an `enum` array, built once per schema (the checker keeps schemas between calls). */
export function allowedValues(list: readonly unknown[]): AllowedValues {
  let entry = prepared.get(list)
  if (entry) return entry
  const free: Charge = () => {}
  const objects = list.filter((value) => !isPrimitive(value)) as object[]
  // Built by the Set constructor from the whole list (objects in it are never looked up there): ~3× faster than adding
  // one by one, which matters once for a 100,000-value enum.
  const primitives = new Set<unknown>(list)
  const composites = new Set<string>(objects.map((value) => canonicalText(value, free)))
  entry = { primitives, composites, count: list.length }
  prepared.set(list, entry)
  return entry
}

export function isAllowed(allowed: AllowedValues, value: unknown, charge: Charge): boolean {
  if (isPrimitive(value)) return allowed.primitives.has(value)
  if (allowed.composites.size === 0) return false
  return allowed.composites.has(canonicalText(value, charge))
}

/** The index of the first item equal to an earlier one, with that earlier index; null when all differ. */
export function firstRepeat(items: readonly unknown[], charge: Charge): { index: number; earlier: number } | null {
  const primitives = new Map<unknown, number>()
  const composites = new Map<string, number>()
  charge(items.length)
  for (let index = 0; index < items.length; index++) {
    const item = items[index]
    const map: Map<unknown, number> = isPrimitive(item) ? primitives : composites
    const key = isPrimitive(item) ? item : canonicalText(item, charge)
    const earlier = map.get(key)
    if (earlier !== undefined) return { index, earlier }
    map.set(key, index)
  }
  return null
}
