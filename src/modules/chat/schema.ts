// Request and response schemas of chat (docs/api.md "Chat"): the turn request, the JSON answer, the Server-Sent
// Events a streamed turn sends (documented as an extension of the text/event-stream response, so the published
// document describes every event's data), starters, models and the resource read.
import { t } from 'elysia'

/** The longest message a turn takes (a pasted document is fine; the body limit of 1 MiB applies too). */
export const MESSAGE_MAX_CHARS = 100_000

const modelChoice = (description: string) =>
  t.Object(
    {
      provider: t.String({ minLength: 1, maxLength: 32, description: 'A configured provider: mock, openai or anthropic (GET /api/chat/models)' }),
      model: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "The model's name; default: the provider's default model" })),
    },
    { description },
  )

export const ChatBody = t.Object({
  message: t.String({ minLength: 1, maxLength: MESSAGE_MAX_CHARS, pattern: '\\S', description: "The user's message" }),
  thread_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'One of your chat threads to continue; omitted: a new thread' })),
  agent_name: t.Optional(
    t.String({ minLength: 1, maxLength: 200, description: "The agent to talk to (its live version); omitted: the thread's agent, or the plain copilot" }),
  ),
  model: t.Optional(modelChoice("The model that answers; default: the server's (AGENTBOX_LLM_PROVIDER, AGENTBOX_LLM_MODEL)")),
  compare_with: t.Optional(modelChoice('A second model that answers the same turn side by side: tools may run twice and tokens double')),
  mode: t.Optional(
    t.Union([t.Literal('live'), t.Literal('design'), t.Literal('mock')], {
      description: "live (default): the agent's live version; design: its draft with the design tools (owners); mock: every tool simulated, nothing recorded",
    }),
  ),
  version: t.Optional(
    t.Union([t.Literal('live'), t.Literal('draft')], {
      description: 'Mock mode only: which version to simulate (default live; draft: owners). live and design imply their own',
    }),
  ),
  preset_id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'One of your prompt_presets: its prompt goes before the message' })),
})

const ModelRef = t.Object({ provider: t.String(), model: t.String() })

const Usage = t.Object({ input_tokens: t.Integer(), output_tokens: t.Integer() })

const Meta = t.Record(t.String(), t.Unknown(), { description: "The tool's _meta (MCP Apps: ui.resourceUri names the template that shows its result)" })

const Approval = t.Object(
  {
    run_id: t.String(),
    agent: t.String(),
    workflow_name: t.String(),
    message: t.String({ description: "The gate's message" }),
    url: t.String({ description: "Where to decide it: the console's Approvals page (a path on this server)" }),
  },
  { description: 'Set when the tool started or resumed a workflow run that now waits for an approval' },
)

const StopReason = t.Union(
  [
    t.Literal('end_turn'),
    t.Literal('max_tokens'),
    t.Literal('refusal'),
    t.Literal('round_limit'),
    t.Literal('malformed_tool_call'),
    t.Literal('error'),
    t.Literal('interrupted'),
  ],
  {
    description:
      'Why the turn ended: end_turn (answered), max_tokens, refusal, round_limit (8 rounds of tool calls), malformed_tool_call, error (the model failed), interrupted',
  },
)

const AssistantMessage = t.Object({
  role: t.Literal('assistant'),
  content: t.String({ description: "The turn's text: every model call's text, in order (the deltas add up to it)" }),
  model: ModelRef,
  stop_reason: StopReason,
})

const ToolCallView = t.Object({
  id: t.String(),
  name: t.String(),
  arguments: t.Record(t.String(), t.Unknown()),
  is_error: t.Boolean(),
  content: t.String({ description: "The tool's answer as text (JSON for structured answers), or the error" }),
  _meta: t.Optional(Meta),
  approval: t.Optional(Approval),
})

const Comparison = t.Object({
  provider: t.String(),
  model: t.String(),
  message: AssistantMessage,
  tool_calls: t.Array(ToolCallView),
  usage: t.Union([Usage, t.Null()]),
  error: t.Union([t.String(), t.Null()], { description: "This model's failure, if it failed" }),
})

export const ChatAnswer = t.Object({
  thread_id: t.String(),
  message: AssistantMessage,
  tool_calls: t.Array(ToolCallView, { description: 'The tool calls of the turn, in order, with their results' }),
  suggestions: t.Array(t.String(), { description: 'Follow-up suggestions (up to 3) when enable_follow_up_suggestions is on; else []' }),
  usage: t.Union([Usage, t.Null()], { description: 'Every model call of the turn together (both models when comparing)' }),
  comparison: t.Optional(t.Array(Comparison, { description: 'With compare_with: the first model, then the second' })),
})

/** A turn that failed after it began: the thread keeps the user message and what was produced. */
export const ChatFailure = t.Object({
  detail: t.String(),
  thread_id: t.String({ description: 'The thread, saved with the user message and what was produced before the failure' }),
})

const Model = t.Optional(ModelRef)

/** The data of each Server-Sent Event a streamed turn sends, by event name. */
export const CHAT_EVENTS = {
  delta: t.Object({ text: t.String(), model: Model }),
  tool_call: t.Object({ id: t.String(), name: t.String(), arguments: t.Record(t.String(), t.Unknown()), model: Model, _meta: t.Optional(Meta) }),
  tool_result: t.Object({
    id: t.String(),
    name: t.String(),
    is_error: t.Boolean(),
    content: t.String(),
    model: Model,
    _meta: t.Optional(Meta),
    approval: t.Optional(Approval),
  }),
  message: t.Object({ role: t.Literal('assistant'), content: t.String(), model: ModelRef, stop_reason: StopReason }),
  suggestions: t.Object({ items: t.Array(t.String()) }),
  done: t.Object({ thread_id: t.String(), usage: t.Optional(Usage) }),
  error: t.Object({ detail: t.String(), model: Model }),
} as const

export const Starter = t.Object({
  name: t.String(),
  prompt: t.String({ description: "What the console sends when the starter is picked: its first action's user_input, else its name" }),
  action: t.Array(t.Object({ api_name: t.String(), domain_url: t.Optional(t.String()), user_input: t.Optional(t.String()) })),
})

export const ChatModels = t.Object({
  default: ModelRef,
  providers: t.Array(
    t.Object({
      provider: t.String(),
      default_model: t.Union([t.String(), t.Null()], { description: 'The model used when a request names the provider only; null: name one' }),
    }),
  ),
})

export const ResourceQuery = t.Object({
  uri: t.String({ minLength: 1, maxLength: 2000, description: 'A resource of the chat’s tools: ui://… (templates), skill://…' }),
  agent_name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  mode: t.Optional(t.Union([t.Literal('live'), t.Literal('design'), t.Literal('mock')])),
  version: t.Optional(t.Union([t.Literal('live'), t.Literal('draft')])),
})

export const ResourceContents = t.Object({
  contents: t.Array(
    t.Object({
      uri: t.String(),
      mimeType: t.String(),
      text: t.Optional(t.String()),
      blob: t.Optional(t.String({ description: 'Base64' })),
      _meta: t.Optional(t.Record(t.String(), t.Unknown())),
    }),
  ),
})
