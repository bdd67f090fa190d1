// What a dry run answers: the document's example for the operation's success response, or a value made from its
// schema. Bounded: a recursive or huge response schema gives a small sample, never a walk of the whole document.
import { followRefs, isObject } from './pointer.ts'

export interface SampleResponse {
  status: number
  content_type: string | null
  body: unknown
}

const MAX_NODES = 500
const MAX_DEPTH = 8
const MAX_PROPERTIES = 25

const JSON_TYPE = /^application\/(.+\+)?json\b/i

function sampleString(format: unknown): string {
  switch (format) {
    case 'date-time':
      return '2026-01-01T00:00:00Z'
    case 'date':
      return '2026-01-01'
    case 'email':
      return 'user@example.com'
    case 'uri':
    case 'url':
      return 'https://example.com/'
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000'
    default:
      return 'string'
  }
}

/** A value that fits `schema` as far as a short walk can tell; examples, defaults and enums are preferred. */
export function sampleFromSchema(document: Record<string, unknown>, schema: unknown): unknown {
  let budget = MAX_NODES
  const walk = (raw: unknown, depth: number, refs: readonly string[]): unknown => {
    if (--budget < 0 || depth > MAX_DEPTH) return null
    let node = raw
    const path = [...refs]
    if (isObject(node) && typeof node.$ref === 'string') {
      if (refs.includes(node.$ref)) return null
      path.push(node.$ref)
      node = followRefs(document, node)
    }
    if (!isObject(node)) return null
    if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0]
    if (node.example !== undefined) return node.example
    if (node.const !== undefined) return node.const
    if (node.default !== undefined) return node.default
    if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0]
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const list = node[keyword]
      if (Array.isArray(list) && list.length > 0) return walk(list[0], depth + 1, path)
    }
    if (Array.isArray(node.allOf)) {
      const merged: Record<string, unknown> = {}
      for (const part of node.allOf) {
        const value = walk(part, depth + 1, path)
        if (isObject(value)) Object.assign(merged, value)
      }
      return merged
    }
    const type = Array.isArray(node.type) ? node.type.find((name) => name !== 'null') : node.type
    if (type === 'object' || (type === undefined && isObject(node.properties))) {
      const value: Record<string, unknown> = {}
      if (isObject(node.properties))
        for (const [name, child] of Object.entries(node.properties).slice(0, MAX_PROPERTIES)) {
          if (isObject(child) && child.writeOnly === true) continue
          value[name] = walk(child, depth + 1, path)
        }
      return value
    }
    if (type === 'array') return isObject(node.items) ? [walk(node.items, depth + 1, path)] : []
    if (type === 'integer' || type === 'number') return typeof node.minimum === 'number' ? node.minimum : 0
    if (type === 'boolean') return true
    if (type === 'string') return sampleString(node.format)
    if (type === 'null') return null
    return null
  }
  return walk(schema, 0, [])
}

function successStatus(responses: Record<string, unknown>): { key: string; status: number } | null {
  const keys = Object.keys(responses)
  const exact = keys.filter((key) => /^2\d\d$/.test(key)).sort()[0]
  if (exact) return { key: exact, status: Number(exact) }
  if (keys.includes('2XX') || keys.includes('2xx')) return { key: keys.includes('2XX') ? '2XX' : '2xx', status: 200 }
  if (keys.includes('default')) return { key: 'default', status: 200 }
  return null
}

export function sampleResponse(document: Record<string, unknown>, operation: Record<string, unknown>): SampleResponse {
  const responses = followRefs(document, operation.responses)
  const chosen = isObject(responses) ? successStatus(responses) : null
  if (!chosen || !isObject(responses)) return { status: 200, content_type: null, body: null }
  const response = followRefs(document, responses[chosen.key])
  const content = isObject(response) && isObject(response.content) ? response.content : {}
  const types = Object.keys(content)
  const contentType = types.find((type) => JSON_TYPE.test(type)) ?? types[0]
  if (contentType === undefined) return { status: chosen.status === 204 ? 204 : chosen.status, content_type: null, body: null }
  const media = followRefs(document, content[contentType])
  if (!isObject(media)) return { status: chosen.status, content_type: contentType, body: null }
  if (media.example !== undefined) return { status: chosen.status, content_type: contentType, body: media.example }
  if (isObject(media.examples)) {
    const first = followRefs(document, Object.values(media.examples)[0])
    if (isObject(first) && first.value !== undefined) return { status: chosen.status, content_type: contentType, body: first.value }
  }
  return { status: chosen.status, content_type: contentType, body: sampleFromSchema(document, media.schema) }
}
