// A route's answer sent as JSON once checked against its response schema, without Elysia's per-response TypeBox
// `Encode` and `Clean` (two more walks of the value, ~4 % of an execute call). Only for schemas with no transforms
// (nothing for Encode to do) whose values the handler builds with exactly the schema's fields (nothing for Clean to
// drop): the bytes are then those Elysia would send. A value that fails the check is handed back unchanged, so
// Elysia's own handling of a bad response applies as before.
import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

// Typed as the value it was given (Elysia's route types take a Response or the schema's value, not a union of both):
// Elysia sends a Response as it is.
export function checkedJson<T>(schema: TSchema): (value: T) => T {
  const check = TypeCompiler.Compile(schema)
  return (value) => (check.Check(value) ? (Response.json(value) as unknown as T) : value)
}
