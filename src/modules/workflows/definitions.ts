// Workflow definitions as part of an agent's draft (docs/api.md "Workflows"): create, list, get, replace, delete; published with the agent.
import type { Principal } from '../../platform/auth/principal.ts'
import { isoTime } from '../../platform/clock.ts'
import { conflict, invalidInput, notFound } from '../../platform/errors.ts'
import { newId } from '../../platform/ids.ts'
import { authorizeAgent, readDraft, readLive, updateDraft, type AgentsStore } from '../agents/index.ts'
import type { StoredWorkflow, WorkflowDefinition } from './definition/types.ts'
import { validateDefinition } from './definition/validate.ts'
import { toDocumentItem, workflowsOf } from './stored.ts'

export const WORKFLOW_NOT_FOUND = 'Workflow not found'

export interface WorkflowInput {
  name: string
  definition: WorkflowDefinition
}

export interface WorkflowRecord extends StoredWorkflow {
  /** Where this copy was read from: owners see the draft, viewers and admins the live version. */
  source: 'draft' | 'live'
}

function checkDefinition(definition: WorkflowDefinition): void {
  const issues = validateDefinition(definition)
  if (issues.length) throw invalidInput(...issues)
}

const nameTaken = (name: string) => conflict(`A workflow named '${name}' already exists in this agent`)

/**
 * Owners see the draft's workflows, viewers and admins the live version's (none before the first publish); `live` asks
 * for the live version's whoever calls (an owner looking at what MCP clients and chat use).
 */
async function visibleWorkflows(
  store: AgentsStore,
  principal: Principal,
  agentName: string,
  version?: 'live',
): Promise<{ list: StoredWorkflow[]; source: 'draft' | 'live' }> {
  const agent = await authorizeAgent(store.db, agentName, principal, 'use')
  if (agent.role === 'owner' && version !== 'live') return { list: workflowsOf(await readDraft(store.db, agent.id)), source: 'draft' }
  return { list: workflowsOf((await readLive(store.db, agent.id))?.document), source: 'live' }
}

export async function listWorkflows(store: AgentsStore, principal: Principal, agentName: string, version?: 'live') {
  const { list, source } = await visibleWorkflows(store, principal, agentName, version)
  return list.map((w) => ({ id: w.id, name: w.name, created_at: w.created_at, updated_at: w.updated_at, node_count: w.definition.nodes.length, source }))
}

export async function getWorkflow(store: AgentsStore, principal: Principal, agentName: string, workflowId: string, version?: 'live'): Promise<WorkflowRecord> {
  const { list, source } = await visibleWorkflows(store, principal, agentName, version)
  const found = list.find((w) => w.id === workflowId)
  if (!found) throw notFound(WORKFLOW_NOT_FOUND)
  return { ...found, source }
}

export async function createWorkflow(store: AgentsStore, principal: Principal, agentName: string, input: WorkflowInput): Promise<WorkflowRecord> {
  const agent = await authorizeAgent(store.db, agentName, principal, 'own')
  checkDefinition(input.definition)
  const now = isoTime(store.clock.now())
  const workflow: StoredWorkflow = { id: newId(), name: input.name, definition: input.definition, created_at: now, updated_at: now }
  await updateDraft(store, agent.id, principal.userId, (draft) => {
    if (workflowsOf(draft).some((w) => w.name === input.name)) throw nameTaken(input.name)
    draft.workflows.push(toDocumentItem(workflow))
  })
  return { ...workflow, source: 'draft' }
}

export async function replaceWorkflow(
  store: AgentsStore,
  principal: Principal,
  agentName: string,
  workflowId: string,
  input: WorkflowInput,
): Promise<WorkflowRecord> {
  const agent = await authorizeAgent(store.db, agentName, principal, 'own')
  checkDefinition(input.definition)
  const now = isoTime(store.clock.now())
  return updateDraft(store, agent.id, principal.userId, (draft) => {
    const list = workflowsOf(draft)
    const index = list.findIndex((w) => w.id === workflowId)
    if (index < 0) throw notFound(WORKFLOW_NOT_FOUND)
    if (list.some((w) => w.name === input.name && w.id !== workflowId)) throw nameTaken(input.name)
    const updated: StoredWorkflow = { ...list[index]!, name: input.name, definition: input.definition, updated_at: now }
    draft.workflows[index] = toDocumentItem(updated)
    return { ...updated, source: 'draft' as const }
  })
}

export async function deleteWorkflow(store: AgentsStore, principal: Principal, agentName: string, workflowId: string): Promise<void> {
  const agent = await authorizeAgent(store.db, agentName, principal, 'own')
  await updateDraft(store, agent.id, principal.userId, (draft) => {
    const index = workflowsOf(draft).findIndex((w) => w.id === workflowId)
    if (index < 0) throw notFound(WORKFLOW_NOT_FOUND)
    draft.workflows.splice(index, 1)
  })
}
