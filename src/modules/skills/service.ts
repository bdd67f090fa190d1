// Skills in an agent's draft: add, list, get, replace, delete. Owners only; publish and restore carry them with the draft.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import { conflict, type InputIssue, invalidInput, notFound } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { authorizeAgent, OWNERS_ONLY_DESIGN, readDraft, updateDraft, type AgentsStore } from '../agents/service.ts'
import { skillsOf, toMetadata, toRecord, type SkillMetadataRecord, type SkillRecord, type StoredSkill } from './records.ts'
import { normaliseSkillName, validateSkill, type SkillFrontmatter, type SkillProblem } from './validator/index.ts'

export const SKILL_NOT_FOUND = 'Skill not found'
/** Same words as agents' version reads: the draft is design, like versions. */

const nameTaken = (name: string) => conflict(`A skill named '${name}' already exists in this agent`)

/** One 422 entry per validation error (docs/api.md "Skills"); warnings do not block saving. */
const toIssue = (problem: SkillProblem): InputIssue => ({
  loc: ['content'],
  msg: problem.message,
  type: 'skill_invalid',
  ctx: { field: problem.field, code: problem.code },
})

function validFrontmatter(content: string): SkillFrontmatter {
  const validation = validateSkill(content)
  if (!validation.frontmatter) throw invalidInput(...validation.errors.map(toIssue))
  return validation.frontmatter
}

const findSkill = (skills: StoredSkill[], name: string): StoredSkill | undefined => {
  const wanted = normaliseSkillName(name)
  return skills.find((skill) => skill.name === wanted)
}

/**
 * Runs `change` on the draft's skills in one transaction, after checking again that the caller owns the agent (the
 * first check ran before validation, so a stranger gets 404 rather than a 422 describing content they may not send).
 */
async function changeSkills<R>(store: AgentsStore, principal: Principal, agentName: string, change: (skills: StoredSkill[], now: string) => R): Promise<R> {
  return store.db.transaction().execute(async (trx) => {
    const agent = await authorizeAgent(trx, agentName, principal, 'own')
    const now = isoTime(store.clock.now())
    return updateDraft({ db: trx, clock: store.clock }, agent.id, principal.userId, (draft) => change(skillsOf(draft), now))
  })
}

/** 201 with the new skill; 422 when the content does not validate; 409 when the agent already has a skill of that name. */
export async function addSkill(store: AgentsStore, principal: Principal, agentName: string, content: string): Promise<SkillRecord> {
  await authorizeAgent(store.db, agentName, principal, 'own')
  const frontmatter = validFrontmatter(content)
  return changeSkills(store, principal, agentName, (skills, now) => {
    if (findSkill(skills, frontmatter.name)) throw nameTaken(frontmatter.name)
    const skill: StoredSkill = { id: newId(), ...frontmatter, content, created_at: now, updated_at: now }
    skills.push(skill)
    return toRecord(skill)
  })
}

/** The draft's skills in the order they were added, without content (GET one skill for that). */
export async function listSkills(db: Kysely<Database>, principal: Principal, agentName: string): Promise<SkillMetadataRecord[]> {
  const agent = await authorizeAgent(db, agentName, principal, 'own', OWNERS_ONLY_DESIGN)
  const draft = await readDraft(db, agent.id)
  return draft ? skillsOf(draft).map(toMetadata) : []
}

export async function getSkill(db: Kysely<Database>, principal: Principal, agentName: string, skillName: string): Promise<SkillRecord> {
  const agent = await authorizeAgent(db, agentName, principal, 'own', OWNERS_ONLY_DESIGN)
  const draft = await readDraft(db, agent.id)
  const skill = draft && findSkill(skillsOf(draft), skillName)
  if (!skill) throw notFound(SKILL_NOT_FOUND)
  return toRecord(skill)
}

/**
 * Replaces a skill's content, keeping its id and created_at. The new content may rename the skill (the name lives in
 * the frontmatter, so refusing would make a rename a delete plus an add that loses the id) unless another skill has
 * that name (409). The same content again changes nothing, not even updated_at.
 */
export async function replaceSkill(store: AgentsStore, principal: Principal, agentName: string, skillName: string, content: string): Promise<SkillRecord> {
  const agent = await authorizeAgent(store.db, agentName, principal, 'own')
  // A wrong path is 404 whatever the content, so the caller fixes the path before the content.
  const draft = await readDraft(store.db, agent.id)
  if (!draft || !findSkill(skillsOf(draft), skillName)) throw notFound(SKILL_NOT_FOUND)
  const frontmatter = validFrontmatter(content)
  return changeSkills(store, principal, agentName, (skills, now) => {
    const current = findSkill(skills, skillName)
    if (!current) throw notFound(SKILL_NOT_FOUND)
    if (current.content === content) return toRecord(current)
    const holder = findSkill(skills, frontmatter.name)
    if (holder && holder.id !== current.id) throw nameTaken(frontmatter.name)
    const skill: StoredSkill = { id: current.id, ...frontmatter, content, created_at: current.created_at, updated_at: now }
    skills[skills.indexOf(current)] = skill
    return toRecord(skill)
  })
}

export async function deleteSkill(store: AgentsStore, principal: Principal, agentName: string, skillName: string): Promise<void> {
  await changeSkills(store, principal, agentName, (skills) => {
    const current = findSkill(skills, skillName)
    if (!current) throw notFound(SKILL_NOT_FOUND)
    skills.splice(skills.indexOf(current), 1)
  })
}

/**
 * Adds the skill, or replaces the one its frontmatter names (the design endpoint's put_skill): an MCP client writes a
 * SKILL.md without first asking whether it exists. The result says which happened.
 */
export async function putSkill(store: AgentsStore, principal: Principal, agentName: string, content: string): Promise<SkillRecord & { created: boolean }> {
  const agent = await authorizeAgent(store.db, agentName, principal, 'own')
  const { name } = validFrontmatter(content)
  const draft = await readDraft(store.db, agent.id)
  if (draft && findSkill(skillsOf(draft), name)) return { ...(await replaceSkill(store, principal, agentName, name, content)), created: false }
  return { ...(await addSkill(store, principal, agentName, content)), created: true }
}
