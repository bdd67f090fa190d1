// The SKILL.md cases the validator is held to: every rule of the Agent Skills specification and every ambiguity in design/skills.md.
import type { SkillFrontmatter, SkillProblemCode } from '../../src/modules/skills/validator/index.ts'

export interface SkillCase {
  /** What the case shows; the test title. */
  title: string
  content: string
  skillName?: string | null
  /** Error codes in the order they are reported; [] means valid. */
  errors: SkillProblemCode[]
  warnings?: SkillProblemCode[]
  /** Exact messages, where the wording matters (skills-ref's words, line numbers, counts). */
  messages?: string[]
  /** Fields of errors, in order, where they matter. */
  fields?: (string | null)[]
  /** What a valid skill's stored frontmatter holds (checked with toMatchObject). */
  frontmatter?: Partial<SkillFrontmatter>
}

/** A SKILL.md from frontmatter lines and a body. */
const md = (frontmatter: string[], body = '# Instructions\n\nDo the thing.\n') => `---\n${frontmatter.join('\n')}\n---\n${body}`
const ok = ['name: pdf-processing', 'description: Extracts text from PDF files. Use when the user mentions PDFs.']
const named = (name: string) => md([`name: ${name}`, 'description: A skill.'])
const described = (description: string) => md(['name: pdf', `description: ${description}`])
const lines = (n: number) => Array.from({ length: n }, (_, i) => `Line ${i + 1}.`).join('\n')
const ALLOWED = "Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed."

export const STRUCTURE: SkillCase[] = [
  {
    title: "the spec's minimal example (no body) is valid and clean",
    content: '---\nname: skill-name\ndescription: A description of what this skill does and when to use it.\n---',
    errors: [],
    warnings: [],
  },
  {
    title: 'every optional field, as the spec writes them',
    content: md([
      ...ok,
      'license: Apache-2.0',
      'compatibility: Requires git, docker, jq, and access to the internet',
      'metadata:',
      '  author: example-org',
      '  version: "1.0"',
      'allowed-tools: Bash(git:*) Bash(jq:*) Read',
    ]),
    errors: [],
    warnings: [],
    frontmatter: {
      name: 'pdf-processing',
      license: 'Apache-2.0',
      compatibility: 'Requires git, docker, jq, and access to the internet',
      metadata: { author: 'example-org', version: '1.0' },
      'allowed-tools': 'Bash(git:*) Bash(jq:*) Read',
    },
  },
  { title: 'empty content', content: '', errors: ['content_empty'], messages: ['SKILL.md content is empty'], fields: [null] },
  { title: 'whitespace-only content', content: ' \n\t\n', errors: ['content_empty'] },
  {
    title: 'Markdown with no frontmatter',
    content: '# PDF\n\nname: pdf\n',
    errors: ['frontmatter_missing'],
    messages: ['SKILL.md must start with YAML frontmatter (---)'],
  },
  { title: 'a blank line before the opening --- (decision: invalid, "at the start of the file")', content: `\n${md(ok)}`, errors: ['frontmatter_missing'] },
  { title: 'indented opening ---', content: `  ${md(ok)}`, errors: ['frontmatter_missing'] },
  { title: 'opening ---- is not a delimiter', content: md(ok).replace(/^---/, '----'), errors: ['frontmatter_missing'] },
  { title: 'the opening line must be exactly ---', content: md(ok).replace(/^---/, '--- yaml'), errors: ['frontmatter_missing'] },
  { title: 'one leading BOM is stripped (decision: valid)', content: `\uFEFF${md(ok)}`, errors: [], frontmatter: { name: 'pdf-processing' } },
  { title: 'only one BOM is stripped', content: `\uFEFF\uFEFF${md(ok)}`, errors: ['frontmatter_missing'] },
  {
    title: 'CRLF line breaks (decision: valid)',
    content: md([...ok, 'metadata:', '  author: me']).replace(/\n/g, '\r\n'),
    errors: [],
    frontmatter: { description: 'Extracts text from PDF files. Use when the user mentions PDFs.', metadata: { author: 'me' } },
  },
  { title: 'BOM and CRLF together', content: `\uFEFF${md(ok).replace(/\n/g, '\r\n')}`, errors: [] },
  { title: 'old Mac CR line breaks', content: md(ok).replace(/\n/g, '\r'), errors: [] },
  {
    title: 'frontmatter never closed',
    content: '---\nname: pdf\ndescription: x\n# Body\n',
    errors: ['frontmatter_unclosed'],
    messages: ['SKILL.md frontmatter not properly closed with ---'],
  },
  { title: 'a lone --- line', content: '---', errors: ['frontmatter_unclosed'] },
  { title: 'a closing --- must be alone on its line', content: '---\nname: pdf\ndescription: x\n--- # end\nbody', errors: ['frontmatter_unclosed'] },
  { title: 'trailing spaces after the closing --- are accepted, as skills-ref does', content: '---\nname: pdf\ndescription: x\n---  \t\nbody', errors: [] },
  {
    title: '--- inside a value does not cut it (decision: delimiters are lines)',
    content: md(['name: pdf', 'description: "Splits --- and joins"']),
    errors: [],
    frontmatter: { description: 'Splits --- and joins' },
  },
  {
    title: 'an indented --- inside a block scalar is content, not a delimiter',
    content: md(['name: pdf', 'description: |', '  First part', '  ---', '  Second part']),
    errors: [],
    frontmatter: { description: 'First part\n---\nSecond part' },
  },
  { title: '--- horizontal rules in the body are harmless', content: md(ok, 'Intro\n\n---\n\nMore\n---\nEnd\n'), errors: [] },
  {
    title: 'empty frontmatter is not a mapping',
    content: '---\n---\nbody',
    errors: ['frontmatter_not_mapping'],
    messages: ['SKILL.md frontmatter must be a YAML mapping'],
  },
  { title: 'comment-only frontmatter is not a mapping', content: '---\n# name: pdf\n---\n', errors: ['frontmatter_not_mapping'] },
  { title: 'a YAML list is not a mapping', content: '---\n- name: pdf\n- description: x\n---\n', errors: ['frontmatter_not_mapping'] },
  { title: 'a YAML scalar is not a mapping', content: '---\njust some text\n---\n', errors: ['frontmatter_not_mapping'] },
]

