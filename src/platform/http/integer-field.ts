// Integer request fields (query, path or body) whose bounds are part of the checked schema, so a value out of range is
// a 422 range error at its own loc, like any other field error.
import { Kind, Type, TypeRegistry, type TInteger, type TString } from '@sinclair/typebox'

/** The largest integer a JSON number (an IEEE double) carries exactly; SQLite takes it as a LIMIT or OFFSET. */
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER

export interface IntegerFieldOptions {
  minimum?: number
  maximum?: number
  description?: string
  default?: number
}

/** A decimal integer written as a string (query strings, or JSON bodies that quote their numbers), within the schema's bounds. */
const INTEGER_STRING = 'AgentboxIntegerString'

/** The numeric value of a string or number input, or NaN: '' and '  ' are not 0, and booleans are not 1. */
export function numericInput(value: unknown): number {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && value.trim() !== '') return Number(value)
  return Number.NaN
}

function withinBounds(value: number, { minimum, maximum }: IntegerFieldOptions): boolean {
  return (minimum === undefined || value >= minimum) && (maximum === undefined || value <= maximum)
}

if (!TypeRegistry.Has(INTEGER_STRING)) {
  TypeRegistry.Set<IntegerFieldOptions>(INTEGER_STRING, (schema, value) => {
    if (typeof value !== 'string') return false
    const number = numericInput(value)
    return Number.isInteger(number) && withinBounds(number, schema)
  })
}

/**
 * An integer that may arrive as a number or as a numeric string, and reaches the handler as a number.
 * Elysia's own `t.Integer()` checks its bounds only after turning a string into a number, in a transform that throws
 * an error without the field's name (a quoted `"0"` in a body was reported at `["query"]`). Here both members of the
 * union carry the bounds, so every failure is a union error at the field's path, and validation.ts names it
 * (`int_type`, or `greater_than_equal` / `less_than_equal` with their bound). The published schema keeps the integer
 * member only (openapi-schema.ts drops the string one, as it does for Elysia's).
 */
export function IntegerField(options: IntegerFieldOptions = {}): TInteger {
  const { description, default: fallback, ...bounds } = options
  const asString = { [Kind]: INTEGER_STRING, type: 'string', format: 'integer', ...bounds } as unknown as TString
  const outer = { ...(description !== undefined && { description }), ...(fallback !== undefined && { default: fallback }) }
  return Type.Transform(Type.Union([asString, Type.Integer(bounds)], outer))
    .Decode((value): number => (typeof value === 'string' ? Number(value) : (value as number)))
    .Encode((value) => value) as unknown as TInteger // Elysia types a handler's input by the encoded side (string | number); the handler gets the decoded number
}
