// validateSkill: a SKILL.md checked against the Agent Skills specification. Pure: no HTTP, no database, no clock.
import { checkFields, type SkillFrontmatter } from './fields.ts'
import { splitFrontmatter } from './frontmatter.ts'
import { MAX_FRONTMATTER_BYTES, problems, RECOMMENDED_MAX_BODY_LINES, RECOMMENDED_MAX_BODY_TOKENS, type SkillProblem } from './problems.ts'
import { readFrontmatter } from './yaml-values.ts'

export interface SkillValidation {
  /** True exactly when `errors` is empty; warnings never make a skill invalid. */
  is_valid: boolean
  /** Every rule the content breaks, in the order skills-ref checks them. */
  errors: SkillProblem[]
  /** The specification's size recommendations the body exceeds. */
  warnings: SkillProblem[]
  /** The frontmatter as stored, when valid; null otherwise. */
  frontmatter: SkillFrontmatter | null
}

export interface ValidateOptions {
  /** The name the caller expects (the API's `skill_name`, skills-ref's directory name); compared after NFKC. Blank means none. */
  skillName?: string | null
}

/**
 * About how many tokens `text` is: ~4 characters per token (the spec says "about 5,000 tokens" and names no
 * tokenizer), but never fewer than its whitespace-separated words, since a word is at least one token. Characters are
 * UTF-16 units: they differ from code points only for astral characters (emoji), far inside the estimate's own error.
 */
export function estimateTokens(text: string): number {
  return Math.max(tokensByLength(text), countWords(text))
}

const tokensByLength = (text: string): number => Math.ceil(text.length / 4)

function countWords(text: string): number {
  let words = 0
  let inWord = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const space = c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d
    if (!space && !inWord) words++
    inWord = !space
  }
  return words
}

function countLines(body: string): number {
  if (body === '') return 0
  let lines = 1
  for (let i = body.indexOf('\n'); i !== -1; i = body.indexOf('\n', i + 1)) lines++
  return lines
}

function sizeWarnings(body: string): SkillProblem[] {
  const warnings: SkillProblem[] = []
  const lines = countLines(body)
  if (lines > RECOMMENDED_MAX_BODY_LINES) warnings.push(problems.bodyTooManyLines(lines))
  // The word count is a second pass over the body; it can change the verdict only between 10,000 characters (at most
  // 5,000 words fit below that) and 20,000 (above that the length alone is over), so it runs only there.
  const byLength = tokensByLength(body)
  const decided = byLength > RECOMMENDED_MAX_BODY_TOKENS || body.length <= 2 * RECOMMENDED_MAX_BODY_TOKENS
  const tokens = decided ? byLength : estimateTokens(body)
  if (tokens > RECOMMENDED_MAX_BODY_TOKENS) warnings.push(problems.bodyTooManyTokens(tokens))
  return warnings
}

const result = (errors: SkillProblem[], warnings: SkillProblem[] = [], frontmatter: SkillFrontmatter | null = null): SkillValidation => ({
  is_valid: errors.length === 0,
  errors,
  warnings,
  frontmatter,
})

/**
 * Structure first (frontmatter present and closed, at most MAX_FRONTMATTER_BYTES), then YAML (parses, no duplicate keys, a mapping), then every field
 * rule. A structural or YAML problem stops there, because nothing after it can be read reliably; field problems are
 * all reported together. Size warnings are computed whenever the body could be found.
 */
export function validateSkill(content: string, options: ValidateOptions = {}): SkillValidation {
  if (content.trim() === '') return result([problems.contentEmpty()])
  const split = splitFrontmatter(content)
  if ('code' in split) return result([split])
  const warnings = sizeWarnings(split.body)
  // Before the parser: the size bounds all of its work (a quick UTF-16 length test first, bytes counted only near the limit).
  if (split.yaml.length > MAX_FRONTMATTER_BYTES / 3) {
    const bytes = Buffer.byteLength(split.yaml, 'utf8')
    if (bytes > MAX_FRONTMATTER_BYTES) return result([problems.frontmatterTooLarge(bytes)], warnings)
  }
  const read = readFrontmatter(split.yaml)
  if (!read.ok) return result(read.problems, warnings)
  const expected = options.skillName?.trim() ? options.skillName : undefined
  const { errors, frontmatter } = checkFields(read.fields, expected)
  return result(errors, warnings, frontmatter)
}