export const YAML: SkillCase[] = [
  {
    title: 'an unquoted ": " in a value is invalid YAML, reported with the line and column in the file (decision: invalid)',
    content: md(['name: pdf', 'description: Use this when: the user has PDFs']),
    errors: ['yaml_invalid'],
    messages: ['Invalid YAML in frontmatter: Nested mappings are not allowed in compact mappings (line 3, column 14); quote a value that contains ": "'],
  },
  {
    title: 'the same text quoted is valid',
    content: md(['name: pdf', 'description: "Use this when: the user has PDFs"']),
    errors: [],
    frontmatter: { description: 'Use this when: the user has PDFs' },
  },
  {
    title: 'a duplicate top-level key is invalid (decision: YAML requires unique keys)',
    content: md(['name: pdf', 'description: first', 'description: second']),
    errors: ['yaml_duplicate_key'],
    messages: ["Invalid YAML in frontmatter: duplicate key 'description' (line 4, column 1)"],
  },
  { title: 'a duplicate key is found however it is quoted', content: md(['name: pdf', '"name": other', 'description: x']), errors: ['yaml_duplicate_key'] },
  {
    title: 'a duplicate key inside metadata is invalid too',
    content: md([...ok, 'metadata:', '  version: "1"', '  version: "2"']),
    errors: ['yaml_duplicate_key'],
    messages: ["Invalid YAML in frontmatter: duplicate key 'version' (line 6, column 3)"],
  },
  { title: 'an unclosed flow sequence', content: md([...ok, 'allowed-tools: [Read, Write']), errors: ['yaml_invalid'] },
  { title: 'an unclosed double quote', content: md(['name: pdf', 'description: "never closed']), errors: ['yaml_invalid'] },
  { title: 'a reserved character starting a plain value', content: md(['name: pdf', 'description: @mention the bot']), errors: ['yaml_invalid'] },
  { title: 'a badly indented continuation', content: md(['name: pdf', 'description: x', '  license: MIT']), errors: ['yaml_invalid'] },
  {
    title: 'tabs as indentation',
    content: md(['name: pdf', 'metadata:', '\tauthor: me', 'description: x']),
    errors: ['yaml_invalid'],
    messages: ['Invalid YAML in frontmatter: Tabs are not allowed as indentation (line 4, column 1)'],
  },
  { title: 'each broken line is reported once', content: md(['name: pdf: v2', 'description: Use when: always']), errors: ['yaml_invalid', 'yaml_invalid'] },
  {
    title: 'each duplicate key is reported',
    content: md(['name: a', 'name: b', 'description: c', 'description: d']),
    errors: ['yaml_duplicate_key', 'yaml_duplicate_key'],
  },
  {
    title: 'an alias to an anchor that does not exist',
    content: md(['name: pdf', 'description: *missing']),
    errors: ['yaml_invalid'],
    messages: ['Invalid YAML in frontmatter: Unresolved alias *missing'],
  },
  {
    title: 'an alias to a scalar anchor reads as that text',
    content: md(['name: &n pdf', 'description: *n']),
    errors: [],
    frontmatter: { description: 'pdf' },
  },
  {
    title: 'block scalars (folded description) are trimmed when stored',
    content: md(['name: pdf', 'description: >', '  Extracts text', '  from PDFs.']),
    errors: [],
    frontmatter: { description: 'Extracts text from PDFs.' },
  },
  {
    title: 'YAML comments and single-quoted escapes',
    content: md(['# a comment', "name: 'pdf' # trailing", "description: 'It''s for PDFs'"]),
    errors: [],
    frontmatter: { description: "It's for PDFs" },
  },
]

