// Request and response schemas of GPT apps (docs/api.md "GPT apps"): the admins' records and keys, and the two actions a
// GPT calls with its key. The Actions schema a GPT builder is given is generated from these same schemas.
import { t } from 'elysia'
import { DateTime } from '../../platform/http/schema-pieces.ts'

export const MAX_GPT_APPLICATIONS = 50
export const MAX_GPT_DESCRIPTION = 300
/** What a custom GPT's own instructions field takes. */
export const MAX_GPT_INSTRUCTIONS = 8000
export const MAX_NAME_LENGTH = 64

const Visibility = t.Union([t.Literal('private'), t.Literal('public')], {
  description: 'private: listed to admins and to the admin who installed it; public: listed to every member',
})

export const CreateGptBody = t.Object({
  name: t.String({
    minLength: 1,
    description: `Agent-name rules: normalised to lowercase kebab-case (spaces and underscores become hyphens), then at most ${MAX_NAME_LENGTH} characters matching ^[a-z0-9]+(-[a-z0-9]+)*$; unique among installed GPTs; not "list"`,
  }),
  description: t.String({ maxLength: MAX_GPT_DESCRIPTION }),
  instructions: t.String({
    maxLength: MAX_GPT_INSTRUCTIONS,
    description: 'What apps_list answers the GPT (the agent’s live instructions follow when it has an agent)',
  }),
  applications: t.Array(t.String({ minLength: 1, maxLength: MAX_NAME_LENGTH }), {
    maxItems: MAX_GPT_APPLICATIONS,
    description: "api_names of existing applications whose operations the GPT may execute with the organisation's shared credentials",
  }),
  agent_name: t.Optional(
    t.Nullable(t.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, description: 'An existing agent whose live tools the GPT offers too' })),
  ),
  visibility: Visibility,
})

export const Gpt = t.Object({
  name: t.String(),
  description: t.String(),
  instructions: t.String(),
  applications: t.Array(t.String()),
  agent_name: t.Nullable(t.String()),
  visibility: Visibility,
  installed: t.Boolean({ description: 'False once uninstalled: its key no longer works and it is no longer listed' }),
  installed_at: DateTime,
  installed_by: t.String({ description: "The installing admin's e-mail" }),
  actions_openapi_url: t.String({ description: 'The Actions schema to import in the GPT builder (GET /api/gpt_public/openapi.json)' }),
})

export const GptWithKey = t.Object({
  ...Gpt.properties,
  api_key: t.String({ description: 'The GPT’s key (abx_gpt_…), shown this once: the GPT sends it as x-api-key (or a bearer token)' }),
})

export const GptNameParams = t.Object({ name: t.String() })
export const GenaiAppParams = t.Object({ genai_app: t.String({ description: 'The GPT’s name' }) })

export const GptListQuery = t.Object({
  include_private_gpts: t.Optional(t.BooleanString({ description: 'Default true' })),
  include_public_gpts: t.Optional(t.BooleanString({ description: 'Default true' })),
})

export const Uninstalled = t.Object({ message: t.String(), uninstalled: t.Literal(true) })

// ------------------------------------------------------------------------------------------------ what a GPT calls

export const OperationEntry = t.Object({
  api_name: t.String({ description: "The application's api_name, or the agent's name for the agent's own tools" }),
  operation_id: t.String({ description: 'The operation id, or the tool name (run_workflow, resume_workflow, load_skill)' }),
  method: t.String({ description: 'The HTTP method (GET, POST…); TOOL for an agent tool' }),
  path: t.String({ description: "The operation's path; the agent's MCP path for an agent tool" }),
  summary: t.String(),
  input_schema: t.Record(t.String(), t.Unknown(), { description: 'JSON Schema of `arguments`' }),
})

export const AppsList = t.Object({
  instructions: t.String({ description: 'Follow these for the whole session' }),
  operations_list: t.Array(OperationEntry, { description: 'Every action app_execute_action can run' }),
  execute_action: t.Literal('app_execute_action', { description: 'The action that runs an entry of operations_list' }),
})

export const ExecuteActionBody = t.Object({
  api_name: t.String({ minLength: 1, maxLength: MAX_NAME_LENGTH, description: 'From operations_list' }),
  operation_id: t.String({ minLength: 1, maxLength: 200, description: 'From operations_list' }),
  arguments: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Checked against the entry's input_schema" })),
})

export const ActionResult = t.Object({
  ok: t.Boolean({ description: 'False when the API answered an error status, could not be reached, or the tool failed' }),
  result: t.Optional(
    t.Unknown({
      description: 'The answer: for an operation {status, body, truncated, duration_ms} with the API’s status and body; for an agent tool its result',
    }),
  ),
  error: t.Optional(t.String({ description: 'What went wrong, when ok is false (an API error status quotes its body)' })),
  interaction_id: t.Nullable(t.String({ description: 'The recorded interaction' })),
})
