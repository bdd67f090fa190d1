// OpenAPI 3.0 and 3.1 schemas as compact JSON Schema 2020-12 for tool inputs: what a model fills and what arguments are checked
// against. Component schemas that are small and not recursive are inlined (many clients and models do not follow
// `$ref`); recursive or large ones go to `$defs` once, so a recursive schema never explodes. Only the keywords that
// describe a value are kept: discriminators, XML hints, examples and vendor extensions are dropped, and properties
// marked readOnly (the server sets them) are removed from request schemas. A schema that contains itself without
// describing anything nested (`A: {allOf: [{$ref: A}]}`, `A: {$ref: A}`) has no meaning and would send a checker round
// in circles: the loop is cut (it accepts any value in its place), with a warning.
import type { ImportWarning } from './read.ts'
import { isObject, localRefTokens, valueAt } from './pointer.ts'

export type JsonSchema = Record<string, unknown>

/** A converted component inlined where used if its JSON is at most this long; larger ones are shared through `$defs`. */
const INLINE_MAX_CHARS = 2048
/** Descriptions in tool schemas are for choosing a value, not documentation. */
export const SCHEMA_DESCRIPTION_MAX = 500
/** Structure deeper than this, without a reference that could be shared, is cut (a pathological document). */
const MAX_DEPTH = 64

const SCALAR_KEYWORDS = [
  'type',
  'format',
  'const',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'contentEncoding',
  'contentMediaType',
  'deprecated',
] as const
const SCHEMA_LIST_KEYWORDS = ['oneOf', 'anyOf', 'allOf'] as const

interface Converted {
  readonly schema: JsonSchema
  /** `$defs` names this schema refers to, directly or through what it inlined. */
  readonly needs: ReadonlySet<string>
  /** This schema is a reference back into a component being converted for the same value: a loop that was cut. */
  readonly cut?: boolean
}

interface ComponentEntry {
  readonly defName: string
  converted?: Converted
  size?: number
  recursive: boolean
  converting: boolean
  /** How many values deep (properties, items…) the conversion was when it started; a loop at the same depth never descends. */
  nesting: number
}

export const truncateText = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

/** One per document: converted components are shared by every operation of the import. */
export class ToolSchemaConverter {
  readonly #document: Record<string, unknown>
  readonly #warnings: ImportWarning[]
  readonly #components = new Map<string, ComponentEntry>()
  readonly #byDefName = new Map<string, ComponentEntry>()
  readonly #warnedRefs = new Set<string>()
  /** Values deep the conversion is: raised by properties, items and additionalProperties, not by allOf/anyOf/oneOf/not/$ref. */
  #nesting = 0

  constructor(document: Record<string, unknown>, warnings: ImportWarning[]) {
    this.#document = document
    this.#warnings = warnings
  }

  /** A request schema (parameter or body) converted; `$defs` it needs are added to `defs`. */
  convert(schema: unknown, needs: Set<string>): JsonSchema {
    const converted = this.#node(schema, 0)
    for (const name of converted.needs) needs.add(name)
    return converted.schema
  }

  /** The `$defs` object for an operation: every needed definition and what those need in turn. */
  definitions(needs: ReadonlySet<string>): JsonSchema | undefined {
    if (needs.size === 0) return undefined
    const defs: JsonSchema = {}
    const queue = [...needs]
    const seen = new Set(queue)
    while (queue.length > 0) {
      const name = queue.shift()!
      const entry = this.#byDefName.get(name)
      if (!entry?.converted) continue
      defs[name] = entry.converted.schema
      for (const next of entry.converted.needs)
        if (!seen.has(next)) {
          seen.add(next)
          queue.push(next)
        }
    }
    return Object.fromEntries(
      Object.keys(defs)
        .sort()
        .map((name) => [name, defs[name]]),
    )
  }

  #warnOnce(ref: string, message: string): void {
    if (this.#warnedRefs.has(ref)) return
    this.#warnedRefs.add(ref)
    if (this.#warnings.length < 100) this.#warnings.push({ pointer: ref.startsWith('#') ? ref.slice(1) : '', message })
  }

  #entryFor(ref: string): ComponentEntry {
    let entry = this.#components.get(ref)
    if (entry) return entry
    const tokens = localRefTokens(ref) ?? []
    const base =
      (tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'schemas' ? tokens[2]! : tokens.join('_')).replace(/[^A-Za-z0-9_.-]+/g, '_') ||
      'schema'
    let defName = base
    for (let suffix = 2; this.#byDefName.has(defName); suffix++) defName = `${base}_${suffix}`
    entry = { defName, recursive: false, converting: false, nesting: 0 }
    this.#byDefName.set(defName, entry)
    this.#components.set(ref, entry)
    return entry
  }

  #reference(ref: string, depth: number): Converted {
    const tokens = localRefTokens(ref)
    const target = tokens ? valueAt(this.#document, tokens) : undefined
    if (target === undefined) {
      this.#warnOnce(ref, `Reference ${ref} does not resolve; any value is accepted there`)
      return { schema: {}, needs: new Set() }
    }
    const entry = this.#entryFor(ref)
    if (entry.converting && entry.nesting === this.#nesting) {
      this.#warnOnce(
        ref,
        `Schema ${ref} contains itself through $ref, allOf, anyOf, oneOf or not without describing a nested value: the loop is cut, and any value is accepted in its place`,
      )
      return { schema: {}, needs: new Set(), cut: true }
    }
    if (entry.converting) {
      // A cycle through a nested value: this component is defined once in $defs and referred to from inside itself.
      entry.recursive = true
      return { schema: { $ref: `#/$defs/${entry.defName}` }, needs: new Set([entry.defName]) }
    }
    if (!entry.converted) {
      entry.converting = true
      entry.nesting = this.#nesting
      try {
        entry.converted = this.#node(target, depth + 1)
      } finally {
        entry.converting = false
      }
      entry.size = JSON.stringify(entry.converted.schema).length
    }
    if (!entry.recursive && entry.size! <= INLINE_MAX_CHARS) return entry.converted
    return { schema: { $ref: `#/$defs/${entry.defName}` }, needs: new Set([entry.defName]) }
  }

