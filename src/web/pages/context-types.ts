// Context types: list, create, edit, delete (CONTRACT §8). PLACEHOLDER: replaced by the context types page.
import type { Me } from '../session.ts'
import { h } from '../ui.ts'

export function ContextTypesPage(_props: { me: Me }) {
  return h('section', null, h('h1', null, 'Context types'))
}
