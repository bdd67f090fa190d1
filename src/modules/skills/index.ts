// The skills module's public entry: what other modules may use of skills (an agent's draft skills, load_skill).
export type { ApplicationSkills } from './home.ts'
export { skillsOf, type StoredSkill } from './records.ts'
export { SkillBody } from './schema.ts'
export { deleteSkill, listSkills, putSkill } from './service.ts'
export type { SkillToolsTarget } from './tools.ts'
export type { SkillsHome } from './home.ts'
// Bundles: a SKILL.md from a bundle checked and made a draft item.
export { skillFromBundle } from './bundled.ts'
