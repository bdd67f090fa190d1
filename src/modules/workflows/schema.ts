// Request and response schemas of workflows, runs and resume (docs/api.md "Workflows").
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import { pagedList, pageQueryFields } from '../../platform/http/paging.ts'
import { DateTime, DisplayName, NullableDateTime } from '../../platform/http/schema-pieces.ts'

// A record, not an open object: the server's TypeBox Clean keeps a record's entries but drops an open object's unknown keys.
const Free = t.Record(t.String(), t.Unknown())

const Node = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  type: t.String({ maxLength: 100, description: 'agentbox.set | .if | .map | .join | .llm | .approval | .output' }),
  name: t.Optional(t.String({ maxLength: 200 })),
  params: t.Optional(Free),
  on_error: t.Optional(t.Union([t.Literal('stop'), t.Literal('continue'), t.Literal('error_output')])),
  retry: t.Optional(
    t.Object({
      max_tries: t.Optional(t.Integer()),
      wait_ms: t.Optional(t.Integer()),
      backoff: t.Optional(t.Union([t.Literal('fixed'), t.Literal('exponential')])),
    }),
  ),
})
const Connection = t.Object({
  from: t.String({ minLength: 1, maxLength: 64 }),
  port: t.Optional(t.String({ maxLength: 32 })),
  to: t.String({ minLength: 1, maxLength: 64 }),
})
export const Definition = t.Object({
  nodes: t.Array(Node),
  connections: t.Array(Connection),
  settings: t.Optional(t.Object({ timeout_s: t.Optional(t.Integer()), max_steps: t.Optional(t.Integer()) })),
})

const Name = DisplayName(200)
export const WorkflowBody = t.Object({ name: Name, definition: Definition })
export const AgentParams = t.Object({ agent_name: t.String() })
export const VersionQuery = t.Object({
  version: t.Optional(t.Literal('live', { description: "The live version's workflows, also for owners (who otherwise see the draft's)" })),
})
export const WorkflowParams = t.Object({ agent_name: t.String(), workflow_id: t.String() })
export const RunParams = t.Object({ agent_name: t.String(), run_id: t.String() })

const Source = t.Union([t.Literal('draft'), t.Literal('live')])
export const Workflow = t.Object({ id: t.String(), name: t.String(), definition: Definition, source: Source, created_at: DateTime, updated_at: DateTime })
export const WorkflowSummary = t.Object({
  id: t.String(),
  name: t.String(),
  node_count: Type.Integer(),
  source: Source,
  created_at: DateTime,
  updated_at: DateTime,
})

export const RunBody = t.Object({
  input: t.Optional(t.Unknown({ description: 'The run input: $json of the first steps and $run.input' })),
  dry_run: t.Optional(t.Boolean()),
  include_data: t.Optional(t.Boolean()),
  step_data: t.Optional(t.Unknown({ description: 'Dry runs only, an object: llm outputs and gate decisions ({decision, edits?, reason?}) by node id' })),
  version: t.Optional(t.Union([t.Literal('live'), t.Literal('draft')])),
})

export const ResumeBody = t.Object({
  decision: t.Union([t.Literal('approve'), t.Literal('reject')]),
  // Checked in the service: the schema's object check lets arrays through (and must not coerce them).
  edits: t.Optional(t.Unknown({ description: 'An object: RFC 7386 merge patch onto the gate $json; approve only' })),
  reason: t.Optional(t.String({ maxLength: 2000 })),
  include_data: t.Optional(t.Boolean()),
})

const RunStatus = t.Union([
  t.Literal('running'),
  t.Literal('waiting_human'),
  t.Literal('succeeded'),
  t.Literal('failed'),
  t.Literal('rejected'),
  t.Literal('cancelled'),
])
export const RUN_HISTORY_PAGING = pagedList(50)
export const RunsQuery = t.Object({
  status: t.Optional(RunStatus),
  workflow_id: t.Optional(t.String()),
  ...pageQueryFields(RUN_HISTORY_PAGING),
})
export const RunQuery = t.Object({ include_data: t.Optional(t.BooleanString()) })

const Step = t.Object({
  node_id: t.String(),
  node_type: t.String(),
  name: t.Union([t.String(), t.Null()]),
  iteration: t.Array(Type.Integer()),
  seq: Type.Integer(),
  status: t.String(),
  port: t.Union([t.String(), t.Null()]),
  started_at: DateTime,
  finished_at: DateTime,
  duration_ms: Type.Integer(),
  attempts: t.Array(t.Object({ n: Type.Integer(), error: t.Object({ code: t.String(), message: t.String(), retryable: t.Boolean() }) })),
  input: t.Unknown(),
  params_resolved: t.Unknown(),
  output: t.Unknown(),
  error: t.Union([t.Object({ code: t.String(), message: t.String(), node_id: t.String(), attempt: Type.Integer(), retryable: t.Boolean() }), t.Null()]),
  decision: t.Union([
    t.Object({
      decision: t.String(),
      decided_by: t.Union([t.String(), t.Null()]),
      decided_at: DateTime,
      channel: t.String(),
      reason: t.Optional(t.String()),
      edited_keys: t.Optional(t.Array(t.String())),
    }),
    t.Null(),
  ]),
  simulated: t.Boolean(),
})
export const Run = t.Object({
  run_id: t.String(),
  agent: t.String(),
  workflow_id: t.String(),
  workflow_name: t.String(),
  version: t.Union([Type.Integer(), t.Null()], { description: 'The agent version the run pinned; null for draft runs' }),
  source: Source,
  status: RunStatus,
  dry_run: t.Boolean(),
  recording: t.Union([t.String(), t.Null()]),
  starter_id: t.String(),
  result: t.Unknown(),
  error: t.Union([t.Object({ code: t.String(), message: t.String(), node_id: t.Optional(t.String()) }), t.Null()]),
  started_at: DateTime,
  finished_at: NullableDateTime,
  waiting: t.Union([t.Object({ gate_id: t.String(), message: t.String(), since: DateTime, expires_at: DateTime, data: t.Optional(t.Unknown()) }), t.Null()]),
  steps: t.Optional(t.Array(Step)),
})
