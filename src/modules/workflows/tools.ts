// The workflow tools an agent's endpoint offers (MCP today, chat next): run_workflow and resume_workflow, with the same
// rules as the HTTP API (the caller's access to the agent, only the starter resumes), on the live version or the draft.
import { Type } from '@sinclair/typebox'
import { ToolError, type Tool } from '../../platform/tools/tool.ts'
import type { Principal } from '../../platform/auth/principal.ts'
import { type AgentsStore, readSourceDocument } from '../agents/index.ts'
import { WORKFLOW_NOT_FOUND } from './definitions.ts'
import { OWNERS_RUN_DRAFT, type WorkflowRuns } from './runs/service.ts'
import { workflowsOf } from './stored.ts'

export interface WorkflowToolsTarget {
  readonly agent: string
  /** `live` for `/agent/{name}/mcp`, `draft` for the design endpoint (owners only; dry runs by default). */
  readonly source: 'live' | 'draft'
  /** Where an approval decided through these tools is said to come from (the run's trace and audit). */
  readonly channel: 'mcp' | 'ui'
}

const RunWorkflowArgs = Type.Object({
  workflow: Type.String({ minLength: 1, description: "The workflow's name or id" }),
  input: Type.Optional(Type.Unknown({ description: 'The run input: $json of the first steps and $run.input' })),
  dry_run: Type.Optional(Type.Boolean({ description: 'Simulate model calls and gates; nothing is recorded' })),
  step_data: Type.Optional(Type.Unknown({ description: 'Dry runs only: llm outputs and gate decisions by node id' })),
  include_data: Type.Optional(Type.Boolean({ description: 'Include every step’s input and output' })),
})

const ResumeWorkflowArgs = Type.Object({
  run_id: Type.String({ minLength: 1 }),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
  edits: Type.Optional(Type.Unknown({ description: 'Approve only: an RFC 7386 merge patch onto the gate $json' })),
  reason: Type.Optional(Type.String({ maxLength: 2000 })),
  include_data: Type.Optional(Type.Boolean()),
})

/** The id of the workflow named or identified by `ref` in the version the tools serve. */
async function resolveWorkflow(store: AgentsStore, principal: Principal, target: WorkflowToolsTarget, ref: string): Promise<string> {
  const { document } = await readSourceDocument(store.db, principal, target.agent, target.source, OWNERS_RUN_DRAFT)
  const workflows = workflowsOf(document)
  const found = workflows.find((w) => w.id === ref) ?? workflows.find((w) => w.name === ref)
  if (!found)
    throw new ToolError('not_found', target.source === 'live' ? `${WORKFLOW_NOT_FOUND} in the live version: '${ref}'` : `${WORKFLOW_NOT_FOUND}: '${ref}'`)
  return found.id
}

export function workflowTools(store: AgentsStore, runs: WorkflowRuns, target: WorkflowToolsTarget): Tool[] {
  const runWorkflow: Tool<typeof RunWorkflowArgs> = {
    name: 'run_workflow',
    title: 'Run a workflow',
    description: `Runs one of ${target.agent}'s workflows with an input and returns the run: its status, result or error, and the approval it waits for.`,
    inputSchema: RunWorkflowArgs,
    annotations: { readOnlyHint: false, openWorldHint: true },
    async handler(principal, args) {
      const id = await resolveWorkflow(store, principal, target, args.workflow)
      const dryRun = args.dry_run ?? target.source === 'draft'
      return runs.start(principal, target.agent, id, {
        input: args.input,
        dry_run: dryRun,
        step_data: args.step_data,
        include_data: args.include_data,
        version: target.source,
      })
    },
  }
  const resumeWorkflow: Tool<typeof ResumeWorkflowArgs> = {
    name: 'resume_workflow',
    title: 'Decide an approval',
    description: 'Approves (optionally with edits) or rejects the approval a run of this agent waits for. Only the person who started the run may decide.',
    inputSchema: ResumeWorkflowArgs,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    handler: (principal, args) =>
      runs.resume(
        principal,
        target.agent,
        args.run_id,
        { decision: args.decision, edits: args.edits, reason: args.reason, include_data: args.include_data },
        target.channel,
      ),
  }
  return [runWorkflow, resumeWorkflow] as Tool[]
}
