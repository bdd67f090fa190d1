// Checks a value against an operation's input schema (the JSON Schema 2020-12 subset tool-schema.ts writes: types,
// bounds, lengths, enum/const, format, properties/required/additionalProperties, items/prefixItems, uniqueItems,
// allOf/anyOf/oneOf/not, and `$ref`s to `$defs`) with bounded work whatever schema a member uploaded:
// - every step is charged to a budget; past it the check stops (a clear 422, never a stall of the request thread);
// - equality (enum, const, uniqueItems) is by canonical text in a Set, linear in the value's size;
// - a schema re-entered on the same value without descending into it (an allOf/$ref loop) adds nothing, and the
//   depth of the walk is capped, so no schema can overflow the stack;
// - at most `maxIssues` problems are worded (each message, ctx and echoed input short); the rest are counted.
// The schema is interpreted, never compiled to code, and `pattern` is not checked (an uploaded regular expression
// could backtrack for minutes on a crafted argument; the upstream enforces its own patterns).
import { shortenValue, tooManyErrors } from '../../../platform/bounded-errors.ts'
import type { InputIssue } from '../../../platform/errors.ts'
import { localRefTokens, valueAt } from '../document/pointer.ts'
import { allowedValues, canonicalText, firstRepeat, isAllowed } from './canonical.ts'
import { isCheckedFormat, matchesFormat } from './formats.ts'

export interface CheckLimits {
  /** Work units (schema steps, items, properties, characters / 64 hashed) one check may spend. */
  readonly budget: number
  /** Problems worded; more are only counted. */
  readonly maxIssues: number
  /** Nested schema frames (children, $refs, allOf…) at once: far below what would overflow the stack. */
  readonly maxFrames: number
}

/**
 * A unit is 30–90 ns on the project machine (a schema step, a property, an item, a lookup in a large enum ~4):
 * 200,000 is ~6–18 ms. An execute call of ~700 KB costs ~10–15 ms before the check (reading, parsing, routing), and
 * the machine's 2 cores are shared with other requests: together they stay within the event-loop rule
 * (scripts/bench/stall.ts). About 600 KB of ordinary records (8,000 of five fields: 120,000 units) fit, and so do
 * 20,000 objects under uniqueItems whose fields the schema leaves open (140,000; with two described fields 220,000,
 * refused); larger or costlier arguments are a 422 `arguments_too_complex`.
 */
export const DEFAULT_LIMITS: CheckLimits = { budget: 200_000, maxIssues: 50, maxFrames: 1000 }

/** The type of the problem reported when the budget or the depth ran out before the arguments could be judged. */
export const TOO_COMPLEX = 'arguments_too_complex'

type Schema = Record<string, unknown>
type Key = string | number

const TYPE_ERRORS: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  integer: ['int_type', 'Input should be a valid integer'],
  number: ['float_type', 'Input should be a valid number'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
  null: ['none_required', 'Input should be None'],
}
/** Values an enum's message lists; the rest are counted. */
const LISTED_VALUES = 10
const VALUE_CHARS = 60

class Stop extends Error {
  constructor(readonly reason: 'budget' | 'depth') {
    super(reason)
  }
}

const isSchema = (value: unknown): value is Schema => value !== null && typeof value === 'object' && !Array.isArray(value)

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isSchema(value)
    default:
      return true
  }
}

