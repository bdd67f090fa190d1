// Arguments checked against an operation's input schema before anything is sent, with every problem reported in the
// contract's 422 shape (located under the arguments). Uses @cfworker/json-schema: it interprets schemas instead of
// generating code, so nothing from an uploaded document is ever compiled. `pattern` is not checked: its regular
// expression comes from the uploaded document and could take exponential time on a crafted argument; the upstream
// enforces its own patterns.
import { Validator, type OutputUnit } from '@cfworker/json-schema'
import type { InputIssue } from '../../platform/errors.ts'
import { localRefTokens } from './document/pointer.ts'

const CACHE_SIZE = 256
const WRAPPERS = new Set(['properties', 'items', 'prefixItems', 'additionalProperties', '$ref', 'allOf', 'patternProperties', 'dependentSchemas', 'contains'])
const TYPE_ERRORS: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  integer: ['int_type', 'Input should be a valid integer'],
  number: ['float_type', 'Input should be a valid number'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
  null: ['none_required', 'Input should be None'],
}

const SCHEMA_MAPS = new Set(['properties', '$defs', 'patternProperties', 'dependentSchemas'])
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else', 'propertyNames'])

/** The schema without `pattern` keywords; property names (even one called "pattern") are kept. */
function withoutPatterns(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern') continue
    if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object')
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, withoutPatterns(child)]))
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) copy[key] = value.map(withoutPatterns)
    else if (SCHEMA_VALUES.has(key)) copy[key] = withoutPatterns(value)
    else copy[key] = value
  }
  return copy
}

const instanceTokens = (location: string): string[] => localRefTokens(location) ?? []

function valueAtTokens(root: unknown, tokens: readonly string[]): unknown {
  let node = root
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

const asLoc = (tokens: readonly string[], root: unknown): (string | number)[] => {
  const loc: (string | number)[] = []
  let node = root
  for (const token of tokens) {
    loc.push(Array.isArray(node) && /^\d+$/.test(token) ? Number(token) : token)
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[token] : undefined
  }
  return loc
}

function issueOf(unit: OutputUnit, args: unknown, schemaRoot: unknown): InputIssue {
  const tokens = instanceTokens(unit.instanceLocation)
  const input = valueAtTokens(args, tokens)
  const loc = asLoc(tokens, args)
  const rule = valueAtTokens(schemaRoot, instanceTokens(unit.keywordLocation))
  switch (unit.keyword) {
    case 'required': {
      const name = /"([^"]*)"/.exec(unit.error)?.[1] ?? ''
      return { loc: [...loc, name], msg: 'Field required', type: 'missing', input }
    }
    case 'type': {
      const expected = Array.isArray(rule) ? String(rule.find((name) => name !== 'null') ?? rule[0]) : String(rule)
      const [type, msg] = TYPE_ERRORS[expected] ?? ['value_error', `Input should be of type ${expected}`]
      return { loc, msg, type, input }
    }
    case 'enum':
    case 'const': {
      const allowed = unit.keyword === 'const' ? [rule] : Array.isArray(rule) ? rule : []
      const expected = allowed.map((value) => JSON.stringify(value)).join(', ')
      return { loc, msg: `Input should be ${expected}`, type: 'literal_error', input, ctx: { expected } }
    }
    case 'false':
      return { loc, msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input }
    case 'minLength':
      return { loc, msg: `String should have at least ${rule} characters`, type: 'string_too_short', input, ctx: { min_length: rule } }
    case 'maxLength':
      return { loc, msg: `String should have at most ${rule} characters`, type: 'string_too_long', input, ctx: { max_length: rule } }
    case 'minimum':
      return { loc, msg: `Input should be greater than or equal to ${rule}`, type: 'greater_than_equal', input, ctx: { ge: rule } }
    case 'maximum':
      return { loc, msg: `Input should be less than or equal to ${rule}`, type: 'less_than_equal', input, ctx: { le: rule } }
    case 'exclusiveMinimum':
      return { loc, msg: `Input should be greater than ${rule}`, type: 'greater_than', input, ctx: { gt: rule } }
    case 'exclusiveMaximum':
      return { loc, msg: `Input should be less than ${rule}`, type: 'less_than', input, ctx: { lt: rule } }
    case 'minItems':
      return { loc, msg: `List should have at least ${rule} items`, type: 'too_short', input, ctx: { min_length: rule } }
    case 'maxItems':
      return { loc, msg: `List should have at most ${rule} items`, type: 'too_long', input, ctx: { max_length: rule } }
    default:
      return { loc, msg: unit.error, type: 'value_error', input }
  }
}

/** Validators by operation (and application revision), kept for the operations called most recently. */
export class ArgumentChecker {
  readonly #validators = new Map<string, { validator: Validator; schema: unknown }>()

  /** Every problem with `args` (located relative to the arguments), or none. */
  check(cacheKey: string, inputSchema: string, args: unknown): InputIssue[] {
    let entry = this.#validators.get(cacheKey)
    if (entry) this.#validators.delete(cacheKey)
    else {
      const schema = withoutPatterns(JSON.parse(inputSchema))
      entry = { validator: new Validator(schema as object, '2020-12', false), schema }
      if (this.#validators.size >= CACHE_SIZE) this.#validators.delete(this.#validators.keys().next().value!)
    }
    this.#validators.set(cacheKey, entry)
    const result = entry.validator.validate(args)
    if (result.valid) return []
    const nested = (unit: OutputUnit) => /\/(anyOf|oneOf|not)\/\d+\//.test(unit.keywordLocation) || /\/not\//.test(unit.keywordLocation)
    const issues: InputIssue[] = []
    const seen = new Set<string>()
    for (const unit of result.errors) {
      if (WRAPPERS.has(unit.keyword) || nested(unit)) continue
      const issue = issueOf(unit, args, entry.schema)
      const key = `${JSON.stringify(issue.loc)}:${issue.type}`
      if (seen.has(key)) continue
      seen.add(key)
      issues.push(issue)
    }
    return issues.length > 0 ? issues : [{ loc: [], msg: 'The arguments do not match the operation', type: 'value_error', input: args }]
  }
}
