// Maps TypeBox validation errors to FastAPI/pydantic v2 shaped 422 entries, every failing field once.
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors'
import { shortenValue, tooManyErrors } from '../bounded-errors.ts'
import type { ValidationIssue } from './http-error.ts'
import { numericInput } from './integer-field.ts'
import { NOT_BLANK } from './schema-pieces.ts'

/** Where Elysia says the failing value came from → the first `loc` element FastAPI clients expect. */
const LOC_ROOT: Record<string, string> = { body: 'body', query: 'query', params: 'path', headers: 'header', cookie: 'cookie' }

/** Inputs of these fields are never echoed back: a 422 must not become a way to leak a secret into logs or screenshots. */
const SECRET_FIELD = /password|secret|token/i

type Schema = Record<string, unknown> & { anyOf?: Schema[]; const?: unknown; type?: unknown; format?: string }

function pointerToPath(pointer: string): (string | number)[] {
  if (pointer === '' || pointer === '/') return []
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part))
}

type Described = Pick<ValidationIssue, 'type' | 'msg' | 'ctx'>

/** A bound the number breaks, in pydantic's words; undefined when it keeps them all. */
function rangeIssue(number: number, schema: Schema): Described | undefined {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema as Record<string, number | undefined>
  if (minimum !== undefined && number < minimum)
    return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${minimum}`, ctx: { ge: minimum } }
  if (exclusiveMinimum !== undefined && number <= exclusiveMinimum)
    return { type: 'greater_than', msg: `Input should be greater than ${exclusiveMinimum}`, ctx: { gt: exclusiveMinimum } }
  if (maximum !== undefined && number > maximum)
    return { type: 'less_than_equal', msg: `Input should be less than or equal to ${maximum}`, ctx: { le: maximum } }
  if (exclusiveMaximum !== undefined && number >= exclusiveMaximum)
    return { type: 'less_than', msg: `Input should be less than ${exclusiveMaximum}`, ctx: { lt: exclusiveMaximum } }
  return undefined
}

/**
 * A number that may come as a string (a query value, or a coerced body field) fails a union of the string and number
 * forms: say what is wrong with the number, not that it matched no form (a 0 where 1 is the minimum is a range error).
 */
function numericUnionIssue(member: Schema, value: unknown): Described {
  const number = numericInput(value)
  if (member.type === 'integer') return (Number.isInteger(number) && rangeIssue(number, member)) || { type: 'int_type', msg: 'Input should be a valid integer' }
  return (Number.isFinite(number) && rangeIssue(number, member)) || { type: 'float_type', msg: 'Input should be a valid number' }
}

function unionIssue(schema: Schema, value: unknown): Described {
  const variants = schema.anyOf ?? []
  if (variants.length > 0 && variants.every((v) => 'const' in v)) {
    const expected = variants.map((v) => `'${String(v.const)}'`)
    const joined = expected.length > 1 ? `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}` : expected[0]
    return { type: 'literal_error', msg: `Input should be ${joined}`, ctx: { expected: joined } }
  }
  const numeric = variants.find((v) => v.type === 'integer') ?? variants.find((v) => v.type === 'number')
  if (numeric) return numericUnionIssue(numeric, value)
  const types = new Set(variants.map((v) => v.type))
  if (types.has('boolean')) return { type: 'bool_type', msg: 'Input should be a valid boolean' }
  if (types.has('string')) return { type: 'string_type', msg: 'Input should be a valid string' }
  return { type: 'value_error', msg: 'Input does not match any allowed shape' }
}

function describe(error: ValueError): Pick<ValidationIssue, 'type' | 'msg' | 'ctx'> {
  const schema = error.schema as Schema
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return { type: 'missing', msg: 'Field required' }
    case ValueErrorType.String:
      return { type: 'string_type', msg: 'Input should be a valid string' }
    case ValueErrorType.Boolean:
      return { type: 'bool_type', msg: 'Input should be a valid boolean' }
    case ValueErrorType.Integer:
      return { type: 'int_type', msg: 'Input should be a valid integer' }
    case ValueErrorType.Number:
      return { type: 'float_type', msg: 'Input should be a valid number' }
    case ValueErrorType.Object:
      return { type: 'model_type', msg: 'Input should be an object' }
    case ValueErrorType.Array:
      return { type: 'list_type', msg: 'Input should be a valid list' }
    case ValueErrorType.Null:
      return { type: 'none_required', msg: 'Input should be None' }
    case ValueErrorType.Literal:
      return { type: 'literal_error', msg: `Input should be '${String(schema.const)}'`, ctx: { expected: `'${String(schema.const)}'` } }
    case ValueErrorType.Union:
      return unionIssue(schema, error.value)
    case ValueErrorType.StringMaxLength:
      return { type: 'string_too_long', msg: `String should have at most ${schema.maxLength} characters`, ctx: { max_length: schema.maxLength } }
    case ValueErrorType.StringMinLength:
      return { type: 'string_too_short', msg: `String should have at least ${schema.minLength} characters`, ctx: { min_length: schema.minLength } }
    case ValueErrorType.StringPattern:
      if (schema.pattern === NOT_BLANK)
        return { type: 'string_too_short', msg: 'String should have at least 1 character that is not a space', ctx: { min_length: 1 } }
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${schema.pattern}'`, ctx: { pattern: schema.pattern } }
    case ValueErrorType.StringFormat:
    case ValueErrorType.StringFormatUnknown:
      return schema.format === 'email'
        ? { type: 'value_error', msg: 'value is not a valid email address' }
        : { type: 'value_error', msg: `Input should be a valid ${schema.format}` }
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${schema.minimum}`, ctx: { ge: schema.minimum } }
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return { type: 'greater_than', msg: `Input should be greater than ${schema.exclusiveMinimum}`, ctx: { gt: schema.exclusiveMinimum } }
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${schema.maximum}`, ctx: { le: schema.maximum } }
    case ValueErrorType.NumberExclusiveMaximum:
    case ValueErrorType.IntegerExclusiveMaximum:
      return { type: 'less_than', msg: `Input should be less than ${schema.exclusiveMaximum}`, ctx: { lt: schema.exclusiveMaximum } }
    case ValueErrorType.ArrayMaxItems:
      return { type: 'too_long', msg: `List should have at most ${schema.maxItems} items`, ctx: { max_length: schema.maxItems } }
    case ValueErrorType.ArrayMinItems:
      return { type: 'too_short', msg: `List should have at least ${schema.minItems} items`, ctx: { min_length: schema.minItems } }
    case ValueErrorType.ObjectAdditionalProperties:
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' }
    default:
      return { type: 'value_error', msg: error.message }
  }
}