export const FIELDS: SkillCase[] = [
  {
    title: 'one unknown key',
    content: md([...ok, 'version: 1.0']),
    errors: ['fields_unexpected'],
    messages: [`Unexpected fields in frontmatter: version. ${ALLOWED}`],
    fields: [null],
  },
  {
    title: 'several unknown keys are one error, sorted',
    content: md([...ok, 'zeta: 1', 'alpha: 2']),
    errors: ['fields_unexpected'],
    messages: [`Unexpected fields in frontmatter: alpha, zeta. ${ALLOWED}`],
  },
  {
    title: 'extension fields of other clients are unknown (decision: error)',
    content: md([...ok, 'context: fork', 'model: opus', 'argument-hint: "[file]"', 'user-invocable: true']),
    errors: ['fields_unexpected'],
    messages: [`Unexpected fields in frontmatter: argument-hint, context, model, user-invocable. ${ALLOWED}`],
  },
  { title: 'allowed_tools with an underscore is not allowed-tools', content: md([...ok, 'allowed_tools: Read']), errors: ['fields_unexpected'] },
  { title: 'keys are case-sensitive', content: md(['Name: pdf', 'description: x']), errors: ['fields_unexpected', 'name_missing'] },
]

export const NAME: SkillCase[] = [
  {
    title: 'name missing',
    content: md(['description: x']),
    errors: ['name_missing'],
    messages: ['Missing required field in frontmatter: name'],
    fields: ['name'],
  },
  { title: 'name empty', content: named('""'), errors: ['name_empty'], messages: ["Field 'name' must be a non-empty string"] },
  { title: 'name whitespace only', content: named('"   "'), errors: ['name_empty'] },
  { title: 'name with no value', content: md(['name:', 'description: x']), errors: ['name_empty'] },
  { title: 'name null', content: named('~'), errors: ['name_empty'] },
  {
    title: 'name a list',
    content: md(['name:', '  - pdf', 'description: x']),
    errors: ['name_not_string'],
    messages: ["Field 'name' must be a non-empty string"],
  },
  { title: 'name a map (flow style)', content: named('{a: b}'), errors: ['name_not_string'] },
  {
    title: "the spec's invalid example PDF-Processing",
    content: named('PDF-Processing'),
    errors: ['name_not_lowercase'],
    messages: ["Skill name 'PDF-Processing' must be lowercase"],
  },
  {
    title: "the spec's invalid example -pdf",
    content: named('-pdf'),
    errors: ['name_hyphen_edge'],
    messages: ['Skill name cannot start or end with a hyphen'],
  },
  { title: 'a trailing hyphen', content: named('pdf-'), errors: ['name_hyphen_edge'] },
  {
    title: "the spec's invalid example pdf--processing",
    content: named('pdf--processing'),
    errors: ['name_consecutive_hyphens'],
    messages: ['Skill name cannot contain consecutive hyphens'],
  },
  {
    title: 'an underscore',
    content: named('pdf_processing'),
    errors: ['name_invalid_chars'],
    messages: ["Skill name 'pdf_processing' contains invalid characters. Only letters, digits, and hyphens are allowed."],
  },
  { title: 'a space', content: named('pdf processing'), errors: ['name_invalid_chars'] },
  { title: 'a dot', content: named('pdf.v2'), errors: ['name_invalid_chars'] },
  { title: 'an emoji is not a letter', content: named('pdf-📄'), errors: ['name_invalid_chars'] },
  {
    title: 'all name rules at once are all reported',
    content: named('-PDF--x_'),
    errors: ['name_not_lowercase', 'name_hyphen_edge', 'name_consecutive_hyphens', 'name_invalid_chars'],
  },
  { title: '64 characters is the limit', content: named('a'.repeat(64)), errors: [] },
  {
    title: '65 characters is too long',
    content: named('a'.repeat(65)),
    errors: ['name_too_long'],
    messages: [`Skill name '${'a'.repeat(65)}' exceeds 64 character limit (65 chars)`],
  },
  { title: 'the name is trimmed before it is measured', content: named(`"  ${'a'.repeat(64)}  "`), errors: [] },
  { title: 'length is counted in code points: 64 astral lowercase letters fit', content: named('𐐨'.repeat(64)), errors: [] },
  {
    title: '65 astral letters are 65, not 130',
    content: named('𐐨'.repeat(65)),
    errors: ['name_too_long'],
    messages: [`Skill name '${'𐐨'.repeat(65)}' exceeds 64 character limit (65 chars)`],
  },
  { title: 'Unicode lowercase letters are allowed: 技能 (decision: valid)', content: named('技能'), errors: [], frontmatter: { name: '技能' } },
  { title: 'Unicode lowercase letters are allowed: мой-навык', content: named('мой-навык'), errors: [] },
  { title: 'Unicode digits are allowed', content: named('skill-٣'), errors: [] },
  { title: 'uppercase Cyrillic is not lowercase', content: named('НАВЫК'), errors: ['name_not_lowercase'], messages: ["Skill name 'НАВЫК' must be lowercase"] },
  { title: 'combining marks are not letters (as skills-ref: str.isalnum)', content: named('हिन्दी'), errors: ['name_invalid_chars'] },
  { title: 'a decomposed name is NFKC-composed', content: named('cafe\u0301'), errors: [], frontmatter: { name: 'café' } },
  { title: 'fullwidth letters normalise to ASCII under NFKC', content: named('ｐｄｆ'), errors: [], frontmatter: { name: 'pdf' } },
  { title: 'messages show the NFKC form', content: named('ＰＤＦ'), errors: ['name_not_lowercase'], messages: ["Skill name 'PDF' must be lowercase"] },
  { title: 'surrounding spaces in a quoted name are trimmed', content: named('"  pdf  "'), errors: [], frontmatter: { name: 'pdf' } },
  { title: 'name: 123 reads as the text 123 (decision: scalars as written, like skills-ref)', content: named('123'), errors: [], frontmatter: { name: '123' } },
  { title: 'name: true reads as the text true', content: named('true'), errors: [], frontmatter: { name: 'true' } },
  { title: 'name: 1e3 keeps the text as written', content: named('1e3'), errors: [], frontmatter: { name: '1e3' } },
]

