// The problems a SKILL.md can have: stable codes, the field each concerns, and messages worded as skills-ref words them.

/** One entry of `errors` or `warnings` in a validation result (docs/api.md "Skills"). */
export interface SkillProblem {
  /** The frontmatter key concerned (`name`, `allowed-tools`…), or null for the file's structure, its YAML or its body. */
  field: string | null
  /** Stable, machine-readable; clients switch on it, so a code is never renamed. */
  code: SkillProblemCode
  /** For people. Where skills-ref has a message for the same rule, it is that message word for word. */
  message: string
}

export type SkillProblemCode =
  | 'content_empty'
  | 'frontmatter_missing'
  | 'frontmatter_unclosed'
  | 'frontmatter_too_large'
  | 'yaml_invalid'
  | 'yaml_duplicate_key'
  | 'frontmatter_not_mapping'
  | 'fields_unexpected'
  | 'name_missing'
  | 'name_empty'
  | 'name_not_string'
  | 'name_too_long'
  | 'name_not_lowercase'
  | 'name_hyphen_edge'
  | 'name_consecutive_hyphens'
  | 'name_invalid_chars'
  | 'name_mismatch'
  | 'description_missing'
  | 'description_empty'
  | 'description_not_string'
  | 'description_too_long'
  | 'license_not_string'
  | 'compatibility_not_string'
  | 'compatibility_empty'
  | 'compatibility_too_long'
  | 'metadata_not_map'
  | 'metadata_key_invalid'
  | 'metadata_value_invalid'
  | 'metadata_too_many_entries'
  | 'allowed_tools_not_string'
  | 'body_too_many_lines'
  | 'body_too_many_tokens'

/** The six keys the specification defines, sorted as skills-ref prints them. */
export const ALLOWED_FIELDS = ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] as const

export const MAX_NAME_LENGTH = 64
export const MAX_DESCRIPTION_LENGTH = 1024
export const MAX_COMPATIBILITY_LENGTH = 500
/**
 * Limits of Agentbox, not of the specification (issue 14, item 4): a real frontmatter is a few hundred bytes, and
 * these keep one validation to milliseconds. The size is checked before the YAML parser runs, and bounds everything
 * it can be asked to do; the metadata count bounds what is stored and listed.
 */
export const MAX_FRONTMATTER_BYTES = 32 * 1024
export const MAX_METADATA_ENTRIES = 256
/** Recommendations of the specification ("Progressive disclosure"): warnings, never errors. */
export const RECOMMENDED_MAX_BODY_LINES = 500
export const RECOMMENDED_MAX_BODY_TOKENS = 5000

const problem = (field: string | null, code: SkillProblemCode, message: string): SkillProblem => ({ field, code, message })
const quoted = (names: readonly string[]) => `[${names.map((n) => `'${n}'`).join(', ')}]`

export const problems = {
  contentEmpty: () => problem(null, 'content_empty', 'SKILL.md content is empty'),
  frontmatterMissing: () => problem(null, 'frontmatter_missing', 'SKILL.md must start with YAML frontmatter (---)'),
  frontmatterUnclosed: () => problem(null, 'frontmatter_unclosed', 'SKILL.md frontmatter not properly closed with ---'),
  frontmatterTooLarge: (bytes: number) =>
    problem(null, 'frontmatter_too_large', `SKILL.md frontmatter is ${bytes} bytes; at most ${MAX_FRONTMATTER_BYTES} are allowed`),
  yamlInvalid: (detail: string) => problem(null, 'yaml_invalid', `Invalid YAML in frontmatter: ${detail}`),
  yamlDuplicateKey: (key: string, where: string) => problem(null, 'yaml_duplicate_key', `Invalid YAML in frontmatter: duplicate key '${key}' ${where}`),
  notMapping: () => problem(null, 'frontmatter_not_mapping', 'SKILL.md frontmatter must be a YAML mapping'),
  fieldsUnexpected: (keys: string[]) =>
    problem(null, 'fields_unexpected', `Unexpected fields in frontmatter: ${keys.join(', ')}. Only ${quoted(ALLOWED_FIELDS)} are allowed.`),

  missing: (field: 'name' | 'description') => problem(field, `${field}_missing`, `Missing required field in frontmatter: ${field}`),
  empty: (field: 'name' | 'description') => problem(field, `${field}_empty`, `Field '${field}' must be a non-empty string`),
  notNonEmptyString: (field: 'name' | 'description') => problem(field, `${field}_not_string`, `Field '${field}' must be a non-empty string`),

  nameTooLong: (name: string, length: number) =>
    problem('name', 'name_too_long', `Skill name '${name}' exceeds ${MAX_NAME_LENGTH} character limit (${length} chars)`),
  nameNotLowercase: (name: string) => problem('name', 'name_not_lowercase', `Skill name '${name}' must be lowercase`),
  nameHyphenEdge: () => problem('name', 'name_hyphen_edge', 'Skill name cannot start or end with a hyphen'),
  nameConsecutiveHyphens: () => problem('name', 'name_consecutive_hyphens', 'Skill name cannot contain consecutive hyphens'),
  nameInvalidChars: (name: string) =>
    problem('name', 'name_invalid_chars', `Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`),
  // skills-ref compares with the directory name; the API compares with the caller's expected name (skill_name).
  nameMismatch: (expected: string, name: string) => problem('name', 'name_mismatch', `Skill name '${name}' must match the expected name '${expected}'`),

  descriptionTooLong: (length: number) =>
    problem('description', 'description_too_long', `Description exceeds ${MAX_DESCRIPTION_LENGTH} character limit (${length} chars)`),

  licenseNotString: () => problem('license', 'license_not_string', "Field 'license' must be a string"),
  compatibilityNotString: () => problem('compatibility', 'compatibility_not_string', "Field 'compatibility' must be a string"),
  compatibilityEmpty: () =>
    problem('compatibility', 'compatibility_empty', `Field 'compatibility' must be 1-${MAX_COMPATIBILITY_LENGTH} characters if provided`),
  compatibilityTooLong: (length: number) =>
    problem('compatibility', 'compatibility_too_long', `Compatibility exceeds ${MAX_COMPATIBILITY_LENGTH} character limit (${length} chars)`),
  metadataNotMap: () => problem('metadata', 'metadata_not_map', "Field 'metadata' must be a map of string keys to string values"),
  metadataKeyInvalid: (key: string) => problem('metadata', 'metadata_key_invalid', `Field 'metadata' has a key that is not a string: ${key}`),
  metadataValueInvalid: (key: string, kind: string) =>
    problem('metadata', 'metadata_value_invalid', `Field 'metadata' value for key '${key}' must be a string, not ${kind}`),
  metadataTooManyEntries: (count: number) =>
    problem('metadata', 'metadata_too_many_entries', `Field 'metadata' has ${count} entries; at most ${MAX_METADATA_ENTRIES} are allowed`),
  allowedToolsNotString: () => problem('allowed-tools', 'allowed_tools_not_string', "Field 'allowed-tools' must be a space-separated string of tools"),

  bodyTooManyLines: (lines: number) =>
    problem(null, 'body_too_many_lines', `SKILL.md body is ${lines} lines (the specification recommends under ${RECOMMENDED_MAX_BODY_LINES})`),
  bodyTooManyTokens: (tokens: number) =>
    problem(null, 'body_too_many_tokens', `SKILL.md body is about ${tokens} tokens (the specification recommends under ${RECOMMENDED_MAX_BODY_TOKENS})`),
}