/**
 * A field is missing when TypeBox says so, or when the failing value is `undefined`: TypeBox does not always emit
 * ObjectRequiredProperty, but an optional field never fails on `undefined`, so an error there means "absent".
 */
const isAbsent = (error: ValueError) => error.type === ValueErrorType.ObjectRequiredProperty || error.value === undefined

/** Inputs echoed back are cut short, so a 1 MiB string or array does not come back in the error. */
const echoInput = (value: unknown): unknown => shortenValue(value)

/** How many errors Elysia's ValidationError lists (its `all`): a list that long says there may be more. */
export const ELYSIA_MAX_ERRORS = 64

/** The first `max` errors of a check (TypeBox yields them lazily), and whether that was all of them. */
export function firstErrors(errors: Iterable<ValueError>, max = 64): { errors: ValueError[]; complete: boolean } {
  const taken: ValueError[] = []
  for (const error of errors) {
    if (taken.length === max) return { errors: taken, complete: false }
    taken.push(error)
  }
  return { errors: taken, complete: true }
}

/**
 * Turns the errors of one failed schema check into 422 entries.
 * TypeBox reports a missing property twice (required, then "expected string"), so each field appears once,
 * with `missing` when it is absent. When `errors` are only the first ones (`complete` false), a final
 * `too_many_errors` entry says there were more.
 */
export function toValidationIssues(source: string, errors: readonly ValueError[], root: unknown, rootSchema?: Schema, complete = true): ValidationIssue[] {
  const prefix = LOC_ROOT[source] ?? source
  // TypeBox lets an array pass as an object and then reports every field as absent; the real problem is the root.
  if (rootSchema?.type === 'object' && (root === null || typeof root !== 'object' || Array.isArray(root))) {
    return [
      root === undefined
        ? { loc: [prefix], msg: 'Field required', type: 'missing' }
        : { loc: [prefix], msg: 'Input should be an object', type: 'model_type', input: echoInput(root) },
    ]
  }
  // One error per path, and "missing" beats whatever else was said about the same absent field.
  const byPath = new Map<string, ValueError>()
  for (const error of errors) {
    const kept = byPath.get(error.path)
    if (!kept || (isAbsent(error) && !isAbsent(kept))) byPath.set(error.path, error)
  }
  const issues: ValidationIssue[] = []
  for (const error of byPath.values()) {
    const path = pointerToPath(error.path)
    const described = isAbsent(error) ? { type: 'missing', msg: 'Field required' } : describe(error)
    const issue: ValidationIssue = { loc: [prefix, ...path], msg: described.msg, type: described.type }
    const last = path.at(-1)
    if (error.value !== undefined && !(typeof last === 'string' && SECRET_FIELD.test(last))) issue.input = echoInput(error.value)
    if (described.ctx) issue.ctx = described.ctx
    issues.push(issue)
  }
  if (!complete) issues.push(tooManyErrors(0, true, [prefix]))
  return issues
}
