// Turns a route's TypeBox schema into the OpenAPI 3.1 (JSON Schema 2020-12) schema it publishes, undoing what Elysia writes into schemas.
import { Kind } from '@sinclair/typebox'

type JsonSchema = Record<string, unknown>

/** Elysia's `t.File()` and `t.Files()`: uploaded files, which only a multipart/form-data body carries. */
const FILE_KINDS = new Set(['File', 'Files'])

/**
 * Elysia's request coercion rewrites `t.Integer()`, `t.Number()` and `t.Boolean()` into `anyOf` a string with a format
 * (`integer`, `numeric`, `boolean`) and a default that is not of the string's type, and it does so in the shared schema
 * objects, so response schemas that reuse them change too. The document states the type a client sends or receives.
 */
const COERCED_STRING_FORMATS = new Set(['integer', 'numeric', 'boolean'])

/** TypeBox writes `t.Record(t.String(), …)` as this pattern; the document says it with `additionalProperties`. */
const ANY_KEY_PATTERN = '^(.*)$'

/** Types TypeBox has beyond JSON Schema; a body of these types has no content. */
const NO_CONTENT_TYPES = new Set(['undefined', 'void'])

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value)

const isCoercedString = (value: unknown) => isObject(value) && value.type === 'string' && COERCED_STRING_FORMATS.has(String(value.format))

/** True for a schema that stands for "no body" (`t.Void()`, `t.Undefined()`). */
export function isNoContent(schema: unknown): boolean {
  return isObject(schema) && NO_CONTENT_TYPES.has(String(schema.type))
}

const fileKind = (value: unknown): string | undefined => {
  const kind = isObject(value) ? (value as { [Kind]?: unknown })[Kind] : undefined
  return typeof kind === 'string' && FILE_KINDS.has(kind) ? kind : undefined
}

/** True for a body with a file among its fields: the server reads it as multipart/form-data (and only then). */
export function isMultipartBody(schema: unknown): boolean {
  const properties = isObject(schema) ? schema.properties : undefined
  return isObject(properties) && Object.values(properties).some((property) => fileKind(property) !== undefined)
}

/** A file field as OpenAPI describes an upload (`format: binary`), without Elysia's own markers (`default: "File"`). */
function fileSchema(kind: string, schema: JsonSchema): JsonSchema {
  const binary = { type: 'string', format: 'binary' }
  const { description } = schema
  const described = description === undefined ? {} : { description }
  return kind === 'Files' ? { type: 'array', items: binary, ...described } : { ...binary, ...described }
}

const isNull = (member: JsonSchema) => member.type === 'null' && Object.keys(member).length === 1

/** `anyOf` of literals of one type → `enum`; with a `null` member, `null` joins the enum and the type. */
function literalUnion(members: JsonSchema[]): JsonSchema | undefined {
  const literals = members.filter((member) => 'const' in member)
  const nulls = members.filter(isNull)
  if (literals.length === 0 || literals.length + nulls.length !== members.length) return undefined
  const types = new Set(literals.map((member) => member.type))
  if (types.size !== 1 || typeof literals[0]!.type !== 'string') return undefined
  const type = literals[0]!.type as string
  const values = literals.map((member) => member.const)
  return nulls.length > 0 ? { type: [type, 'null'], enum: [...values, null] } : { type, enum: values }
}

/** `anyOf` [X, null] where X has one type → X with `null` added to its type (and to its enum, if it has one). */
function nullableType(members: JsonSchema[]): JsonSchema | undefined {
  const others = members.filter((member) => !isNull(member))
  if (members.length !== 2 || others.length !== 1) return undefined
  const other = others[0]!
  if (typeof other.type !== 'string' || 'const' in other) return undefined
  return { ...other, type: [other.type, 'null'], ...(Array.isArray(other.enum) && { enum: [...other.enum, null] }) }
}

function normalizeUnion(schema: JsonSchema, members: JsonSchema[]): JsonSchema {
  const { anyOf: _anyOf, ...outer } = schema
  const kept = members.filter((member) => !isCoercedString(member) && !isNoContent(member))
  if (kept.length === 1) return { ...kept[0], ...outer }
  const merged = literalUnion(kept) ?? nullableType(kept)
  return merged ? { ...merged, ...outer } : { ...outer, anyOf: kept }
}

/**
 * A deep copy of `schema` as published JSON Schema: TypeBox's symbol keys are gone; Elysia's `nullable` marker, its
 * coercion unions and the `additionalProperties: false` it writes into body and response schemas when it compiles a
 * route (on the route's first request) are removed. Request bodies keep no such flag because the server drops unknown
 * fields instead of refusing them (docs/api.md "Conventions"), and responses are cleaned to their schema before they are sent.
 */
export function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema)
  if (!isObject(schema)) return schema
  const file = fileKind(schema)
  if (file) return fileSchema(file, schema)
  const copy: JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || (key === 'additionalProperties' && value === false)) continue
    if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      copy[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, child]) => [name, toOpenApiSchema(child)]))
    } else if (key === 'default' || key === 'const' || key === 'enum' || key === 'examples' || key === 'example') {
      copy[key] = structuredClone(value)
    } else {
      copy[key] = toOpenApiSchema(value)
    }
  }
  const patterns = copy.patternProperties as JsonSchema | undefined
  if (patterns && Object.keys(patterns).length === 1 && ANY_KEY_PATTERN in patterns && !('additionalProperties' in copy)) {
    delete copy.patternProperties
    const values = patterns[ANY_KEY_PATTERN] as JsonSchema
    copy.additionalProperties = Object.keys(values).length === 0 ? true : values
  }
  if (Array.isArray(copy.anyOf)) return normalizeUnion(copy, copy.anyOf as JsonSchema[])
  return copy
}