export const SKILL_NAME: SkillCase[] = [
  { title: 'skill_name equal to the name', content: md(ok), skillName: 'pdf-processing', errors: [] },
  {
    title: 'skill_name different from the name (decision: error, like the directory check)',
    content: md(ok),
    skillName: 'pdf',
    errors: ['name_mismatch'],
    messages: ["Skill name 'pdf-processing' must match the expected name 'pdf'"],
    fields: ['name'],
  },
  { title: 'skill_name is compared after NFKC', content: named('café'), skillName: 'cafe\u0301', errors: [] },
  { title: 'skill_name with surrounding spaces', content: md(ok), skillName: ' pdf-processing ', errors: [] },
  { title: 'a blank skill_name means none', content: md(ok), skillName: '', errors: [] },
  { title: 'a null skill_name means none', content: md(ok), skillName: null, errors: [] },
  { title: 'skill_name is checked beside the other name rules', content: named('Pdf'), skillName: 'pdf', errors: ['name_not_lowercase', 'name_mismatch'] },
  { title: 'no mismatch is reported when the name is missing', content: md(['description: x']), skillName: 'pdf', errors: ['name_missing'] },
]

export const DESCRIPTION: SkillCase[] = [
  {
    title: 'description missing',
    content: md(['name: pdf']),
    errors: ['description_missing'],
    messages: ['Missing required field in frontmatter: description'],
    fields: ['description'],
  },
  { title: 'description empty', content: described('""'), errors: ['description_empty'], messages: ["Field 'description' must be a non-empty string"] },
  { title: 'description whitespace only', content: described('"  \\t "'), errors: ['description_empty'] },
  { title: 'description with no value', content: md(['name: pdf', 'description:']), errors: ['description_empty'] },
  { title: 'description a list', content: md(['name: pdf', 'description:', '  - one']), errors: ['description_not_string'] },
  { title: '1024 characters is the limit', content: described('d'.repeat(1024)), errors: [] },
  {
    title: '1025 characters is too long',
    content: described('d'.repeat(1025)),
    errors: ['description_too_long'],
    messages: ['Description exceeds 1024 character limit (1025 chars)'],
  },
  {
    title: 'description is measured before trimming, as skills-ref measures it',
    content: described(`"  ${'d'.repeat(1022)}  "`),
    errors: ['description_too_long'],
    messages: ['Description exceeds 1024 character limit (1026 chars)'],
  },
  { title: 'description length is in code points: 1024 emoji fit', content: described('😀'.repeat(1024)), errors: [] },
  { title: 'description: 42 reads as the text 42', content: described('42'), errors: [], frontmatter: { description: '42' } },
]

