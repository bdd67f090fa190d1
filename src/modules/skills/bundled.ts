// A skill carried by an agent bundle (skills/<name>/SKILL.md), checked as POST /api/agents/{name}/skills checks it, and
// with the skills-ref rule that the folder is named after the skill.
import type { InputIssue } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { StoredSkill } from './records.ts'
import { validateSkill } from './validator/index.ts'

export type BundledSkill = { skill: StoredSkill } | { issues: InputIssue[] }

/**
 * The skill to store from `content`, found in the folder `folderName`, or one issue per validation error (located at
 * `content`, as the API has them). `keep` carries the id and creation time of the skill it replaces, so a skill that
 * comes back under the same name keeps its identity.
 */
export function skillFromBundle(content: string, folderName: string, now: string, keep?: Pick<StoredSkill, 'id' | 'created_at'>): BundledSkill {
  const validation = validateSkill(content, { skillName: folderName })
  if (!validation.frontmatter) {
    return {
      issues: validation.errors.map((problem) => ({
        loc: ['content'],
        msg: problem.message,
        type: 'skill_invalid',
        ctx: { field: problem.field, code: problem.code },
      })),
    }
  }
  return { skill: { id: keep?.id ?? newId(), ...validation.frontmatter, content, created_at: keep?.created_at ?? now, updated_at: now } }
}
