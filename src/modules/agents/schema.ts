// Request and response schemas of agents, versions and members (docs/api.md "Agents and versions").
import { t } from 'elysia'
import { DateTime } from '../../platform/http/schema-pieces.ts'
import { pageQueryFields, uncappedList } from '../../platform/http/paging.ts'
import { MAX_APPLICATIONS_PER_AGENT } from './application-uses.ts'
import { MAX_NAME_LENGTH } from './names.ts'

export const MAX_DESCRIPTION_LENGTH = 300
export const MAX_INSTRUCTIONS_LENGTH = 4000
export const MAX_NOTE_LENGTH = 500

const Description = t.String({ minLength: 1, maxLength: MAX_DESCRIPTION_LENGTH })
const Instructions = t.String({ minLength: 1, maxLength: MAX_INSTRUCTIONS_LENGTH })
// Raw names are normalised before the kebab-case and length rule applies, so the schema only asks for a string.
const RawName = t.String({
  minLength: 1,
  description: `Normalised to lowercase kebab-case (spaces and underscores become hyphens), then at most ${MAX_NAME_LENGTH} characters matching ^[a-z0-9]+(-[a-z0-9]+)*$`,
})
const Role = t.Union([t.Literal('owner'), t.Literal('viewer'), t.Literal('admin')], {
  description:
    "The caller's standing: owner (sees and edits the draft), viewer (uses the live version), admin (an admin who is neither: sees the live version)",
})
export const MemberRole = t.Union([t.Literal('owner'), t.Literal('viewer')])

const summaryFields = {
  id: t.String(),
  name: t.String(),
  description: t.Nullable(t.String({ description: "Owners: the draft's. Others: the live version's, null before the first publish." })),
  live_version: t.Nullable(t.Integer({ description: 'The version chat, tasks and the MCP URL use; null before the first publish' })),
  has_unpublished_changes: t.Boolean({ description: 'The Draft chip: the draft differs from the live version (true before the first publish)' }),
  role: Role,
  created_by: t.String({ description: "The creator's e-mail" }),
  created_at: DateTime,
  updated_at: DateTime,
}

export const AgentSummary = t.Object(summaryFields)

const ApplicationUse = t.Object({
  api_name: t.String({ minLength: 1, maxLength: 64 }),
  operation_ids: t.Optional(
    t.Array(t.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 2000,
      description: "Only these operations become tools; all of the application's when absent",
    }),
  ),
})

const Applications = t.Array(ApplicationUse, {
  maxItems: MAX_APPLICATIONS_PER_AGENT,
  description: "The applications whose operations the agent's MCP endpoints offer as tools (published with the draft)",
})

export const Agent = t.Object({
  ...summaryFields,
  instructions: t.Nullable(t.String({ description: 'Same rule as description' })),
  applications: t.Array(ApplicationUse, { description: "Owners: the draft's. Others: the live version's." }),
})

export const CreateAgentBody = t.Object({ name: RawName, description: Description, instructions: Instructions })

export const SaveAgentBody = t.Object({
  name: t.Optional(t.String({ description: 'Names are immutable; accepted only when it normalises to the current name' })),
  description: t.Optional(Description),
  instructions: t.Optional(Instructions),
  applications: t.Optional(Applications),
})

export const AgentParams = t.Object({ name: t.String() })

export const ListQuery = t.Object(pageQueryFields(uncappedList))

export const PublishBody = t.Object({ note: t.Optional(t.String({ maxLength: MAX_NOTE_LENGTH })) })

export const Version = t.Object({
  version: t.Integer({ minimum: 1 }),
  note: t.Nullable(t.String()),
  created_at: DateTime,
  created_by: t.String({ description: "The publisher's e-mail" }),
  live: t.Boolean({ description: 'Whether live points at this version' }),
})

export const VersionDetail = t.Object({
  ...Version.properties,
  description: t.String(),
  instructions: t.String(),
  applications: t.Array(ApplicationUse, { description: "The applications whose operations this version's MCP endpoints offer" }),
})

// No minimum here for the same reason as ListQuery: version 0 or below is simply not found (404).
export const VersionParams = t.Object({ name: t.String(), version: t.Integer() })

export const SwitchLiveBody = t.Object({ version: t.Integer({ minimum: 1 }) })

export const Member = t.Object({
  user_id: t.String(),
  email: t.String(),
  name: t.String(),
  role: MemberRole,
  added_at: DateTime,
  added_by: t.String({ description: 'E-mail of who added (or last changed) this member' }),
})

export const PutMemberBody = t.Object({ email: t.String({ format: 'email', maxLength: 320 }), role: MemberRole })

export const MemberParams = t.Object({ name: t.String(), user_id: t.String() })

/** DELETE answers 204 with no body. */
export const NoContent = t.Undefined({ description: 'No content' })
