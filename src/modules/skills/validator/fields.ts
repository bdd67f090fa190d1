// The specification's field rules, each checked independently so that every problem of a frontmatter is reported.
import {
  ALLOWED_FIELDS,
  MAX_COMPATIBILITY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_METADATA_ENTRIES,
  MAX_NAME_LENGTH,
  problems,
  type SkillProblem,
} from './problems.ts'
import type { YamlEntry, YamlValue } from './yaml-values.ts'

/** The frontmatter of a valid skill, as Agentbox stores and lists it. */
export interface SkillFrontmatter {
  /** Trimmed and NFKC-normalised: the skill's identity within an agent. */
  name: string
  /** Trimmed. */
  description: string
  license: string | null
  compatibility: string | null
  /** Values as written (`version: 1.0` stays "1.0"). */
  metadata: Record<string, string> | null
  'allowed-tools': string | null
}

/** Length in code points, as Python's len() counts and as the spec's "characters" reads: an emoji is one, not two. */
export function codePoints(text: string): number {
  let surrogates = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0xdc00 && c <= 0xdfff) surrogates++
  }
  return text.length - surrogates
}

// Unicode letters and numbers, as Python's str.isalnum() (skills-ref) allows: `技能` and `мой-навык` are names.
const NAME_CHARACTERS = /^[\p{L}\p{N}-]*$/u

/** The name as compared and stored: surrounding space trimmed, then NFKC, so composed and decomposed forms are one name. */
export const normaliseSkillName = (raw: string): string => raw.trim().normalize('NFKC')

/** Records a problem; returns null so a check can `return fail(…)` when it has nothing to store. */
function fail(errors: SkillProblem[], problem: SkillProblem): null {
  errors.push(problem)
  return null
}

const kindOf = (value: YamlValue): string => (value.kind === 'map' ? 'a map' : value.kind === 'list' ? 'a list' : value.kind === 'null' ? 'empty' : 'text')

function checkName(value: YamlValue, expected: string | undefined, errors: SkillProblem[]): string | null {
  if (value.kind === 'map' || value.kind === 'list') return fail(errors, problems.notNonEmptyString('name'))
  if (value.kind === 'null' || value.text.trim() === '') return fail(errors, problems.empty('name'))
  const name = normaliseSkillName(value.text)
  const length = codePoints(name)
  if (length > MAX_NAME_LENGTH) errors.push(problems.nameTooLong(name, length))
  if (name !== name.toLowerCase()) errors.push(problems.nameNotLowercase(name))
  if (name.startsWith('-') || name.endsWith('-')) errors.push(problems.nameHyphenEdge())
  if (name.includes('--')) errors.push(problems.nameConsecutiveHyphens())
  if (!NAME_CHARACTERS.test(name)) errors.push(problems.nameInvalidChars(name))
  if (expected !== undefined && normaliseSkillName(expected) !== name) errors.push(problems.nameMismatch(expected, name))
  return name
}

function checkDescription(value: YamlValue, errors: SkillProblem[]): string | null {
  if (value.kind === 'map' || value.kind === 'list') return fail(errors, problems.notNonEmptyString('description'))
  if (value.kind === 'null' || value.text.trim() === '') return fail(errors, problems.empty('description'))
  // Measured before trimming, as skills-ref measures it.
  const length = codePoints(value.text)
  if (length > MAX_DESCRIPTION_LENGTH) errors.push(problems.descriptionTooLong(length))
  return value.text.trim()
}

/** Free-form string fields (license, allowed-tools): any scalar, read as its text; an empty value is an empty string. */
function checkString(value: YamlValue, problem: () => SkillProblem, errors: SkillProblem[]): string | null {
  if (value.kind === 'map' || value.kind === 'list') return fail(errors, problem())
  return value.kind === 'null' ? '' : value.text
}

function checkCompatibility(value: YamlValue, errors: SkillProblem[]): string | null {
  if (value.kind === 'map' || value.kind === 'list') return fail(errors, problems.compatibilityNotString())
  // The spec says 1-500 characters if provided; skills-ref has no minimum, Agentbox follows the spec.
  const text = value.kind === 'null' ? '' : value.text
  if (text.trim() === '') return fail(errors, problems.compatibilityEmpty())
  const length = codePoints(text)
  if (length > MAX_COMPATIBILITY_LENGTH) errors.push(problems.compatibilityTooLong(length))
  return text
}

/** A map from string keys to string values; scalar values of other types (numbers, booleans) are taken as written. */
function checkMetadata(value: YamlValue, errors: SkillProblem[]): Record<string, string> | null {
  if (value.kind !== 'map') return fail(errors, problems.metadataNotMap())
  if (value.entries.length > MAX_METADATA_ENTRIES) return fail(errors, problems.metadataTooManyEntries(value.entries.length))
  const metadata: Record<string, string> = {}
  let ok = true
  for (const entry of value.entries) {
    if (entry.key === null) {
      errors.push(problems.metadataKeyInvalid(entry.keyText))
      ok = false
    } else if (entry.value.kind === 'map' || entry.value.kind === 'list') {
      errors.push(problems.metadataValueInvalid(entry.key, kindOf(entry.value)))
      ok = false
    } else {
      // An empty value (`key:`) reads as "", as skills-ref reads it.
      metadata[entry.key] = entry.value.kind === 'text' ? entry.value.text : ''
    }
  }
  return ok ? metadata : null
}

/**
 * Checks the fields of a parsed frontmatter in skills-ref's order (unknown keys, name, description, then the optional
 * fields) and returns every problem; `frontmatter` is set only when there are none.
 */
export function checkFields(entries: YamlEntry[], expectedName?: string): { errors: SkillProblem[]; frontmatter: SkillFrontmatter | null } {
  const errors: SkillProblem[] = []
  const fields = new Map<string, YamlValue>()
  const unexpected: string[] = []
  for (const entry of entries) {
    if (entry.key !== null && (ALLOWED_FIELDS as readonly string[]).includes(entry.key)) fields.set(entry.key, entry.value)
    else unexpected.push(entry.key ?? entry.keyText)
  }
  if (unexpected.length > 0) errors.push(problems.fieldsUnexpected(unexpected.sort()))

  const nameValue = fields.get('name')
  const name = nameValue ? checkName(nameValue, expectedName, errors) : fail(errors, problems.missing('name'))
  const descriptionValue = fields.get('description')
  const description = descriptionValue ? checkDescription(descriptionValue, errors) : fail(errors, problems.missing('description'))
  const optional = <T>(key: string, check: (value: YamlValue) => T | null): T | null => {
    const value = fields.get(key)
    return value ? check(value) : null
  }
  const license = optional('license', (v) => checkString(v, problems.licenseNotString, errors))
  const compatibility = optional('compatibility', (v) => checkCompatibility(v, errors))
  const metadata = optional('metadata', (v) => checkMetadata(v, errors))
  const allowedTools = optional('allowed-tools', (v) => checkString(v, problems.allowedToolsNotString, errors))

  if (errors.length > 0 || !name || !description) return { errors, frontmatter: null }
  return { errors, frontmatter: { name, description, license, compatibility, metadata, 'allowed-tools': allowedTools } }
}
