// Every path × method of a document as an operation: a stable id, a tool input schema (parameters by name, the request
// body as `body`), where each argument goes in the request, the security it needs and a sample answer for dry runs.
import { createHash } from 'node:crypto'
import { sampleResponse, type SampleResponse } from './examples.ts'
import { brokenRef, followRefs, isObject, pointerOf } from './pointer.ts'
import type { ImportWarning } from './read.ts'
import { noteScope, readRequirements, type DeclaredScope, type SecurityRequirement } from './security.ts'
import { ToolSchemaConverter, truncateText, SCHEMA_DESCRIPTION_MAX, type JsonSchema } from './tool-schema.ts'

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]
export const OPERATION_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/
const MAX_ID = 64
/** Operation descriptions are kept for people reading them; past this they are documentation, not a summary. */
const DESCRIPTION_MAX = 8000
/** A dry run's sample is a sample: a document's example beyond this is replaced by one made from the schema. */
const SAMPLE_MAX_CHARS = 256 * 1024

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie'

/** Where one argument goes in the request. */
export type ArgumentTarget =
  | { arg: string; in: ParameterLocation; name: string; style?: string; explode?: boolean; json?: boolean }
  | { arg: 'body'; in: 'body'; content_type: string }

export interface ExtractedOperation {
  operation_id: string
  method: string
  path: string
  summary: string
  description: string
  tags: string[]
  deprecated: boolean
  input_schema: JsonSchema
  scopes: string[]
  /** Alternatives (any one will do) of schemes needed together; `[]` needs no credential. */
  security: SecurityRequirement[]
  targets: ArgumentTarget[]
  sample: SampleResponse
}

const BODY_TYPE_PREFERENCE = [
  /^application\/json\b/i,
  /^application\/.+\+json\b/i,
  /^application\/x-www-form-urlencoded\b/i,
  /^multipart\/form-data\b/i,
  /^text\/plain\b/i,
]
// OpenAPI: header parameters with these names SHALL be ignored (the client or the credential sets them).
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

const hash8 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8)

/** `method_path` with every run of other characters as one `_`; long ones keep their head and a hash of the whole. */
export function derivedOperationId(method: string, path: string): string {
  const base = `${method}_${path}`.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || method
  return base.length <= MAX_ID ? base : `${base.slice(0, MAX_ID - 9)}_${hash8(base)}`
}

function uniqueId(candidate: string, taken: Set<string>): string {
  if (!taken.has(candidate)) return candidate
  for (let n = 2; ; n++) {
    const suffix = `_${n}`
    const id = `${candidate.slice(0, MAX_ID - suffix.length)}${suffix}`
    if (!taken.has(id)) return id
  }
}

interface ParameterEntry {
  name: string
  in: ParameterLocation
  raw: Record<string, unknown>
}

function mergedParameters(
  document: Record<string, unknown>,
  pathItem: Record<string, unknown>,
  operation: Record<string, unknown>,
  pointer: string,
  warnings: ImportWarning[],
): ParameterEntry[] {
  const byKey = new Map<string, ParameterEntry>()
  for (const list of [pathItem.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue
    for (const item of list) {
      const broken = brokenRef(document, item)
      if (broken) {
        if (warnings.length < 100) warnings.push({ pointer, message: `A parameter's ${refProblem(item, broken)}; it is ignored` })
        continue
      }
      const parameter = followRefs(document, item)
      if (!isObject(parameter) || typeof parameter.name !== 'string' || parameter.name === '') {
        if (warnings.length < 100) warnings.push({ pointer, message: 'A parameter without a name is ignored' })
        continue
      }
      const location = parameter.in
      if (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie') {
        if (warnings.length < 100) warnings.push({ pointer, message: `Parameter "${parameter.name}" has no valid "in" and is ignored` })
        continue
      }
      if (location === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue
      // An operation's parameter overrides the path's of the same name and location.
      byKey.set(`${location}:${parameter.name}`, { name: parameter.name, in: location, raw: parameter })
    }
  }
  return [...byKey.values()]
}

/** `$ref "#/x" refers to itself…` for a warning; `item` is a reference brokenRef found broken. */
function refProblem(item: unknown, broken: 'loop' | 'unresolved'): string {
  const ref = JSON.stringify(String((item as { $ref: unknown }).$ref).slice(0, 200))
  return broken === 'loop' ? `$ref ${ref} comes back to itself (a reference loop)` : `$ref ${ref} does not resolve`
}

function chooseBodyType(content: Record<string, unknown>): string | undefined {
  const types = Object.keys(content)
  for (const pattern of BODY_TYPE_PREFERENCE) {
    const found = types.find((type) => pattern.test(type))
    if (found) return found
  }
  return types[0]
}

/** Path parameters named in the template that the document did not declare still need a value. */
function templateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!)
}

