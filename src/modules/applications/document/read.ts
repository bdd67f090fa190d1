// From uploaded bytes to one OpenAPI 3 document: parse JSON or YAML, recognise the version, refuse external
// references, collect the validator's complaints as warnings, and upgrade Swagger 2.0 to OpenAPI 3.1
// (@scalar/openapi-parser), so everything after this file reads one shape.
import { upgrade, validate } from '@scalar/openapi-parser'
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml'
import { nestsDeeperThan } from '../../../platform/http/body.ts'
import { restoreCharacters, uploadedColumnMessage } from './ascii-text.ts'
import { isObject, pointerOf } from './pointer.ts'

/** The document cannot be imported: `pointer` says where (RFC 6901, '' for the whole document). */
export class SpecInvalidError extends Error {
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message)
    this.name = 'SpecInvalidError'
  }
}

export interface ImportWarning {
  pointer: string
  message: string
}

export interface ReadDocument {
  /** OpenAPI 3.0 or 3.1 (Swagger 2.0 upgraded to 3.1); ours to change. */
  readonly document: Record<string, unknown>
  /** As uploaded: `2.0`, `3.0.3`, `3.1.0`. */
  readonly openapiVersion: string
  readonly warnings: ImportWarning[]
}

/** Real descriptions nest 20–40 levels; past this the text is an attack on the parser, not an API. */
export const MAX_NESTING = 256
/** Documents larger than this are not run through the full OpenAPI schema validator (see readApiDocument). */
export const VALIDATION_MAX_CHARS = 4 * 1024 * 1024
/** Enough to see what is wrong without turning a sloppy document's response into a second document. */
export const MAX_WARNINGS = 100

const nestsTooDeeply = (pointer = ''): SpecInvalidError => new SpecInvalidError(`The document nests deeper than ${MAX_NESTING} levels`, pointer)

/** A stack overflow, however the parser that hit it wrapped it. */
const isStackOverflow = (error: unknown): boolean => error instanceof RangeError || /call stack/i.test(String((error as Error)?.message))

/** YAML node events (each node opens and closes) between two requested collections while a YAML text loads. */
const NODE_EVENTS_PER_COLLECTION = 200_000

/**
 * `marker`: the text is asciiText's (ascii-text.ts), its other characters spelled as placeholders. `collectSoon`:
 * DocumentSource's.
 */
function parseText(text: string, marker?: string, collectSoon?: () => void): unknown {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart()
  if (trimmed === '') throw new SpecInvalidError('The file is empty', '')
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    if (nestsDeeperThan(trimmed, MAX_NESTING)) throw nestsTooDeeply()
    try {
      return JSON.parse(trimmed)
    } catch (error) {
      throw new SpecInvalidError(`The file is not valid JSON: ${(error as Error).message}`, '')
    }
  }
  try {
    // js-yaml builds values straight from the text (the `yaml` library's syntax tree took ~45 bytes per byte: 1.2 GB
    // for 28 MB). YAML 1.2 core types; duplicate keys are the last one's, as JSON.parse does. Aliases are shared
    // values, not copies: checkStructure counts what they expand to.
    let events = 0
    const listener = collectSoon && (() => (++events % NODE_EVENTS_PER_COLLECTION === 0 ? collectSoon() : undefined))
    const tree = loadYaml(trimmed, { schema: CORE_SCHEMA, json: true, maxDepth: MAX_NESTING, ...(listener && { listener }) })
    return marker === undefined ? tree : restoreCharacters(tree, marker)
  } catch (error) {
    // Past maxDepth, or a stack overflow however it is reported: the same answer as deep JSON.
    if (isStackOverflow(error) || /maxDepth/.test(String((error as Error)?.message))) throw nestsTooDeeply()
    const message = (marker !== undefined && uploadedColumnMessage(error as never, trimmed, marker)) || firstLine((error as Error).message)
    throw new SpecInvalidError(`The file is not valid YAML or JSON: ${message}`, '')
  }
}

const firstLine = (message: string): string => message.split('\n')[0]!.slice(0, 300)

function versionOf(document: Record<string, unknown>): string {
  if ('swagger' in document) {
    if (document.swagger === '2.0' || document.swagger === 2) return '2.0'
    throw new SpecInvalidError(`Unsupported Swagger version ${JSON.stringify(document.swagger)}; Swagger 2.0, OpenAPI 3.0 and 3.1 are supported`, '/swagger')
  }
  if (!('openapi' in document)) throw new SpecInvalidError('Not an OpenAPI document: it has no "openapi" or "swagger" field', '')
  const version = document.openapi
  if (typeof version === 'string' && /^3\.[01]\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) return version
  throw new SpecInvalidError(`Unsupported OpenAPI version ${JSON.stringify(version)}; Swagger 2.0, OpenAPI 3.0 and 3.1 are supported`, '/openapi')
}

interface Frame {
  readonly node: object
  readonly parent: Frame | null
  readonly key: string | number
  readonly depth: number
}

const pathOf = (frame: Frame): (string | number)[] => {
  const path: (string | number)[] = []
  for (let at: Frame | null = frame; at?.parent; at = at.parent) path.push(at.key)
  return path.reverse()
}

