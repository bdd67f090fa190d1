// The routes whose JSON bodies may be larger than the API's 1 MiB (a UI template's, up to 7 MiB) have their body checked
// against their own schema by the body parser, before Elysia checks it. Elysia's ValidationError writes the whole body
// with JSON.stringify when it is constructed (twice, indented, with its list of errors), before any error handler sees
// it, and that cannot be turned off from outside: for a template of 1 MiB of control characters (six bytes each once
// escaped) that held the request thread ~20 ms to build a 422 whose text we then throw away. Here a body that fails is
// refused with the same 422 our error handler builds from Elysia's error (the same errors, located and capped the same
// way), and a body that passes here passes Elysia's own check, which then never fails.
import { Kind, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import type { ValueError } from '@sinclair/typebox/errors'
import { Value } from '@sinclair/typebox/value'
import { HttpError } from './http-error.ts'
import { ELYSIA_MAX_ERRORS, toValidationIssues } from './validation.ts'

/** Throws the route's 422 (an HttpError) when `body` does not match its schema; may drop unknown fields, as Elysia does. */
export type BodySchemaCheck = (body: object) => void

/** What is read of an Elysia route (`app.routes`). */
export interface RouteBodySchema {
  readonly method: string
  readonly path: string
  readonly hooks: { readonly body?: unknown }
}

/**
 * The check of one body schema, as Elysia runs it with `normalize: 'typebox'` (the app's setting): TypeBox's Clean
 * first (it drops fields the schema does not know, in place; Elysia cleans the same object again, to the same result),
 * then the compiled check; on failure the first 64 errors, as Elysia's `all` lists them.
 */
function compileCheck(schema: TSchema): BodySchemaCheck {
  const compiled = TypeCompiler.Compile(schema)
  return (body) => {
    try {
      Value.Clean(schema, body)
    } catch {
      // Elysia ignores a failed clean too and checks the value as it is.
    }
    if (compiled.Check(body)) return
    const errors: ValueError[] = []
    for (const error of compiled.Errors(body)) if (errors.push(error) >= ELYSIA_MAX_ERRORS) break
    throw new HttpError(422, toValidationIssues('body', errors, body, schema as Record<string, unknown>, errors.length < ELYSIA_MAX_ERRORS))
  }
}

/**
 * The body check of a route by its method and its path as declared (Elysia's `route`): undefined when it declares no
 * TypeBox body schema. Compiled on first use; `routes` is read on the first call, once every module has added its routes.
 */
export function bodySchemaChecksOf(routes: () => readonly RouteBodySchema[]): (method: string, route: string) => BodySchemaCheck | undefined {
  let schemas: Map<string, TSchema> | undefined
  const checks = new Map<string, BodySchemaCheck>()
  return function bodySchemaCheck(method, route) {
    if (!schemas) {
      schemas = new Map()
      for (const entry of routes()) {
        const body = entry.hooks.body
        if (body && typeof body === 'object' && Kind in body) schemas.set(`${entry.method} ${entry.path}`, body as TSchema)
      }
    }
    const key = `${method} ${route}`
    let check = checks.get(key)
    if (check) return check
    const schema = schemas.get(key)
    if (!schema) return undefined
    check = compileCheck(schema)
    checks.set(key, check)
    return check
  }
}