export const OPTIONAL: SkillCase[] = [
  {
    title: 'compatibility empty (decision: error; the spec says 1-500)',
    content: md([...ok, 'compatibility: ""']),
    errors: ['compatibility_empty'],
    messages: ["Field 'compatibility' must be 1-500 characters if provided"],
    fields: ['compatibility'],
  },
  { title: 'compatibility with no value', content: md([...ok, 'compatibility:']), errors: ['compatibility_empty'] },
  { title: 'compatibility of 500 characters', content: md([...ok, `compatibility: ${'c'.repeat(500)}`]), errors: [] },
  {
    title: 'compatibility of 501 characters',
    content: md([...ok, `compatibility: ${'c'.repeat(501)}`]),
    errors: ['compatibility_too_long'],
    messages: ['Compatibility exceeds 500 character limit (501 chars)'],
  },
  {
    title: 'compatibility a list',
    content: md([...ok, 'compatibility:', '  - linux']),
    errors: ['compatibility_not_string'],
    messages: ["Field 'compatibility' must be a string"],
  },
  { title: 'license a map', content: md([...ok, 'license:', '  name: MIT']), errors: ['license_not_string'], fields: ['license'] },
  {
    title: 'license referring to a bundled file',
    content: md([...ok, 'license: Proprietary. LICENSE.txt has complete terms']),
    errors: [],
    frontmatter: { license: 'Proprietary. LICENSE.txt has complete terms' },
  },
  {
    title: 'allowed-tools as a block list (decision: error; the spec says a space-separated string)',
    content: md([...ok, 'allowed-tools:', '  - Read', '  - Write']),
    errors: ['allowed_tools_not_string'],
    fields: ['allowed-tools'],
  },
  { title: 'allowed-tools as a flow list', content: md([...ok, 'allowed-tools: [Read, Write]']), errors: ['allowed_tools_not_string'] },
  {
    title: 'metadata values that are numbers or booleans are kept as written (decision: valid)',
    content: md([...ok, 'metadata:', '  version: 1.0', '  beta: true', '  build: 0x1F']),
    errors: [],
    frontmatter: { metadata: { version: '1.0', beta: 'true', build: '0x1F' } },
  },
  {
    title: 'metadata in flow style is ordinary YAML (decision: valid)',
    content: md([...ok, 'metadata: {author: me, version: "2"}']),
    errors: [],
    frontmatter: { metadata: { author: 'me', version: '2' } },
  },
  { title: 'empty metadata', content: md([...ok, 'metadata: {}']), errors: [], frontmatter: { metadata: {} } },
  { title: 'a metadata value with no value reads as ""', content: md([...ok, 'metadata:', '  note:']), errors: [], frontmatter: { metadata: { note: '' } } },
  {
    title: 'numeric metadata keys read as written',
    content: md([...ok, 'metadata:', '  2024: launch']),
    errors: [],
    frontmatter: { metadata: { '2024': 'launch' } },
  },
  {
    title: 'metadata a string (decision: error)',
    content: md([...ok, 'metadata: v1']),
    errors: ['metadata_not_map'],
    messages: ["Field 'metadata' must be a map of string keys to string values"],
    fields: ['metadata'],
  },
  { title: 'metadata a list', content: md([...ok, 'metadata:', '  - a']), errors: ['metadata_not_map'] },
  { title: 'metadata with no value', content: md([...ok, 'metadata:']), errors: ['metadata_not_map'] },
  {
    title: 'nested metadata values are errors, one per key (decision: map of string to string)',
    content: md([...ok, 'metadata:', '  owner:', '    team: docs', '  tags: [a, b]', '  ok: fine']),
    errors: ['metadata_value_invalid', 'metadata_value_invalid'],
    messages: ["Field 'metadata' value for key 'owner' must be a string, not a map", "Field 'metadata' value for key 'tags' must be a string, not a list"],
  },
  { title: 'a metadata key that is not a scalar', content: md([...ok, 'metadata:', '  ? [a, b]', '  : c']), errors: ['metadata_key_invalid'] },
]

