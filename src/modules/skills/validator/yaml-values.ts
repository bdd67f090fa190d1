// Parses the frontmatter YAML and reads each value as the text it was written as, the way the spec's string fields mean it.
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, visit, type Document, type YAMLError } from 'yaml'
import { problems, type SkillProblem } from './problems.ts'

/**
 * A frontmatter value. Scalars are kept as the text written: `version: 1.0` is "1.0" and `name: 123` is "123", as
 * skills-ref (strictyaml) reads them, rather than the number a YAML 1.2 parser makes of them; `~`, `null` and an empty
 * value are null. Maps keep their entries one level down (enough for `metadata`); nothing else is needed deeper.
 */
export type YamlValue =
  | { kind: 'text'; text: string }
  | { kind: 'null' }
  | { kind: 'list' }
  | { kind: 'map'; entries: YamlEntry[] }

export interface YamlEntry {
  /** The key as written, or null when it is not a scalar (a `? [a, b]` key) or is null. */
  key: string | null
  /** How the key reads in a message when it is not a plain string. */
  keyText: string
  value: YamlValue
}

export type ReadFrontmatter = { ok: true; fields: YamlEntry[] } | { ok: false; problems: SkillProblem[] }

type AnyNode = unknown

class UnresolvedAlias extends Error {}

function scalarText(node: { value: unknown; source?: string }): string | null {
  if (node.value === null || node.value === undefined) return null
  if (typeof node.value === 'string') return node.value
  return node.source ?? String(node.value)
}

function resolve(node: AnyNode, doc: Document): AnyNode {
  if (!isAlias(node)) return node
  const target = node.resolve(doc)
  if (target === undefined) throw new UnresolvedAlias(`Unresolved alias *${node.source}`)
  return target
}

function readValue(raw: AnyNode, doc: Document, depth: number): YamlValue {
  const node = resolve(raw, doc)
  if (node === null || node === undefined) return { kind: 'null' }
  if (isScalar(node)) {
    const text = scalarText(node)
    return text === null ? { kind: 'null' } : { kind: 'text', text }
  }
  if (isSeq(node)) return { kind: 'list' }
  if (isMap(node)) return { kind: 'map', entries: depth > 0 ? readEntries(node.items, doc, depth - 1) : [] }
  return { kind: 'null' }
}

function readEntries(items: unknown[], doc: Document, depth: number): YamlEntry[] {
  return items.filter(isPair).map((pair) => {
    const keyNode = resolve(pair.key, doc)
    const key = isScalar(keyNode) ? scalarText(keyNode) : null
    return { key, keyText: key ?? String(keyNode ?? 'null'), value: readValue(pair.value, doc, depth) }
  })
}

/** `line N, column M` of an offset in the YAML, counted in the whole file (the opening `---` is line 1). */
function position(yaml: string, offset: number): string {
  let line = 2
  let lineStart = 0
  for (let i = yaml.indexOf('\n'); i !== -1 && i < offset; i = yaml.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return `(line ${line}, column ${offset - lineStart + 1})`
}

/** The key a DUPLICATE_KEY error points at: the parser reports only its offset. */
function keyAt(doc: Document, offset: number): string {
  let found = '?'
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key as { range?: [number, number, number] } | null
      if (key?.range?.[0] === offset) {
        found = String(isScalar(pair.key) ? pair.key.value : pair.key)
        return visit.BREAK
      }
    },
  })
  return found
}

function yamlProblem(error: YAMLError, yaml: string, doc: Document): SkillProblem {
  const where = position(yaml, error.pos[0])
  if (error.code === 'DUPLICATE_KEY') return problems.yamlDuplicateKey(keyAt(doc, error.pos[0]), where)
  // The commonest real-world failure: an unquoted `: ` inside a description. Say how to fix it.
  const hint = error.code === 'BLOCK_AS_IMPLICIT_KEY' ? '; quote a value that contains ": "' : ''
  return problems.yamlInvalid(`${error.message} ${where}${hint}`)
}

/**
 * Reads the top-level mapping of a frontmatter with the YAML parser (`yaml`, YAML 1.2 core schema, duplicate keys
 * refused at any depth). Every parse error is reported (one per place); field rules are not checked on YAML that did
 * not parse, since what it would have meant is a guess. A hand-written fast reader for plain `key: value` frontmatter
 * was ~15x faster, but the issue asks for a real YAML parser and two readers can disagree; see docs/decisions.md.
 */
export function readFrontmatter(yaml: string): ReadFrontmatter {
  const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false })
  if (doc.errors.length > 0) {
    // One problem per place: the parser often follows a real error with a consequence of it at the same offset.
    const places = new Set<number>()
    const distinct = doc.errors.filter((error) => !places.has(error.pos[0]) && places.add(error.pos[0]))
    return { ok: false, problems: distinct.map((error) => yamlProblem(error, yaml, doc)) }
  }
  try {
    const root = resolve(doc.contents, doc)
    if (!isMap(root)) return { ok: false, problems: [problems.notMapping()] }
    return { ok: true, fields: readEntries(root.items, doc, 1) }
  } catch (error) {
    if (error instanceof UnresolvedAlias) return { ok: false, problems: [problems.yamlInvalid(error.message)] }
    throw error
  }
}
