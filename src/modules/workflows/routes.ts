// /api/workflows/{agent_name}…: definitions in the draft, runs, cancel and resume (docs/api.md "Workflows").
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import type { AgentsStore } from '../agents/index.ts'
import { createWorkflow, deleteWorkflow, getWorkflow, listWorkflows, replaceWorkflow } from './definitions.ts'
import type { WorkflowDefinition } from './definition/types.ts'
import type { WorkflowRuns } from './runs/service.ts'
import {
  AgentParams,
  VersionQuery,
  ResumeBody,
  Run,
  RunBody,
  RunParams,
  RunQuery,
  RunsQuery,
  Workflow,
  WorkflowBody,
  WorkflowParams,
  WorkflowSummary,
} from './schema.ts'

const asInput = (body: { name: string; definition: unknown }) => ({ name: body.name, definition: body.definition as WorkflowDefinition })

export function workflowRoutes(guard: AuthGuard, store: AgentsStore, runs: WorkflowRuns) {
  const tags = ['workflows']
  const runTags = ['workflow runs']
  return new Elysia({ name: 'workflow-routes' })
    .use(guard)
    .post(
      '/api/workflows/:agent_name',
      async ({ principal, params, body, set }) => {
        set.status = 201
        return createWorkflow(store, principal, params.agent_name, asInput(body))
      },
      {
        auth: 'member',
        params: AgentParams,
        body: WorkflowBody,
        response: { 201: Workflow },
        detail: {
          tags,
          summary: "Add a workflow to the agent's draft (owners); validated on save",
          responses: { 403: { description: 'The caller is not an owner of the agent' }, 409: { description: 'The agent has a workflow of that name' } },
        },
      },
    )
    .get('/api/workflows/:agent_name', ({ principal, params, query }) => listWorkflows(store, principal, params.agent_name, query.version), {
      auth: 'member',
      params: AgentParams,
      query: VersionQuery,
      response: { 200: t.Array(WorkflowSummary) },
      detail: { tags, summary: "List an agent's workflows: owners see the draft, viewers and admins the live version (version=live: everyone the live one)" },
    })
    .get('/api/workflows/:agent_name/runs', ({ principal, params, query }) => runs.list(principal, params.agent_name, query), {
      auth: 'member',
      params: AgentParams,
      query: RunsQuery,
      response: { 200: t.Array(Run) },
      detail: { tags: runTags, summary: 'Run history, newest first: admins see every run, members their own' },
    })
    .get(
      '/api/workflows/:agent_name/runs/:run_id',
      ({ principal, params, query }) => runs.get(principal, params.agent_name, params.run_id, query.include_data === true),
      {
        auth: 'member',
        params: RunParams,
        query: RunQuery,
        response: { 200: Run },
        detail: { tags: runTags, summary: 'A run (starter or admin); include_data=true adds the recorded steps' },
      },
    )
    .post('/api/workflows/:agent_name/runs/:run_id/cancel', ({ principal, params }) => runs.cancel(principal, params.agent_name, params.run_id), {
      auth: 'member',
      params: RunParams,
      response: { 200: Run },
      detail: {
        tags: runTags,
        summary: 'Cancel a running or waiting run (starter or admin)',
        responses: { 409: { description: 'The run has finished, or runs unrecorded and stops at its next step' } },
      },
    })
    .post('/api/workflows/:agent_name/runs/:run_id/resume', ({ principal, params, body }) => runs.resume(principal, params.agent_name, params.run_id, body), {
      auth: 'member',
      params: RunParams,
      body: ResumeBody,
      response: { 200: Run },
      detail: {
        tags: runTags,
        summary: 'Decide the pending approval gate (the starter only); answers when the run finishes or pauses again',
        responses: { 403: { description: 'The caller did not start the run' }, 409: { description: 'The run is not waiting for approval' } },
      },
    })
    .get(
      '/api/workflows/:agent_name/:workflow_id',
      ({ principal, params, query }) => getWorkflow(store, principal, params.agent_name, params.workflow_id, query.version),
      {
        auth: 'member',
        params: WorkflowParams,
        query: VersionQuery,
        response: { 200: Workflow },
        detail: { tags, summary: 'A workflow: owners see the draft, viewers and admins the live version (version=live: everyone the live one)' },
      },
    )
    .put(
      '/api/workflows/:agent_name/:workflow_id',
      ({ principal, params, body }) => replaceWorkflow(store, principal, params.agent_name, params.workflow_id, asInput(body)),
      {
        auth: 'member',
        params: WorkflowParams,
        body: WorkflowBody,
        response: { 200: Workflow },
        detail: {
          tags,
          summary: 'Replace a workflow in the draft (owners); validated on save',
          responses: { 403: { description: 'The caller is not an owner of the agent' }, 409: { description: 'The agent has another workflow of that name' } },
        },
      },
    )
    .delete(
      '/api/workflows/:agent_name/:workflow_id',
      async ({ principal, params, set }) => {
        await deleteWorkflow(store, principal, params.agent_name, params.workflow_id)
        set.status = 204
      },
      {
        auth: 'member',
        params: WorkflowParams,
        response: { 204: t.Void({ description: 'Removed; no body' }) },
        detail: { tags, summary: 'Remove a workflow from the draft (owners)', responses: { 403: { description: 'The caller is not an owner of the agent' } } },
      },
    )
    .post(
      '/api/workflows/:agent_name/:workflow_id/run',
      ({ principal, params, body }) => runs.start(principal, params.agent_name, params.workflow_id, body ?? {}),
      {
        auth: 'member',
        params: WorkflowParams,
        body: t.Optional(RunBody),
        response: { 200: Run },
        detail: {
          tags: runTags,
          summary: 'Run a workflow (live by default; draft for owners); answers when the run finishes or waits for approval',
          responses: { 403: { description: 'version=draft from a caller who is not an owner' } },
        },
      },
    )
}