  #node(raw: unknown, depth: number): Converted {
    if (raw === true || raw === undefined) return { schema: {}, needs: new Set() }
    if (raw === false) return { schema: { not: {} }, needs: new Set() }
    if (!isObject(raw)) return { schema: {}, needs: new Set() }
    if (depth > MAX_DEPTH) return { schema: { description: '(nested too deeply to describe)' }, needs: new Set() }
    if (typeof raw.$ref === 'string') {
      const referred = this.#reference(raw.$ref, depth)
      // 3.1 allows siblings next to $ref; a description is the only one worth keeping.
      if (typeof raw.description === 'string' && Object.keys(referred.schema).length > 0 && !('description' in referred.schema))
        return { schema: { ...referred.schema, description: truncateText(raw.description, SCHEMA_DESCRIPTION_MAX) }, needs: referred.needs, cut: referred.cut }
      return referred
    }

    const needs = new Set<string>()
    /** A schema for the same value (allOf/anyOf/oneOf/not). */
    const alongside = (child: unknown): Converted => {
      const converted = this.#node(child, depth + 1)
      for (const name of converted.needs) needs.add(name)
      return converted
    }
    /** A schema for a value inside this one (a property, the items). */
    const take = (child: unknown): JsonSchema => {
      this.#nesting++
      try {
        return alongside(child).schema
      } finally {
        this.#nesting--
      }
    }
    const schema: JsonSchema = {}
    for (const keyword of SCALAR_KEYWORDS) if (raw[keyword] !== undefined) schema[keyword] = raw[keyword]
    if (typeof schema.type === 'string' && !TYPE_NAMES.has(schema.type)) delete schema.type
    if (Array.isArray(schema.type)) schema.type = schema.type.filter((name) => typeof name === 'string' && TYPE_NAMES.has(name))
    if (Array.isArray(raw.enum)) schema.enum = raw.enum
    // OpenAPI 3.0's dialect: `nullable` and boolean exclusive bounds, as 2020-12 says them.
    if (raw.nullable === true && typeof schema.type === 'string') {
      schema.type = [schema.type, 'null']
      if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null]
    }
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof schema[flag] !== 'boolean') continue
      if (schema[flag] === true && typeof schema[bound] === 'number') {
        schema[flag] = schema[bound]
        delete schema[bound]
      } else delete schema[flag]
    }
    if (typeof raw.description === 'string' && raw.description !== '') schema.description = truncateText(raw.description, SCHEMA_DESCRIPTION_MAX)
    // A file in a request body is sent as base64 text by a model; the request builder decodes it.
    if (schema.format === 'binary' || (typeof schema.contentMediaType === 'string' && raw.type === undefined)) {
      schema.type = 'string'
      schema.contentEncoding = 'base64'
      delete schema.format
    }

    if (isObject(raw.properties)) {
      const properties: JsonSchema = {}
      const dropped = new Set<string>()
      for (const [name, child] of Object.entries(raw.properties)) {
        if (isObject(child) && child.readOnly === true) {
          dropped.add(name)
          continue
        }
        properties[name] = take(child)
      }
      schema.properties = properties
      if (Array.isArray(raw.required)) {
        const required = raw.required.filter((name): name is string => typeof name === 'string' && !dropped.has(name))
        if (required.length > 0) schema.required = [...new Set(required)]
      }
    } else if (Array.isArray(raw.required)) {
      const required = raw.required.filter((name): name is string => typeof name === 'string')
      if (required.length > 0) schema.required = [...new Set(required)]
    }
    if (raw.additionalProperties === false || raw.additionalProperties === true) schema.additionalProperties = raw.additionalProperties
    else if (isObject(raw.additionalProperties)) schema.additionalProperties = take(raw.additionalProperties)
    if (isObject(raw.items)) schema.items = take(raw.items)
    else if (Array.isArray(raw.prefixItems)) schema.prefixItems = raw.prefixItems.map(take)
    if (isObject(raw.not)) {
      const not = alongside(raw.not)
      if (!not.cut) schema.not = not.schema
    }
    for (const keyword of SCHEMA_LIST_KEYWORDS) {
      const list = raw[keyword]
      if (!Array.isArray(list) || list.length === 0) continue
      const members = list.map(alongside)
      // A cut loop accepts anything: a choice that includes it accepts anything, and in allOf it adds nothing.
      if (keyword === 'allOf') {
        const kept = members.filter((member) => !member.cut).map((member) => member.schema)
        if (kept.length > 0) schema.allOf = kept
      } else if (!members.some((member) => member.cut)) schema[keyword] = members.map((member) => member.schema)
    }
    return { schema, needs }
  }
}
