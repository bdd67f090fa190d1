// Parses the frontmatter YAML and reads each value as the text it was written as, the way the spec's string fields mean it.
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Alias, type Document, type YAMLError } from 'yaml'
import { problems, type SkillProblem } from './problems.ts'

/**
 * A frontmatter value. Scalars are kept as the text written: `version: 1.0` is "1.0" and `name: 123` is "123", as
 * skills-ref (strictyaml) reads them, rather than the number a YAML 1.2 parser makes of them; `~`, `null` and an empty
 * value are null. Maps keep their entries one level down (enough for `metadata`); nothing else is needed deeper.
 */
export type YamlValue = { kind: 'text'; text: string } | { kind: 'null' } | { kind: 'list' } | { kind: 'map'; entries: YamlEntry[] }

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

/** What one linear walk of the parsed document found: each alias's target, and every key repeated within its map. */
interface Walk {
  /** An alias's target is the last node before it carrying its anchor (YAML's rule); undefined when there is none. */
  aliases: Map<Alias, AnyNode | undefined>
  /** Offsets (in the YAML) and text of the keys that repeat an earlier key of the same map. */
  duplicates: { offset: number; key: string }[]
}

/**
 * One pass over the document in order. The parser's own `uniqueKeys` check compares each new key with every earlier
 * key of its map, and `Alias.resolve(doc)` walks the whole document for each alias: both are quadratic (80,000
 * metadata keys took 220 s). Here keys go through a Set per map and anchors through one Map, so the cost is linear.
 * Keys compare as the parser compares them: scalars by value (`"a"` and `a` are one key, `1` and `"1"` are not),
 * anything else only by identity, which never repeats.
 */
function walk(doc: Document): Walk {
  const anchors = new Map<string, AnyNode>()
  const aliases = new Map<Alias, AnyNode | undefined>()
  const duplicates: Walk['duplicates'] = []
  // By hand, with a stack, in document order: the library's `visit` copies the path at each level (quadratic in the
  // nesting, which a line of `[` or a run of broken lines makes deep) and recurses (a stack overflow).
  const stack: AnyNode[] = [doc.contents]
  while (stack.length > 0) {
    const node = stack.pop()
    if (isAlias(node)) {
      aliases.set(node, anchors.get(node.source))
      continue
    }
    if (isScalar(node) || isMap(node) || isSeq(node)) {
      if (node.anchor) anchors.set(node.anchor, node)
    }
    if (isMap(node)) {
      const seen = new Set<unknown>()
      for (const pair of node.items) {
        const key = pair.key
        if (!isScalar(key)) continue
        if (seen.has(key.value)) duplicates.push({ offset: key.range?.[0] ?? 0, key: String(key.value) })
        else seen.add(key.value)
      }
      for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]!.value, node.items[i]!.key)
    } else if (isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i])
    } else if (isPair(node)) {
      stack.push(node.value, node.key)
    }
  }
  return { aliases, duplicates }
}

function scalarText(node: { value: unknown; source?: string }): string | null {
  if (node.value === null || node.value === undefined) return null
  if (typeof node.value === 'string') return node.value
  return node.source ?? String(node.value)
}

function resolve(node: AnyNode, found: Walk): AnyNode {
  if (!isAlias(node)) return node
  const target = found.aliases.get(node)
  if (target === undefined) throw new UnresolvedAlias(`Unresolved alias *${node.source}`)
  return target
}

function readValue(raw: AnyNode, found: Walk, depth: number): YamlValue {
  const node = resolve(raw, found)
  if (node === null || node === undefined) return { kind: 'null' }
  if (isScalar(node)) {
    const text = scalarText(node)
    return text === null ? { kind: 'null' } : { kind: 'text', text }
  }
  if (isSeq(node)) return { kind: 'list' }
  if (isMap(node)) return { kind: 'map', entries: depth > 0 ? readEntries(node.items, found, depth - 1) : [] }
  return { kind: 'null' }
}

function readEntries(items: unknown[], found: Walk, depth: number): YamlEntry[] {
  return items.filter(isPair).map((pair) => {
    const keyNode = resolve(pair.key, found)
    const key = isScalar(keyNode) ? scalarText(keyNode) : null
    return { key, keyText: key ?? String(keyNode ?? 'null'), value: readValue(pair.value, found, depth) }
  })
}

/** `(line N, column M)` of offsets in the YAML, counted in the whole file (the opening `---` is line 1); one pass builds the line index. */
function positions(yaml: string): (offset: number) => string {
  const lineStarts = [0]
  for (let i = yaml.indexOf('\n'); i !== -1; i = yaml.indexOf('\n', i + 1)) lineStarts.push(i + 1)
  return (offset) => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (lineStarts[middle]! <= offset) low = middle
      else high = middle - 1
    }
    return `(line ${low + 2}, column ${offset - lineStarts[low]! + 1})`
  }
}

function yamlProblem(error: YAMLError, where: string): SkillProblem {
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
  const doc = parseDocument(yaml, { uniqueKeys: false, prettyErrors: false })
  const found = walk(doc)
  if (doc.errors.length > 0 || found.duplicates.length > 0) {
    const where = positions(yaml)
    const located = [
      ...doc.errors.map((error) => ({ offset: error.pos[0], problem: () => yamlProblem(error, where(error.pos[0])) })),
      ...found.duplicates.map(({ offset, key }) => ({ offset, problem: () => problems.yamlDuplicateKey(key, where(offset)) })),
    ].sort((a, b) => a.offset - b.offset)
    // One problem per place: the parser often follows a real error with a consequence of it at the same offset.
    const places = new Set<number>()
    const distinct = located.filter(({ offset }) => !places.has(offset) && places.add(offset))
    return { ok: false, problems: distinct.map(({ problem }) => problem()) }
  }
  try {
    const root = resolve(doc.contents, found)
    if (!isMap(root)) return { ok: false, problems: [problems.notMapping()] }
    return { ok: true, fields: readEntries(root.items, found, 1) }
  } catch (error) {
    if (error instanceof UnresolvedAlias) return { ok: false, problems: [problems.yamlInvalid(error.message)] }
    throw error
  }
}
