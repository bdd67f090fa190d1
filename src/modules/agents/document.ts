// The agent document: everything a draft holds and a version snapshots, as one JSON value with a content hash.
import { sha256Hex } from '../../platform/ids.ts'

/** An element of a part other modules own (a skill, a workflow): any JSON object. */
export type DocumentItem = { [field: string]: unknown }

/**
 * The unit that Save edits, Publish snapshots and Restore brings back. Parts are owned by their modules:
 * agents owns description and instructions (and the applications the agent uses); skills and workflows keep
 * their items in the arrays. UI templates are not a part: they belong to applications. A module that needs a new
 * part adds a key; unknown keys are carried through every save, publish and restore untouched.
 */
export interface AgentDocument {
  description: string
  instructions: string
  skills: DocumentItem[]
  workflows: DocumentItem[]
  [part: string]: unknown
}

const LIST_PARTS = ['skills', 'workflows'] as const
/**
 * A part documents had before templates moved to applications: never written by any API, always empty. Dropped when
 * read, so drafts and versions stored with it stay readable and hash as before (see documentHash).
 */
const RETIRED_PART = 'ui_templates'

export function newDocument(description: string, instructions: string): AgentDocument {
  return { description, instructions, skills: [], workflows: [] }
}

/** Reads a stored document; parts added after it was written come back empty, so old versions stay readable. */
export function parseDocument(json: string): AgentDocument {
  const value = JSON.parse(json) as Partial<AgentDocument>
  const document = { ...value, description: value.description ?? '', instructions: value.instructions ?? '' } as AgentDocument
  for (const part of LIST_PARTS) if (!Array.isArray(document[part])) document[part] = []
  delete document[RETIRED_PART]
  return document
}

export const serialiseDocument = (document: AgentDocument): string => JSON.stringify(document)

/** JSON with object keys sorted at every level, so equal content hashes equally whatever order a module wrote keys in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/**
 * The content hash that tells whether the draft differs from the live version (the Draft chip). Hashed with the retired
 * part as it always was (an empty list): versions are immutable, so the hashes stored with them cannot be taken again,
 * and a draft saved today must still equal the version it was published as.
 */
export const documentHash = (document: AgentDocument): string => sha256Hex(canonicalJson({ ...document, [RETIRED_PART]: [] }))