export interface ExtractedOperations<T = ExtractedOperation> {
  /** Each operation as `keep` turned it. */
  operations: T[]
  /** Scopes that only appear in security requirements (openIdConnect, or sloppy documents), by scheme. */
  requiredScopes: Map<string, DeclaredScope>
}

/**
 * `keep` turns each operation into what is kept of it as soon as it is built (the import serialises it), so that the
 * schemas of thousands of operations are never all held at once beside the document.
 */
export function extractOperations<T = ExtractedOperation>(
  document: Record<string, unknown>,
  warnings: ImportWarning[],
  keep: (operation: ExtractedOperation) => T = (operation) => operation as T,
): ExtractedOperations<T> {
  const converter = new ToolSchemaConverter(document, warnings)
  const paths = isObject(document.paths) ? document.paths : {}
  const globalSecurity = readRequirements(document.security)
  const operations: T[] = []
  const taken = new Set<string>()
  const requiredScopes = new Map<string, DeclaredScope>()
  const warn = (pointer: string, message: string) => {
    if (warnings.length < 100) warnings.push({ pointer, message })
  }
  // Said once for the document: GitHub's description alone has a thousand `area/name` ids.
  const unusableIds: string[] = []

  for (const [path, rawItem] of Object.entries(paths)) {
    const broken = brokenRef(document, rawItem)
    if (broken) {
      warn(pointerOf(['paths', path]), `Path item "${path.slice(0, 200)}": its ${refProblem(rawItem, broken)}, so it has no operations`)
      continue
    }
    const pathItem = followRefs(document, rawItem)
    if (!isObject(pathItem)) continue
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method]
      if (!isObject(operation)) continue
      const pointer = pointerOf(['paths', path, method])
      const declaredId = typeof operation.operationId === 'string' ? operation.operationId : undefined
      let operationId = declaredId !== undefined && OPERATION_ID_PATTERN.test(declaredId) ? declaredId : derivedOperationId(method, path)
      if (declaredId !== undefined && operationId !== declaredId) unusableIds.push(pointer)
      if (taken.has(operationId)) {
        const unique = uniqueId(operationId, taken)
        warn(pointer, `Operation id "${operationId}" is used by an earlier operation; this one is "${unique}"`)
        operationId = unique
      }
      taken.add(operationId)

      const needs = new Set<string>()
      const parameters = mergedParameters(document, pathItem, operation, pointer, warnings)
      const declaredPath = new Set(parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name))
      for (const name of templateNames(path))
        if (!declaredPath.has(name)) {
          warn(pointer, `Path parameter "${name}" is not declared; it is taken as a required string`)
          parameters.push({ name, in: 'path', raw: { name, in: 'path', required: true, schema: { type: 'string' } } })
        }

      let body: { schema: JsonSchema; contentType: string; required: boolean } | undefined
      const bodyBroken = brokenRef(document, operation.requestBody)
      if (bodyBroken) warn(pointer, `The request body's ${refProblem(operation.requestBody, bodyBroken)}; the operation is imported without a body`)
      const requestBody = followRefs(document, operation.requestBody)
      if (isObject(requestBody) && isObject(requestBody.content)) {
        const contentType = chooseBodyType(requestBody.content)
        if (contentType !== undefined) {
          const media = followRefs(document, requestBody.content[contentType])
          const rawSchema = isObject(media) && media.schema !== undefined ? media.schema : undefined
          let schema = rawSchema === undefined ? (/json/i.test(contentType) ? {} : { type: 'string' }) : converter.convert(rawSchema, needs)
          if (typeof requestBody.description === 'string' && requestBody.description !== '' && !('description' in schema) && !('$ref' in schema))
            schema = { ...schema, description: truncateText(requestBody.description, SCHEMA_DESCRIPTION_MAX) }
          body = { schema, contentType, required: requestBody.required === true }
        }
      }

      // Names as declared; only names that clash (across locations, or with `body`) are prefixed with their location.
      const counts = new Map<string, number>()
      for (const parameter of parameters) counts.set(parameter.name, (counts.get(parameter.name) ?? 0) + 1)
      const properties: JsonSchema = {}
      const required: string[] = []
      const targets: ArgumentTarget[] = []
      for (const parameter of parameters) {
        const clash = (counts.get(parameter.name) ?? 0) > 1 || (body !== undefined && parameter.name === 'body')
        let arg = clash ? `${parameter.in}_${parameter.name}` : parameter.name
        while (arg in properties || (body !== undefined && arg === 'body')) arg = `${parameter.in}_${arg}`
        let schemaSource: unknown = parameter.raw.schema
        let json = false
        if (schemaSource === undefined && isObject(parameter.raw.content)) {
          const media = followRefs(document, Object.values(parameter.raw.content)[0])
          schemaSource = isObject(media) ? media.schema : undefined
          json = true
        }
        let schema = converter.convert(schemaSource ?? { type: 'string' }, needs)
        if (typeof parameter.raw.description === 'string' && parameter.raw.description !== '' && !('description' in schema) && !('$ref' in schema))
          schema = { ...schema, description: truncateText(parameter.raw.description, SCHEMA_DESCRIPTION_MAX) }
        if (parameter.raw.deprecated === true) schema = { ...schema, deprecated: true }
        properties[arg] = schema
        if (parameter.in === 'path' || parameter.raw.required === true) required.push(arg)
        const target: ArgumentTarget = { arg, in: parameter.in, name: parameter.name }
        if (typeof parameter.raw.style === 'string') target.style = parameter.raw.style
        if (typeof parameter.raw.explode === 'boolean') target.explode = parameter.raw.explode
        if (json) target.json = true
        targets.push(target)
      }
      if (body) {
        properties.body = body.schema
        if (body.required) required.push('body')
        targets.push({ arg: 'body', in: 'body', content_type: body.contentType })
      }
      const input_schema: JsonSchema = { type: 'object', properties }
      if (required.length > 0) input_schema.required = required
      input_schema.additionalProperties = false
      const defs = converter.definitions(needs)
      if (defs) input_schema.$defs = defs

      const security = Array.isArray(operation.security) ? readRequirements(operation.security) : globalSecurity
      const scopes = new Set<string>()
      for (const requirement of security)
        for (const [scheme, list] of Object.entries(requirement))
          for (const scope of list) {
            scopes.add(scope)
            noteScope(requiredScopes, scope, scheme, '')
          }

      let sample = sampleResponse(document, operation)
      if (JSON.stringify(sample.body)?.length > SAMPLE_MAX_CHARS) sample = { ...sample, body: null }

      operations.push(
        keep({
          operation_id: operationId,
          method: method.toUpperCase(),
          path,
          summary: typeof operation.summary === 'string' ? truncateText(operation.summary, 500) : '',
          description: typeof operation.description === 'string' ? truncateText(operation.description, DESCRIPTION_MAX) : '',
          tags: Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string') : [],
          deprecated: operation.deprecated === true,
          input_schema,
          scopes: [...scopes].sort(),
          security,
          targets,
          sample,
        }),
      )
    }
  }
  if (unusableIds.length > 0)
    warnings.unshift({
      pointer: unusableIds[0]!,
      message: `${unusableIds.length} operationId${unusableIds.length === 1 ? ' is' : 's are'} not 1-64 characters of A-Z a-z 0-9 _ . - (this is the first); their ids are derived from method and path`,
    })
  return { operations, requiredScopes }
}
