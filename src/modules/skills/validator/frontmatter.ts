// Finds the frontmatter of a SKILL.md line by line: `---` alone on the first line, the next `---` line closes it.
import { problems, type SkillProblem } from './problems.ts'

export interface SplitSkill {
  /** The YAML between the delimiters, line breaks normalised to \n. */
  yaml: string
  /** Everything after the closing delimiter, trimmed (the client implementer guide's definition). */
  body: string
}

const BOM = 0xfeff

/** True when text[start, end) is `---` followed by nothing but spaces or tabs (skills-ref accepts `--- ` as a closer). */
function isDelimiter(text: string, start: number, end: number): boolean {
  if (!text.startsWith('---', start)) return false
  for (let i = start + 3; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x09) return false
  }
  return true
}

/**
 * Splits content into frontmatter and body, or says why it cannot. Not `split('---')`: a `---` inside a value or a
 * horizontal rule in the body must not end anything, only a line of its own does. One leading BOM is dropped (YAML
 * allows one at the start of a stream; editors on Windows write it) and CRLF or CR line breaks count as LF.
 */
export function splitFrontmatter(content: string): SplitSkill | SkillProblem {
  let text = content.charCodeAt(0) === BOM ? content.slice(1) : content
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n')
  const firstBreak = text.indexOf('\n')
  const firstLine = firstBreak === -1 ? text : text.slice(0, firstBreak)
  // The opening line is exactly `---`: a blank line, a space or a second BOM before it means there is no frontmatter.
  if (firstLine !== '---') return problems.frontmatterMissing()
  if (firstBreak === -1) return problems.frontmatterUnclosed()
  const yamlStart = firstBreak + 1
  for (let start = yamlStart; start <= text.length; ) {
    const lineBreak = text.indexOf('\n', start)
    const end = lineBreak === -1 ? text.length : lineBreak
    if (isDelimiter(text, start, end)) return { yaml: text.slice(yamlStart, start), body: text.slice(end + 1).trim() }
    if (lineBreak === -1) break
    start = lineBreak + 1
  }
  return problems.frontmatterUnclosed()
}
