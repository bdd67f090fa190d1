// Skill operations over a SkillsHome (an agent's draft or an MCP app): add, list, get, replace, delete, put. Agent wrappers at the end.
import type { Principal } from '../../platform/auth/principal.ts'
import { conflict, type InputIssue, invalidInput, notFound } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import type { AgentsStore } from '../agents/index.ts'
import { agentSkillsHome, type SkillsHome } from './home.ts'
import { toMetadata, toRecord, type SkillMetadataRecord, type SkillRecord, type StoredSkill } from './records.ts'
import { normaliseSkillName, validateSkill, type SkillFrontmatter, type SkillProblem } from './validator/index.ts'

export const SKILL_NOT_FOUND = 'Skill not found'

const nameTaken = (home: SkillsHome, name: string) => conflict(`A skill named '${name}' already exists in this ${home.noun}`)

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

/** 201 with the new skill; 422 when the content does not validate; 409 when the holder already has a skill of that name. */
export async function addSkillTo(home: SkillsHome, principal: Principal, content: string): Promise<SkillRecord> {
  // Access first: a stranger gets 404, not a 422 describing content they may not send.
  await home.writable(principal)
  const frontmatter = validFrontmatter(content)
  return home.change(principal, (skills, now) => {
    if (findSkill(skills, frontmatter.name)) throw nameTaken(home, frontmatter.name)
    const skill: StoredSkill = { id: newId(), ...frontmatter, content, created_at: now, updated_at: now }
    skills.push(skill)
    return toRecord(skill)
  })
}

/** The skills in the order they were added, without content (GET one skill for that). */
export async function listSkillsOf(home: SkillsHome, principal: Principal): Promise<SkillMetadataRecord[]> {
  return (await home.read(principal)).map(toMetadata)
}

export async function getSkillOf(home: SkillsHome, principal: Principal, skillName: string): Promise<SkillRecord> {
  const skill = findSkill(await home.read(principal), skillName)
  if (!skill) throw notFound(SKILL_NOT_FOUND)
  return toRecord(skill)
}

/**
 * Replaces a skill's content, keeping its id and created_at. The new content may rename the skill (the name lives in
 * the frontmatter, so refusing would make a rename a delete plus an add that loses the id) unless another skill has
 * that name (409). The same content again changes nothing, not even updated_at.
 */
export async function replaceSkillIn(home: SkillsHome, principal: Principal, skillName: string, content: string): Promise<SkillRecord> {
  // A wrong path is 404 whatever the content, so the caller fixes the path before the content.
  if (!findSkill(await home.writable(principal), skillName)) throw notFound(SKILL_NOT_FOUND)
  const frontmatter = validFrontmatter(content)
  return home.change(principal, (skills, now) => {
    const current = findSkill(skills, skillName)
    if (!current) throw notFound(SKILL_NOT_FOUND)
    if (current.content === content) return toRecord(current)
    const holder = findSkill(skills, frontmatter.name)
    if (holder && holder.id !== current.id) throw nameTaken(home, frontmatter.name)
    const skill: StoredSkill = { id: current.id, ...frontmatter, content, created_at: current.created_at, updated_at: now }
    skills[skills.indexOf(current)] = skill
    return toRecord(skill)
  })
}

export async function deleteSkillFrom(home: SkillsHome, principal: Principal, skillName: string): Promise<void> {
  await home.change(principal, (skills) => {
    const current = findSkill(skills, skillName)
    if (!current) throw notFound(SKILL_NOT_FOUND)
    skills.splice(skills.indexOf(current), 1)
  })
}

/**
 * Adds the skill, or replaces the one its frontmatter names (the design endpoint's put_skill): an MCP client writes a
 * SKILL.md without first asking whether it exists. The result says which happened.
 */
export async function putSkillIn(home: SkillsHome, principal: Principal, content: string): Promise<SkillRecord & { created: boolean }> {
  const existing = await home.writable(principal)
  const { name } = validFrontmatter(content)
  if (findSkill(existing, name)) return { ...(await replaceSkillIn(home, principal, name, content)), created: false }
  return { ...(await addSkillTo(home, principal, content)), created: true }
}

// An agent's draft skills by agent name: what the agent skill routes and the design tools call.
export const addSkill = (store: AgentsStore, principal: Principal, agentName: string, content: string) =>
  addSkillTo(agentSkillsHome(store, agentName), principal, content)
export const listSkills = (store: AgentsStore, principal: Principal, agentName: string) => listSkillsOf(agentSkillsHome(store, agentName), principal)
export const getSkill = (store: AgentsStore, principal: Principal, agentName: string, skillName: string) =>
  getSkillOf(agentSkillsHome(store, agentName), principal, skillName)
export const replaceSkill = (store: AgentsStore, principal: Principal, agentName: string, skillName: string, content: string) =>
  replaceSkillIn(agentSkillsHome(store, agentName), principal, skillName, content)
export const deleteSkill = (store: AgentsStore, principal: Principal, agentName: string, skillName: string) =>
  deleteSkillFrom(agentSkillsHome(store, agentName), principal, skillName)
export const putSkill = (store: AgentsStore, principal: Principal, agentName: string, content: string) =>
  putSkillIn(agentSkillsHome(store, agentName), principal, content)