/**
 * One walk over the parsed document, without recursion: refuses nesting deeper than MAX_NESTING (YAML aliases can
 * nest values past what the parser measured), aliases that multiply the document, and the first reference to another
 * file or a URL (nothing is ever fetched for an upload). Each frame points at its parent, so a path is only built for
 * the error.
 */
function checkStructure(document: object, textLength: number): void {
  const stack: Frame[] = [{ node: document, parent: null, key: '', depth: 0 }]
  // A document without aliases has fewer values than characters; past that, YAML aliases are multiplying it (the
  // "billion laughs"), and every later walk would pay for each copy.
  const maxVisits = Math.max(100_000, textLength)
  let visits = 0
  while (stack.length > 0) {
    if (++visits > maxVisits)
      throw new SpecInvalidError(`The file is not valid YAML or JSON: its aliases expand it to more than ${maxVisits.toLocaleString('en-US')} values`, '')
    const frame = stack.pop()!
    const { node, depth } = frame
    // The top-level object is the first level, as for JSON text.
    if (depth + 1 > MAX_NESTING) throw nestsTooDeeply(pointerOf(pathOf(frame)))
    if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) {
        const child = node[index]
        if (child !== null && typeof child === 'object') stack.push({ node: child, parent: frame, key: index, depth: depth + 1 })
      }
      continue
    }
    const ref = (node as Record<string, unknown>).$ref
    if (typeof ref === 'string' && !ref.startsWith('#'))
      throw new SpecInvalidError(
        `External reference ${JSON.stringify(ref.slice(0, 200))} is not allowed: only references inside the document are resolved`,
        pointerOf([...pathOf(frame), '$ref']),
      )
    const keys = Object.keys(node)
    for (let index = keys.length - 1; index >= 0; index--) {
      const child = (node as Record<string, unknown>)[keys[index]!]
      if (child !== null && typeof child === 'object') stack.push({ node: child, parent: frame, key: keys[index]!, depth: depth + 1 })
    }
  }
}

function requireShape(document: Record<string, unknown>): void {
  if (!isObject(document.info)) throw new SpecInvalidError('The document has no "info" object', '/info')
  const title = document.info.title
  if (typeof title !== 'string' || title.trim() === '') throw new SpecInvalidError('The document has no "info.title"', '/info/title')
  if ('paths' in document && document.paths !== null && !isObject(document.paths)) throw new SpecInvalidError('"paths" must be an object', '/paths')
}

/** An uploaded text handed over to be read: `text` is taken (set to null) once parsed, so its memory can go. */
export interface DocumentSource {
  text: string | null
  /** Set when `text` is asciiText's (ascii-text.ts): characters past ASCII are this marker and their code point. */
  readonly marker?: string
  /** Called once the text is let go and again after the operations are built: the worker collects garbage there. */
  collect?: () => void
  /**
   * Called every so many YAML nodes while the text loads and every so many operations while they are built: the
   * worker asks for a collection there that runs beside the work (Bun.gc(false)). Without it the heap grew to nearly
   * twice what was live, and that garbage was the import's peak.
   */
  collectSoon?: () => void
}

/** Throws SpecInvalidError for what cannot be imported; everything else the validator finds becomes a warning. */
export async function readApiDocument(input: string | DocumentSource): Promise<ReadDocument> {
  const source = typeof input === 'string' ? { text: input } : input
  const length = source.text?.length ?? 0
  let parsed: unknown
  try {
    parsed = parseText(source.text ?? '', 'marker' in source ? source.marker : undefined, 'collectSoon' in source ? source.collectSoon : undefined)
  } finally {
    // The parsed tree is all that is needed from here on; a 32 MiB upload is 64 MB as a string.
    source.text = null
  }
  source.collect?.()
  if (!isObject(parsed)) throw new SpecInvalidError('Not an OpenAPI document: the top level is not an object', '')
  // First: nothing may walk a document whose aliases multiply it.
  checkStructure(parsed, length)
  const openapiVersion = versionOf(parsed)
  requireShape(parsed)

  const warnings: ImportWarning[] = []
  if (length > VALIDATION_MAX_CHARS) {
    // The validator needs ~10 times the document in memory; for a document this large its advice (warnings only)
    // is not worth the server's memory. What the import needs is checked all the same, as it reads.
    warnings.push({
      pointer: '',
      message: `The document is larger than ${VALIDATION_MAX_CHARS / 1024 / 1024} MiB: it was imported without a full check against the OpenAPI schema`,
    })
  } else {
    const checked = await validate(parsed)
    for (const error of checked.errors ?? []) {
      if (warnings.length === MAX_WARNINGS) break
      const path = (error as { path?: unknown }).path
      warnings.push({ pointer: Array.isArray(path) ? pointerOf(path as (string | number)[]) : '', message: firstLine(error.message) })
    }
  }
  // Swagger 2.0 is restructured into OpenAPI 3; 3.0 differs from 3.1 only in its schema dialect (nullable, boolean
  // exclusive bounds), which the tool-schema conversion reads, so it is not copied into 3.1 form (that copy alone
  // doubled the memory of GitHub's 13 MB description).
  const upgraded = openapiVersion === '2.0' ? (upgrade(parsed).specification as Record<string, unknown>) : parsed
  return { document: upgraded, openapiVersion, warnings }
}
