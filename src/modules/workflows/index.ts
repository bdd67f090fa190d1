// The workflows module's public entry: what other modules may use of workflows (an agent's draft workflows, the tools).
export { createWorkflow, deleteWorkflow, listWorkflows, replaceWorkflow, WORKFLOW_NOT_FOUND, type WorkflowInput } from './definitions.ts'
export { WorkflowBody } from './schema.ts'
export type { WorkflowToolsTarget } from './tools.ts'
// Bundles: a workflow from a bundle checked and made a draft item.
export { checkBundledWorkflow, workflowItem, type BundledWorkflow } from './bundled.ts'
export { workflowsOf } from './stored.ts'
export type { StoredWorkflow } from './definition/types.ts'
