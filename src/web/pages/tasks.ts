import type { Me } from '../session.ts'
import { h } from '../ui.ts'

export function TasksPage(_: { me: Me }) {
  return h('section', null, h('h1', null, 'Tasks'), h('p', null, 'Coming soon.'))
}
