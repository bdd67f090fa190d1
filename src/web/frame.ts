// The console's pages and the frame around them: the brand, who is signed in, and the main navigation in groups on
// a row of its own, so that every page stays one click away and the row fits a 1366 px screen.
import type { ComponentChildren } from 'preact'
import type { Me } from './session.ts'
import { h, Link } from './ui.ts'

export interface ConsolePage {
  readonly path: string
  readonly title: string
  readonly admin: boolean
}

interface NavGroup {
  /** Read out by screen readers before the group's links. */
  readonly label: string
  readonly pages: readonly ConsolePage[]
}

const page = (path: string, title: string, admin = false): ConsolePage => ({ path, title, admin })

export const NAV_GROUPS: readonly NavGroup[] = [
  { label: 'Home', pages: [page('/overview', 'Overview'), page('/chat', 'Chat')] },
  {
    label: 'Build',
    pages: [
      page('/agents', 'Agents'),
      page('/marketplace', 'Marketplace'),
      page('/tasks', 'Tasks'),
      page('/applications', 'Applications'),
      page('/gpt-apps', 'GPTs'),
      page('/context-types', 'Context types'),
    ],
  },
  { label: 'Activity', pages: [page('/approvals', 'Approvals'), page('/history', 'History'), page('/usage', 'Usage'), page('/insights', 'Insights')] },
  {
    label: 'Administration',
    pages: [page('/users', 'Users', true), page('/audit', 'Audit log', true), page('/connected-clients', 'Connected clients'), page('/settings', 'Settings')],
  },
]

export const PAGES: readonly ConsolePage[] = NAV_GROUPS.flatMap((group) => group.pages)

/** The page a path belongs to: /applications/pet-store is Applications. */
export const pageOf = (path: string) => PAGES.find((p) => path === p.path || path.startsWith(`${p.path}/`))

export function Frame({ me, path, children, signOut }: { me: Me; path: string; children?: ComponentChildren; signOut: () => void }) {
  const current = pageOf(path)
  return h(
    'div',
    { class: 'frame' },
    h('a', { class: 'skip', href: '#content' }, 'Skip to content'),
    h(
      'header',
      null,
      h('span', { class: 'brand' }, 'Agentbox'),
      h('div', { class: 'who' }, h('span', null, `${me.name} (${me.role})`), h('button', { type: 'button', onClick: signOut }, 'Sign out')),
      h(
        'nav',
        { 'aria-label': 'Main' },
        NAV_GROUPS.map((group) => {
          const pages = group.pages.filter((p) => !p.admin || me.role === 'admin')
          return pages.length === 0
            ? null
            : h(
                'ul',
                { key: group.label, 'aria-label': group.label },
                pages.map((p) => h('li', { key: p.path }, h(Link, { to: p.path, current: p === current }, p.title))),
              )
        }),
      ),
    ),
    h('main', { id: 'content', tabIndex: -1 }, children),
  )
}
