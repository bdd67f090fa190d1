// Request and response schemas of skill validation, an agent's skills and the skill list (docs/api.md "Skills").
import { t } from 'elysia'
import { DateTime } from '../../platform/http/schema-pieces.ts'

const Content = t.String({ description: 'The whole SKILL.md: YAML frontmatter between `---` lines, then the Markdown body' })

export const ValidateSkillBody = t.Object({
  content: Content,
  skill_name: t.Optional(
    t.Nullable(t.String({ description: 'The name the frontmatter must have (skills-ref checks it against the directory name); compared after NFKC' })),
  ),
})

const Problem = t.Object({
  field: t.Nullable(t.String({ description: 'The frontmatter key concerned, or null for structure, YAML and body problems' })),
  code: t.String({ description: 'Stable machine-readable code, e.g. name_invalid_chars, yaml_duplicate_key, body_too_many_lines' }),
  message: t.String(),
})

export const SkillValidationResult = t.Object({
  is_valid: t.Boolean({ description: 'True exactly when errors is empty' }),
  errors: t.Array(Problem, { description: 'Every rule of the specification the content breaks' }),
  warnings: t.Array(Problem, { description: 'Recommendations exceeded (body over 500 lines or about 5,000 tokens); never make a skill invalid' }),
})

export const SkillBody = t.Object({ content: Content })

const License = t.Nullable(t.String())
const Compatibility = t.Nullable(t.String())
const Metadata = t.Nullable(t.Record(t.String(), t.String(), { description: 'Values as written: version: 1.0 is "1.0"' }))
const AllowedTools = t.Nullable(t.String({ description: 'Space-separated tool patterns, e.g. "Bash(git:*) Read"' }))

const summaryFields = {
  id: t.String({ description: 'Stable across edits, renames, publish and restore' }),
  name: t.String({ description: 'From the frontmatter, trimmed and NFKC-normalised; unique within an agent' }),
  description: t.String({ description: 'From the frontmatter, trimmed' }),
}

const frontmatterFields = {
  ...summaryFields,
  license: License,
  compatibility: Compatibility,
  metadata: Metadata,
  'allowed-tools': AllowedTools,
  created_at: DateTime,
  updated_at: DateTime,
}

/** The `full` detail level: every frontmatter field (absent ones null) plus id and timestamps, never the body. */
export const SkillMetadata = t.Object(frontmatterFields)

/** The `summary` detail level: exactly id, name, description. */
export const SkillSummary = t.Object(summaryFields)

export const Skill = t.Object({ ...frontmatterFields, content: t.String({ description: 'The SKILL.md exactly as submitted' }) })

export const AgentParams = t.Object({ name: t.String() })
export const SkillParams = t.Object({ name: t.String(), skill_name: t.String() })

export const ListSkillsQuery = t.Object({
  genai_app: t.String({ description: 'The app: an agent name (app_type=agent) or an MCP app name (app_type=mcp)' }),
  app_type: t.Union([t.Literal('agent'), t.Literal('mcp')]),
  detail_level: t.Optional(t.Union([t.Literal('summary'), t.Literal('full')], { description: 'Default full' })),
  version: t.Optional(t.Union([t.Literal('live'), t.Literal('draft')], { description: 'Agents only. Default live; draft is for owners' })),
})

/**
 * One schema for both detail levels rather than a union (Elysia cannot build its response cleaner for a union of
 * objects): summary items are {id, name, description}; full items carry every other field as well.
 */
export const SkillList = t.Object({
  skill_list: t.Array(
    t.Object(
      {
        ...summaryFields,
        license: t.Optional(License),
        compatibility: t.Optional(Compatibility),
        metadata: t.Optional(Metadata),
        'allowed-tools': t.Optional(AllowedTools),
        created_at: t.Optional(DateTime),
        updated_at: t.Optional(DateTime),
      },
      { description: 'summary: exactly id, name, description; full: every field (SkillMetadata)' },
    ),
  ),
})

/** DELETE answers 204 with no body. */
export const NoContent = t.Undefined({ description: 'No content' })
