// The audit log (admins): filter by actor, action and date. PLACEHOLDER: replaced by the audit page.
import { h } from '../ui.ts'

export function AuditPage() {
  return h('section', null, h('h1', null, 'Audit log'))
}
