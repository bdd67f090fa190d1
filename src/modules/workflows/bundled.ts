// A workflow carried by an agent bundle (workflows/<id>.json), checked as POST /api/workflows/{agent_name} checks it:
// the request schema, then the definition's save-time validation.
import { Value } from '@sinclair/typebox/value'
import type { InputIssue } from '../../platform/errors.ts'
import { toValidationIssues } from '../../platform/http/validation.ts'
import type { DocumentItem } from '../agents/index.ts'
import type { WorkflowDefinition } from './definition/types.ts'
import { validateDefinition } from './definition/validate.ts'
import { WorkflowBody } from './schema.ts'
import { toDocumentItem } from './stored.ts'

export interface BundledWorkflow {
  name: string
  definition: WorkflowDefinition
}

/**
 * `value` as a workflow body (`{name, definition}`) with unknown fields dropped, as the API stores it; or every problem
 * with it, located inside it.
 */
export function checkBundledWorkflow(value: unknown): { workflow: BundledWorkflow } | { issues: InputIssue[] } {
  if (!Value.Check(WorkflowBody, value)) {
    const issues = toValidationIssues('', [...Value.Errors(WorkflowBody, value)], value, WorkflowBody as never)
    return { issues: issues.map(({ loc, ...issue }) => ({ ...issue, loc: loc.slice(1) })) }
  }
  const workflow = Value.Clean(WorkflowBody, Value.Clone(value)) as BundledWorkflow
  const issues = validateDefinition(workflow.definition)
  return issues.length > 0 ? { issues } : { workflow: { name: workflow.name, definition: workflow.definition } }
}

/** The draft item for a checked workflow, under the id the bundle gives it. */
export const workflowItem = (id: string, workflow: BundledWorkflow, now: string): DocumentItem =>
  toDocumentItem({ id, name: workflow.name, definition: workflow.definition, created_at: now, updated_at: now })
