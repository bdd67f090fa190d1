// Agent names: normalisation to lowercase kebab-case and the rule the result must meet (docs/api.md "Agents and versions").
import type { InputIssue } from '../../platform/errors.ts'

export const MAX_NAME_LENGTH = 64
export const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/

/** Lowercase; spaces, underscores and hyphens, in any run, become one hyphen; no hyphen at either end. */
export function normaliseAgentName(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/**
 * What is wrong with a raw name once normalised, as a 422 entry at `loc`, or null when it is fine.
 * The input echoed is the normalised name, so the caller sees what their name became.
 */
export function agentNameIssue(raw: string, loc: (string | number)[] = ['name']): InputIssue | null {
  const name = normaliseAgentName(raw)
  if (name === '') return { loc, msg: 'Agent name must contain at least one letter or digit', type: 'value_error', input: raw }
  if (name.length > MAX_NAME_LENGTH) {
    return {
      loc,
      msg: `Agent name should have at most ${MAX_NAME_LENGTH} characters`,
      type: 'string_too_long',
      input: name,
      ctx: { max_length: MAX_NAME_LENGTH },
    }
  }
  if (!NAME_PATTERN.test(name)) {
    return { loc, msg: 'Agent name may contain only letters a-z, digits, spaces, hyphens and underscores', type: 'value_error', input: name }
  }
  return null
}
