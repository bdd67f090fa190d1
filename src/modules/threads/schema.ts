// Request and response schemas of threads (docs/api.md "Threads").
import { t } from 'elysia'
import { pagedList, pageQueryFields } from '../../platform/http/paging.ts'
import { DateTime } from '../../platform/http/schema-pieces.ts'

const NullableString = t.Union([t.String(), t.Null()])

const ToolCall = t.Object({
  id: t.String(),
  name: t.String(),
  arguments: t.Record(t.String(), t.Unknown()),
  invalid_arguments: t.Optional(
    t.Object({ raw: t.String(), message: t.String() }, { description: 'Set when the model sent arguments that are not a JSON object; arguments is then {}' }),
  ),
})

export const ThreadMessage = t.Object({
  id: t.String(),
  role: t.Union([t.Literal('system'), t.Literal('user'), t.Literal('assistant'), t.Literal('tool')]),
  content: t.String(),
  created_at: DateTime,
  tool_calls: t.Union([t.Array(ToolCall), t.Null()], { description: 'The tool calls an assistant message made; null otherwise' }),
  tool_result: t.Union([t.Object({ tool_call_id: t.String(), name: t.String(), is_error: t.Boolean() }), t.Null()], {
    description: 'Which call a tool message answers; null otherwise',
  }),
  model: t.Union([t.Object({ provider: t.String(), model: t.String() }), t.Null()], { description: 'The model that wrote an assistant message' }),
  usage: t.Union([t.Object({ input_tokens: t.Integer(), output_tokens: t.Integer() }), t.Null()], { description: "The model call's token usage" }),
  metadata: t.Union([t.Record(t.String(), t.Unknown()), t.Null()], {
    description:
      'What chat keeps beside a message: on user messages `{mode, version?, preset_id?, compare_with?}`; on tool results the tool’s `_meta` and the `approval` a run waits for; on the assistant message that ends a turn `stop_reason`, `comparison` (the other model’s answer), `suggestions`, `error`. null otherwise',
  }),
})

const threadFields = {
  id: t.String(),
  owner_id: t.String({ description: "The owner's user id" }),
  title: NullableString,
  agent_name: t.Union([t.String(), t.Null()], { description: 'The agent a chat talks to; null for task threads' }),
  task_id: t.Union([t.String(), t.Null()], { description: 'The task whose runs write here; null for chat threads' }),
  created_at: DateTime,
  updated_at: t.String({ format: 'date-time', description: "The last message's time" }),
}

export const ThreadSummary = t.Object(threadFields)
export const Thread = t.Object({ ...threadFields, messages: t.Array(ThreadMessage, { description: 'Oldest first' }) })

export const ThreadIdParams = t.Object({ id: t.String() })

export const THREAD_PAGING = pagedList(50)

export const ListThreadsQuery = t.Object({
  agent_name: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Only this agent's threads" })),
  ...pageQueryFields(THREAD_PAGING),
})
