// The shapes of a skill: as stored in an agent's document, and as each endpoint shows it.
import type { DocumentItem } from '../agents/index.ts'
import type { SkillFrontmatter } from './validator/index.ts'

/**
 * One element of the agent document's `skills` part. The frontmatter is stored parsed beside the content, so lists
 * never re-parse YAML; both are written together and only from validated content, so they cannot disagree.
 */
export interface StoredSkill extends SkillFrontmatter {
  /** Stable across edits, renames, publish and restore (newId()). */
  id: string
  /** The SKILL.md exactly as submitted (BOM and line breaks included). */
  content: string
  created_at: string
  updated_at: string
}

/** Every frontmatter field (absent ones as null), id and timestamps; never the body. The `full` detail level. */
export type SkillMetadataRecord = Omit<StoredSkill, 'content'>

/** The `summary` detail level: exactly these three fields. */
export interface SkillSummaryRecord {
  id: string
  name: string
  description: string
}

/** A skill with its content: what the agent skill endpoints return for one skill. */
export type SkillRecord = StoredSkill

/** A stored item that is not a skill: data damaged outside Agentbox, or a bug; loud, never silently skipped. */
export class StoredSkillDamaged extends Error {}

function checkStored(item: DocumentItem, index: number): StoredSkill {
  const ok = ['id', 'name', 'description', 'content'].every((field) => typeof item[field] === 'string')
  if (!ok) throw new StoredSkillDamaged(`The agent document's skill #${index} is not a skill (id, name, description and content)`)
  return item as unknown as StoredSkill
}

/**
 * The document's skills part, typed and checked: agents stores it as opaque JSON objects and only this module writes
 * them, but a document is stored JSON that any version of the code may have written. The array is the document's own,
 * so pushing to it or replacing an element edits the draft.
 */
export function skillsOf(document: { skills: DocumentItem[] }): StoredSkill[] {
  document.skills.forEach(checkStored)
  return document.skills as unknown as StoredSkill[]
}

// Built field by field, so whatever else an item might carry never reaches a response.
export const toMetadata = (skill: StoredSkill): SkillMetadataRecord => ({
  id: skill.id,
  name: skill.name,
  description: skill.description,
  license: skill.license ?? null,
  compatibility: skill.compatibility ?? null,
  metadata: skill.metadata ?? null,
  'allowed-tools': skill['allowed-tools'] ?? null,
  created_at: skill.created_at,
  updated_at: skill.updated_at,
})

export const toSummary = (skill: StoredSkill): SkillSummaryRecord => ({ id: skill.id, name: skill.name, description: skill.description })

export const toRecord = (skill: StoredSkill): SkillRecord => ({ ...toMetadata(skill), content: skill.content })
