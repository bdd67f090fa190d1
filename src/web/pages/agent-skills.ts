// An agent's skills in the designer: list, add, edit with live validation, import a SKILL.md, delete (owners).
// PLACEHOLDER: replaced by the skills editor.
import type { Me } from '../session.ts'
import { h } from '../ui.ts'

export interface SkillsPanelProps {
  /** The agent's name. */
  readonly agent: string
  /** Owners edit the draft's skills; others see the live version's (read-only). */
  readonly role: 'owner' | 'viewer' | 'admin'
  readonly me: Me
  /** Called after any change to the draft (the page refreshes its Draft chip). */
  readonly onChanged: () => void
}

export function SkillsPanel(_props: SkillsPanelProps) {
  return h('section', { class: 'card' }, h('h3', null, 'Skills'))
}
