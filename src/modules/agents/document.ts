// The agent document: everything a draft holds and a version snapshots, as one JSON value with a content hash.
import { sha256Hex } from '../../platform/ids.ts'

/** An element of a part other modules own (a skill, a workflow, a UI template): any JSON object. */
export type DocumentItem = { [field: string]: unknown }

/**
 * The unit that Save edits, Publish snapshots and Restore brings back. Parts are owned by their modules:
 * agents owns description and instructions; skills (issue 7), workflows (issue 6) and UI templates keep
 * their items in the arrays. A module that needs a new part adds a key; unknown keys are carried through
 * every save, publish and restore untouched.
 */
export interface AgentDocument {
  description: string
  instructions: string
  skills: DocumentItem[]
  workflows: DocumentItem[]
  ui_templates: DocumentItem[]
  [part: string]: unknown
}

const LIST_PARTS = ['skills', 'workflows', 'ui_templates'] as const

export function newDocument(description: string, instructions: string): AgentDocument {
  return { description, instructions, skills: [], workflows: [], ui_templates: [] }
}

/** Reads a stored document; parts added after it was written come back empty, so old versions stay readable. */
export function parseDocument(json: string): AgentDocument {
  const value = JSON.parse(json) as Partial<AgentDocument>
  const document = { ...value, description: value.description ?? '', instructions: value.instructions ?? '' } as AgentDocument
  for (const part of LIST_PARTS) if (!Array.isArray(document[part])) document[part] = []
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

/** The content hash that tells whether the draft differs from the live version (the Draft chip). */
export const documentHash = (document: AgentDocument): string => sha256Hex(canonicalJson(document))
