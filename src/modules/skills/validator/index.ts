// The SKILL.md validator's public surface.
export { validateSkill, estimateTokens, type SkillValidation, type ValidateOptions } from './validate.ts'
export { normaliseSkillName, codePoints, type SkillFrontmatter } from './fields.ts'
export { ALLOWED_FIELDS, type SkillProblem, type SkillProblemCode } from './problems.ts'
