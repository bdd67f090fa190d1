// Request and response schemas of tasks and runs (docs/api.md "Tasks").
import { t } from 'elysia'
import { pagedList, pageQueryFields } from '../../platform/http/paging.ts'
import { DateTime, DisplayName } from '../../platform/http/schema-pieces.ts'

const Visibility = t.Union([t.Literal('private'), t.Literal('public')])
const State = t.Union([t.Literal('enabled'), t.Literal('disabled')])
const ThreadPolicy = t.Union([t.Literal('new_each_run'), t.Literal('append')])
const Frequency = t.Union([t.Literal('manual'), t.Literal('hourly'), t.Literal('daily'), t.Literal('weekly'), t.Literal('monthly'), t.Literal('cron')])
const RunStatus = t.Union([t.Literal('running'), t.Literal('succeeded'), t.Literal('failed')])
const Nullable = <T extends ReturnType<typeof t.String>>(schema: T) => t.Union([schema, t.Null()])

const Name = DisplayName(200)
const Prompt = t.String({ minLength: 1, maxLength: 32_000 })
const Mentions = t.Array(t.Record(t.String(), t.Unknown()), { maxItems: 100 })
const ChatModelInput = t.Object({
  provider: t.String({ minLength: 1, maxLength: 50, description: 'mock, openai or anthropic; must be configured on this server' }),
  model: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Defaults to AGENTBOX_LLM_MODEL for the default provider' })),
})
const ScheduleInput = t.Object({
  frequency: t.Optional(Frequency),
  hour: t.Optional(Nullable(t.String({ maxLength: 10, description: 'HH:MM, 24-hour; hourly uses the minutes' }))),
  day: t.Optional(Nullable(t.String({ maxLength: 20, description: 'weekly: monday…sunday; monthly: "1"…"31" (clamped to the month\'s end)' }))),
  timezone: t.Optional(t.String({ minLength: 1, maxLength: 64, description: 'IANA name, default UTC' })),
  cron: t.Optional(Nullable(t.String({ maxLength: 200, description: '5 fields, or 6 with seconds first' }))),
})
const Id = t.String({ minLength: 1, maxLength: 100 })

export const CreateTaskBody = t.Object({
  name: Name,
  prompt: Prompt,
  agent_id: t.Optional(Nullable(Id)),
  chat_model: t.Optional(t.Union([ChatModelInput, t.Null()])),
  mentions: t.Optional(Mentions),
  visibility: t.Optional(Visibility),
  schedule: t.Optional(ScheduleInput),
  state: t.Optional(State),
  thread_policy: t.Optional(ThreadPolicy),
  thread_id: t.Optional(Nullable(Id)),
})

/** PATCH: any field of create, each optional; a provided field replaces the stored one. */
export const UpdateTaskBody = t.Partial(CreateTaskBody)

export const Task = t.Object({
  id: t.String(),
  name: t.String(),
  prompt: t.String(),
  created_by: t.String({ description: "The creator's e-mail" }),
  agent_id: t.Union([t.String(), t.Null()]),
  chat_model: t.Union([t.Object({ provider: t.String(), model: t.String() }), t.Null()], { description: 'null: the instance default model' }),
  mentions: t.Array(t.Record(t.String(), t.Unknown())),
  visibility: Visibility,
  schedule: t.Object({
    frequency: Frequency,
    hour: t.Union([t.String(), t.Null()]),
    day: t.Union([t.String(), t.Null()]),
    timezone: t.String(),
    cron: t.Union([t.String(), t.Null()]),
  }),
  state: State,
  thread_policy: ThreadPolicy,
  thread_id: t.Union([t.String(), t.Null()], { description: 'The thread an append task writes to; null for new_each_run' }),
  next_run: t.Union([DateTime, t.Null()], { description: 'UTC; null for manual or disabled tasks' }),
  last_run_at: t.Union([DateTime, t.Null()]),
  last_run_status: t.Union([RunStatus, t.Null()]),
  last_run_thread_id: t.Union([t.String(), t.Null()]),
  created_at: DateTime,
  updated_at: DateTime,
})

export const Run = t.Object({
  id: t.String(),
  task_id: t.String(),
  status: RunStatus,
  trigger: t.Union([t.Literal('schedule'), t.Literal('catch_up'), t.Literal('manual')]),
  scheduled_for: t.Union([DateTime, t.Null()], { description: 'The slot a scheduled run was for; null for manual runs' }),
  thread_id: t.String(),
  started_at: DateTime,
  finished_at: t.Union([DateTime, t.Null()]),
  error: t.Union([t.String(), t.Null()], { description: 'Why the run failed, in one sentence' }),
})

export const TaskIdParams = t.Object({ task_id: t.String() })

export const TASK_PAGING = pagedList(100)
export const RUN_PAGING = pagedList(50)

export const ListTasksQuery = t.Object({
  all: t.Optional(t.Boolean({ description: "Admins only: include other members' private tasks" })),
  ...pageQueryFields(TASK_PAGING),
})

export const ListRunsQuery = t.Object(pageQueryFields(RUN_PAGING))
