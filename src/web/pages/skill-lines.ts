// Where in a SKILL.md a validation problem lives: the line of its frontmatter key, the line a YAML error names, the
// body's first line for body problems, else line 1. Lines count from 1, as the editor's gutter shows them.

export interface SkillProblem {
  /** The frontmatter key concerned, or null for structure, YAML and body problems. */
  field: string | null
  code: string
  message: string
}

export interface SkillValidation {
  is_valid: boolean
  errors: SkillProblem[]
  warnings: SkillProblem[]
}

/** The editor holds LF only (a textarea's value does too); files written on Windows are brought to it on import. */
export const normaliseBreaks = (text: string) => text.replace(/\r\n?/g, '\n')

const lines = (content: string) => normaliseBreaks(content).split('\n')

/** The closing `---` line's index (0-based), or -1 when the frontmatter is missing or unclosed (as the server reads it). */
function closingIndex(all: readonly string[]): number {
  if (all[0]?.replace(/^\uFEFF/, '') !== '---') return -1
  for (let i = 1; i < all.length; i++) if (/^---[ \t]*$/.test(all[i]!)) return i
  return -1
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The line (1-based) of a top-level `key:` in the frontmatter (quoted keys too), or undefined. */
function keyLine(all: readonly string[], key: string): number | undefined {
  const end = closingIndex(all)
  const last = end === -1 ? all.length : end
  const pattern = new RegExp(`^(["']?)${escapeRegExp(key)}\\1[ \\t]*:`)
  for (let i = 1; i < last; i++) if (pattern.test(all[i]!)) return i + 1
  return undefined
}

/** The body's first line: the first non-blank line after the frontmatter, or the line after it. */
function bodyLine(all: readonly string[]): number {
  const end = closingIndex(all)
  if (end === -1) return 1
  for (let i = end + 1; i < all.length; i++) if (all[i]!.trim() !== '') return i + 1
  return Math.min(end + 2, all.length)
}

export function problemLine(content: string, problem: SkillProblem): number {
  const all = lines(content)
  if (problem.field) return keyLine(all, problem.field) ?? 1
  if (problem.code.startsWith('body_')) return bodyLine(all)
  // YAML errors say where, counted in the whole file: "(line 3, column 7)".
  const at = /\(line (\d+), column \d+\)/.exec(problem.message)
  if (at) return Math.min(Number(at[1]), all.length)
  if (problem.code === 'fields_unexpected') {
    const names = /frontmatter: (.*?)\. Only/.exec(problem.message)?.[1]?.split(', ') ?? []
    for (const name of names) {
      const line = keyLine(all, name)
      if (line) return line
    }
  }
  return 1
}

/** The offset of the start of a line (1-based) in the content. */
export function lineStart(content: string, line: number): number {
  let offset = 0
  for (let n = 1; n < line; n++) {
    const next = content.indexOf('\n', offset)
    if (next === -1) return content.length
    offset = next + 1
  }
  return offset
}

export const lineCount = (content: string) => lines(content).length