/** `'a', 'b' or 'c'` as pydantic words literals, with at most ten values and a count of the rest. */
function literalList(values: readonly unknown[]): string {
  const shown = values.slice(0, LISTED_VALUES).map((value) => {
    const text = typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? 'null')
    return text.length <= VALUE_CHARS ? text : `${text.slice(0, VALUE_CHARS - 1)}…`
  })
  if (values.length > LISTED_VALUES) return `${shown.join(', ')} or one of ${(values.length - LISTED_VALUES).toLocaleString('en-US')} more values`
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}` : (shown[0] ?? 'nothing')
}

function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return true
  if (Number.isInteger(value) && Number.isInteger(divisor)) return value % divisor === 0
  const quotient = value / divisor
  return Math.abs(quotient - Math.round(quotient)) < 1e-9 * Math.max(1, Math.abs(quotient))
}

/** Code points of `text` (what JSON Schema lengths count), without building an array of them. */
function codePoints(text: string): number {
  let count = 0
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) index++
    count++
  }
  return count
}

/** Where each `$ref` of a schema leads, kept with the schema (the checker keeps schemas between calls). */
const resolved = new WeakMap<object, Map<string, unknown>>()
/** An enum this long is looked up in a Set too large for the processor's cache: each lookup costs several steps. */
const LARGE_ENUM = 1024

/** One check of one value; not reused. */
class Check {
  readonly #root: Schema
  readonly #limits: CheckLimits
  readonly #args: unknown
  #spent = 0
  #frames = 0
  /** >0 while trying the branches of anyOf/oneOf/not: their failures are not the caller's problems to list. */
  #quiet = 0
  readonly issues: InputIssue[] = []
  readonly #said = new Set<string>()
  more = 0
  /** Schemas being applied to the value at hand (from #sameValueFrom on), to notice a loop that never descends. */
  readonly #applying: Schema[] = []
  #sameValueFrom = 0
  /** Where the value at hand is, from the arguments' root: pushed and popped, turned into a `loc` only for a problem. */
  readonly #path: Key[] = []

  constructor(root: Schema, limits: CheckLimits, args: unknown) {
    this.#root = root
    this.#limits = limits
    this.#args = args
  }

  readonly charge = (units: number): void => {
    this.#spent += units
    if (this.#spent > this.#limits.budget) throw new Stop('budget')
  }

  /** Whether a problem found now is worded (not while trying branches, nor once enough are); else it is counted. */
  get #wording(): boolean {
    if (this.#quiet > 0) return false
    if (this.issues.length < this.#limits.maxIssues) return true
    this.more++
    return false
  }

  /** A problem with the value at hand, or (`inside`) with its member of that name. */
  #report(inside: Key | undefined, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): false {
    if (!this.#wording) return false
    this.#add(inside, type, msg, input, ctx)
    return false
  }

  #add(inside: Key | undefined, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): void {
    const loc = inside === undefined ? [...this.#path] : [...this.#path, inside]
    const key = `${JSON.stringify(loc)}:${type}`
    if (this.#said.has(key)) return
    this.#said.add(key)
    const issue: InputIssue = { loc, msg, type, input: shortenValue(input) }
    if (ctx) issue.ctx = ctx
    this.issues.push(issue)
  }

  /** A value outside an enum or const: the list of allowed values is only written when the problem is. */
  #literal(allowed: readonly unknown[], value: unknown): false {
    if (!this.#wording) return false
    const expected = literalList(allowed)
    this.#add(undefined, 'literal_error', `Input should be ${expected}`, value, { expected })
    return false
  }

  /** Whether `value` (at the current path) satisfies `schema`; problems are reported unless quiet. */
  value(schema: unknown, value: unknown): boolean {
    if (schema === true || schema === undefined) return true
    if (schema === false) return this.#report(undefined, 'extra_forbidden', 'Extra inputs are not permitted', value)
    if (!isSchema(schema)) return true
    this.charge(1)
    for (let index = this.#sameValueFrom; index < this.#applying.length; index++) if (this.#applying[index] === schema) return true
    if (++this.#frames > this.#limits.maxFrames) throw new Stop('depth')
    this.#applying.push(schema)
    try {
      return this.#keywords(schema, value)
    } finally {
      this.#applying.pop()
      this.#frames--
    }
  }

  /** A value inside the one at hand: the loop check starts afresh, since descending is progress. */
  #child(schema: unknown, value: unknown, key: Key): boolean {
    const from = this.#sameValueFrom
    this.#sameValueFrom = this.#applying.length
    this.#path.push(key)
    try {
      return this.value(schema, value)
    } finally {
      this.#path.pop()
      this.#sameValueFrom = from
    }
  }

  #quietly(schema: unknown, value: unknown): boolean {
    this.#quiet++
    try {
      return this.value(schema, value)
    } finally {
      this.#quiet--
    }
  }

  #resolve(ref: string): unknown {
    let targets = resolved.get(this.#root)
    if (!targets) resolved.set(this.#root, (targets = new Map()))
    let target = targets.get(ref)
    if (target === undefined) {
      const tokens = localRefTokens(ref)
      // A reference that does not resolve was warned about at import; it accepts any value, as the tool schema says.
      target = tokens ? (valueAt(this.#root, tokens) ?? true) : true
      targets.set(ref, target)
    }
    return target
  }

  #keywords(schema: Schema, value: unknown): boolean {
    let valid = true
    if (typeof schema.$ref === 'string') valid = this.value(this.#resolve(schema.$ref), value) && valid

    const type = schema.type
    if (type !== undefined) {
      const types = Array.isArray(type) ? type : [type]
      if (types.length > 0 && !types.some((name) => hasType(value, name))) {
        const expected = String(types.find((name) => name !== 'null') ?? types[0])
        const [code, msg] = TYPE_ERRORS[expected] ?? ['value_error', 'Input is not of an allowed type']
        // The other keywords describe a value of the right type: saying more about this one would only repeat it.
        return this.#report(undefined, code, msg, value)
      }
    }
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length > LARGE_ENUM) this.charge(4)
      if (!isAllowed(allowedValues(schema.enum), value, this.charge)) valid = this.#literal(schema.enum, value)
    }
    if ('const' in schema && !this.#equalsConst(schema.const, value)) valid = this.#literal([schema.const], value)

    if (typeof value === 'string') valid = this.#string(schema, value) && valid
    else if (typeof value === 'number') valid = this.#number(schema, value) && valid
    else if (Array.isArray(value)) valid = this.#array(schema, value) && valid
    else if (isSchema(value)) valid = this.#object(schema, value) && valid

    if (Array.isArray(schema.allOf)) for (const part of schema.allOf) valid = this.value(part, value) && valid
    if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0) {
      if (!schema.anyOf.some((part) => this.#quietly(part, value)))
        valid = this.#report(undefined, 'value_error', 'Input does not match any of the allowed shapes', value)
    }
    if (Array.isArray(schema.oneOf) && schema.oneOf.length > 0) {
      let matches = 0
      for (const part of schema.oneOf) if (this.#quietly(part, value) && ++matches > 1) break
      if (matches === 0) valid = this.#report(undefined, 'value_error', 'Input does not match any of the allowed shapes', value)
      else if (matches > 1) valid = this.#report(undefined, 'value_error', 'Input matches more than one of the allowed shapes', value)
    }
    if (schema.not !== undefined && this.#quietly(schema.not, value))
      valid = this.#report(
        undefined,
        'value_error',
        isSchema(schema.not) && Object.keys(schema.not).length === 0 ? 'No value is allowed here' : 'Input matches a shape that is not allowed',
        value,
      )
    return valid
  }

  #equalsConst(expected: unknown, value: unknown): boolean {
    if (expected === null || typeof expected !== 'object' || value === null || typeof value !== 'object') return expected === value
    return canonicalText(expected, this.charge) === canonicalText(value, this.charge)
  }

  #string(schema: Schema, value: string): boolean {
    let valid = true
    const { minLength, maxLength } = schema
    // UTF-16 units are at least as many as code points: count only when the bound is in doubt.
    if (typeof minLength === 'number' && (value.length < minLength || (value.length < minLength * 2 && this.#length(value) < minLength)))
      valid = this.#report(undefined, 'string_too_short', `String should have at least ${minLength} characters`, value, { min_length: minLength })
    if (typeof maxLength === 'number' && value.length > maxLength && this.#length(value) > maxLength)
      valid = this.#report(undefined, 'string_too_long', `String should have at most ${maxLength} characters`, value, { max_length: maxLength })
    if (isCheckedFormat(schema.format)) {
      this.charge(1 + (Math.min(value.length, 4096) >> 4))
      if (!matchesFormat(schema.format, value))
        valid = this.#report(
          undefined,
          'value_error',
          schema.format === 'email' ? 'value is not a valid email address' : `Input should be a valid ${schema.format}`,
          value,
          { format: schema.format },
        )
    }
    return valid
  }

  #length(value: string): number {
    this.charge(1 + (value.length >> 6))
    return codePoints(value)
  }

  #number(schema: Schema, value: number): boolean {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema
    let valid = true
    if (typeof minimum === 'number' && value < minimum)
      valid = this.#report(undefined, 'greater_than_equal', `Input should be greater than or equal to ${minimum}`, value, { ge: minimum })
    if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum)
      valid = this.#report(undefined, 'greater_than', `Input should be greater than ${exclusiveMinimum}`, value, { gt: exclusiveMinimum })
    if (typeof maximum === 'number' && value > maximum)
      valid = this.#report(undefined, 'less_than_equal', `Input should be less than or equal to ${maximum}`, value, { le: maximum })
    if (typeof exclusiveMaximum === 'number' && value >= exclusiveMaximum)
      valid = this.#report(undefined, 'less_than', `Input should be less than ${exclusiveMaximum}`, value, { lt: exclusiveMaximum })
    if (typeof multipleOf === 'number' && !isMultipleOf(value, multipleOf))
      valid = this.#report(undefined, 'multiple_of', `Input should be a multiple of ${multipleOf}`, value, { multiple_of: multipleOf })
    return valid
  }

  #array(schema: Schema, value: unknown[]): boolean {
    let valid = true
    const { minItems, maxItems } = schema
    if (typeof minItems === 'number' && value.length < minItems)
      valid = this.#report(undefined, 'too_short', `List should have at least ${minItems} item${minItems === 1 ? '' : 's'}`, value, { min_length: minItems })
    if (typeof maxItems === 'number' && value.length > maxItems)
      valid = this.#report(undefined, 'too_long', `List should have at most ${maxItems} item${maxItems === 1 ? '' : 's'}`, value, { max_length: maxItems })
    if (schema.uniqueItems === true) {
      const repeat = firstRepeat(value, this.charge)
      if (repeat)
        valid = this.#report(undefined, 'value_error', `List should have unique items: item ${repeat.index} repeats item ${repeat.earlier}`, value, {
          index: repeat.index,
          repeats: repeat.earlier,
        })
    }
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : []
    for (let index = 0; index < value.length; index++) {
      const itemSchema = index < prefix.length ? prefix[index] : schema.items
      if (itemSchema === undefined) {
        if (index >= prefix.length) break
        continue
      }
      valid = this.#child(itemSchema, value[index], index) && valid
    }
    return valid
  }

  #object(schema: Schema, value: Record<string, unknown>): boolean {
    let valid = true
    const properties = isSchema(schema.properties) ? schema.properties : undefined
    if (Array.isArray(schema.required)) {
      this.charge(schema.required.length)
      for (const name of schema.required)
        if (typeof name === 'string' && !Object.hasOwn(value, name)) valid = this.#report(name, 'missing', 'Field required', value)
    }
    const { minProperties, maxProperties, additionalProperties } = schema
    if (typeof minProperties === 'number' || typeof maxProperties === 'number') {
      const count = Object.keys(value).length
      if (typeof minProperties === 'number' && count < minProperties)
        valid = this.#report(undefined, 'too_short', `Dictionary should have at least ${minProperties} items`, value, { min_length: minProperties })
      if (typeof maxProperties === 'number' && count > maxProperties)
        valid = this.#report(undefined, 'too_long', `Dictionary should have at most ${maxProperties} items`, value, { max_length: maxProperties })
    }
    if (properties === undefined && additionalProperties === undefined) return valid
    for (const name in value) {
      if (!Object.hasOwn(value, name)) continue
      this.charge(1)
      const declared = properties !== undefined && Object.hasOwn(properties, name)
      const rule = declared ? properties[name] : additionalProperties
      if (rule === undefined) continue
      if (rule === false) valid = this.#report(name, 'extra_forbidden', 'Extra inputs are not permitted', value[name])
      else valid = this.#child(rule, value[name], name) && valid
    }
    return valid
  }

  /** The problems found, ending with a count of those not worded; or the one saying the check could not finish. */
  run(): InputIssue[] {
    try {
      this.value(this.#root, this.#args)
    } catch (error) {
      if (!(error instanceof Stop)) throw error
      if (this.issues.length > 0) return [...this.issues, tooManyErrors(this.more, true)]
      const why =
        error.reason === 'budget'
          ? `the check stopped after ${this.#limits.budget.toLocaleString('en-US')} steps`
          : `the schema nests deeper than ${this.#limits.maxFrames} levels`
      return [
        {
          loc: [],
          msg: `The arguments are too large or too complex to check against this operation's schema (${why}); send fewer or smaller values`,
          type: TOO_COMPLEX,
          input: shortenValue(this.#args),
        },
      ]
    }
    if (this.more > 0) return [...this.issues, tooManyErrors(this.more, false)]
    return this.issues
  }

  get spent(): number {
    return this.#spent
  }
}

/** Every problem with `args` against `schema` (located relative to the arguments), or none; and the work it took. */
export function checkAgainstSchema(schema: Schema, args: unknown, limits: CheckLimits = DEFAULT_LIMITS): { issues: InputIssue[]; spent: number } {
  const check = new Check(schema, limits, args)
  const issues = check.run()
  return { issues, spent: check.spent }
}