export const COMBINED: SkillCase[] = [
  {
    title: 'every problem of a frontmatter is reported, in order',
    content: md(['name: -Bad--Name', 'description: ""', 'compatibility: ""', 'license: [a]', 'metadata: text', 'allowed-tools: [Read]', 'extra: 1']),
    skillName: 'other',
    errors: [
      'fields_unexpected',
      'name_not_lowercase',
      'name_hyphen_edge',
      'name_consecutive_hyphens',
      'name_mismatch',
      'description_empty',
      'license_not_string',
      'compatibility_empty',
      'metadata_not_map',
      'allowed_tools_not_string',
    ],
    fields: [null, 'name', 'name', 'name', 'name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'],
  },
  { title: 'both required fields missing', content: md(['license: MIT']), errors: ['name_missing', 'description_missing'] },
]

export const SIZE: SkillCase[] = [
  { title: 'a body of 500 lines is clean', content: md(ok, lines(500)), errors: [], warnings: [] },
  { title: 'a body of 501 lines is a warning, still valid', content: md(ok, lines(501)), errors: [], warnings: ['body_too_many_lines'], messages: [] },
  {
    title: 'lines are counted after CRLF normalisation and trimming',
    content: md(ok, `\n\n${lines(501)}\n\n\n`).replace(/\n/g, '\r\n'),
    errors: [],
    warnings: ['body_too_many_lines'],
  },
  { title: 'a body of 20,000 characters (~5,000 tokens) is clean', content: md(ok, 'x'.repeat(20_000)), errors: [], warnings: [] },
  { title: 'a body over ~5,000 tokens is a warning', content: md(ok, 'x'.repeat(20_004)), errors: [], warnings: ['body_too_many_tokens'] },
  {
    title: 'short words count as a token each: 5,001 one-letter words are over ~5,000 tokens',
    content: md(ok, 'a '.repeat(5001)),
    errors: [],
    warnings: ['body_too_many_tokens'],
  },
  { title: '5,000 one-letter words are not', content: md(ok, 'a '.repeat(5000)), errors: [], warnings: [] },
  { title: 'both size warnings', content: md(ok, lines(3000)), errors: [], warnings: ['body_too_many_lines', 'body_too_many_tokens'] },
  {
    title: 'warnings are reported beside errors',
    content: md(['name: Bad', 'description: x'], lines(600)),
    errors: ['name_not_lowercase'],
    warnings: ['body_too_many_lines'],
  },
  {
    title: 'warnings are reported beside YAML errors',
    content: md(['name: a', 'name: b'], lines(600)),
    errors: ['yaml_duplicate_key'],
    warnings: ['body_too_many_lines'],
  },
  { title: 'the frontmatter does not count towards the body', content: md([...ok, `compatibility: ${'c'.repeat(500)}`], lines(10)), errors: [], warnings: [] },
]

export const ALL_CASES: [string, SkillCase[]][] = [
  ['structure', STRUCTURE],
  ['YAML', YAML],
  ['unknown fields', FIELDS],
  ['name', NAME],
  ['skill_name', SKILL_NAME],
  ['description', DESCRIPTION],
  ['optional fields', OPTIONAL],
  ['combined', COMBINED],
  ['size recommendations', SIZE],
]
