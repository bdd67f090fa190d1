// Application names (api_name): the same rule as agent names, lowercase kebab-case of at most 64 characters, taken
// from the upload's `api_name` field or derived from the document's title.
import type { InputIssue } from '../../platform/errors.ts'
import { MAX_NAME_LENGTH, NAME_PATTERN, normaliseAgentName } from '../agents/index.ts'

/** The title's letters and digits in kebab-case ("GitHub v3 REST API" → "github-v3-rest-api"); `api` if none. */
export function apiNameFromTitle(title: string): string {
  const name = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, '')
  return name === '' ? 'api' : name
}

/** The given api_name normalised, or the 422 entry saying why it cannot be one. */
export function readApiName(raw: string, loc: (string | number)[]): { name: string } | { issue: InputIssue } {
  const name = normaliseAgentName(raw)
  if (name === '') return { issue: { loc, msg: 'api_name must contain at least one letter or digit', type: 'value_error', input: raw } }
  if (name.length > MAX_NAME_LENGTH)
    return {
      issue: {
        loc,
        msg: `api_name should have at most ${MAX_NAME_LENGTH} characters`,
        type: 'string_too_long',
        input: name,
        ctx: { max_length: MAX_NAME_LENGTH },
      },
    }
  if (!NAME_PATTERN.test(name))
    return { issue: { loc, msg: 'api_name may contain only letters a-z, digits, spaces, hyphens and underscores', type: 'value_error', input: name } }
  return { name }
}
