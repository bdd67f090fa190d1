// An agent's workflows in the designer: graph and JSON editor, run / dry run, run view, history (owners edit the draft).
// PLACEHOLDER: replaced by the workflows editor.
import type { Me } from '../session.ts'
import { h } from '../ui.ts'

export interface WorkflowsPanelProps {
  /** The agent's name. */
  readonly agent: string
  /** Owners edit the draft's workflows and may run it; viewers and admins see and run the live version's. */
  readonly role: 'owner' | 'viewer' | 'admin'
  readonly me: Me
  /** Called after any change to the draft (the page refreshes its Draft chip). */
  readonly onChanged: () => void
}

export function WorkflowsPanel(_props: WorkflowsPanelProps) {
  return h('section', { class: 'card' }, h('h3', null, 'Workflows'))
}
