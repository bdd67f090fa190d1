// The `workflows` part of an agent document, typed on the way in and checked on the way out: the document is
// stored as JSON that any version of the code may have written, so each item is checked before the engine trusts it.
import type { AgentDocument, DocumentItem } from '../agents/index.ts'
import { isPlainObject } from './expr/values.ts'
import type { StoredWorkflow } from './definition/types.ts'

/** A stored item that is not a workflow: data damaged outside Agentbox, or a bug; loud, never silently skipped. */
export class StoredWorkflowDamaged extends Error {}

function checkStored(item: DocumentItem, index: number): StoredWorkflow {
  const { id, name, definition } = item
  const ok =
    typeof id === 'string' && typeof name === 'string' && isPlainObject(definition) && Array.isArray(definition.nodes) && Array.isArray(definition.connections)
  if (!ok) throw new StoredWorkflowDamaged(`The agent document's workflow #${index} is not a workflow (id, name, definition.nodes and definition.connections)`)
  return item as unknown as StoredWorkflow
}

/** The document's workflows, each checked; none for a document that has none (or no document). */
export const workflowsOf = (document: AgentDocument | null | undefined): StoredWorkflow[] => (document?.workflows ?? []).map(checkStored)

/** A workflow as a document item (a plain copy: the document holds JSON, not the caller's object). */
export const toDocumentItem = (workflow: StoredWorkflow): DocumentItem => ({ ...workflow })
