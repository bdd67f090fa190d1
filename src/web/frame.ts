// The console's pages and the frame around them: the brand, who is signed in, and the main navigation on a row of its
// own (main-nav.ts: the pages used most as links, the rest under More, so the row holds one line at 1024 px and up).
import type { ComponentChildren } from 'preact'
import { MainNav } from './main-nav.ts'
import type { Me } from './session.ts'
import { h } from './ui.ts'

export interface ConsolePage {
  readonly path: string
  readonly title: string
  readonly admin: boolean
  /** On the navigation's row at every width from 1024 px; the others are under More. */
  readonly main: boolean
}

export interface NavGroup {
  /** The group's heading in the menu, and what screen readers read before its links. */
  readonly label: string
  readonly pages: readonly ConsolePage[]
}

const page = (path: string, title: string, { admin = false, main = false } = {}): ConsolePage => ({ path, title, admin, main })
const MAIN = { main: true }
const ADMIN = { admin: true }

export const NAV_GROUPS: readonly NavGroup[] = [
  { label: 'Home', pages: [page('/overview', 'Overview', MAIN), page('/chat', 'Chat', MAIN)] },
  {
    label: 'Build',
    pages: [
      page('/agents', 'Agents', MAIN),
      page('/marketplace', 'Marketplace'),
      page('/tasks', 'Tasks', MAIN),
      page('/applications', 'Applications', MAIN),
      page('/mcp-servers', 'MCP servers'),
      page('/gpt-apps', 'GPTs'),
      page('/context-types', 'Context types'),
    ],
  },
  {
    label: 'Activity',
    pages: [page('/approvals', 'Approvals', MAIN), page('/history', 'History', MAIN), page('/usage', 'Usage'), page('/insights', 'Insights', MAIN)],
  },
  {
    label: 'Administration',
    pages: [page('/users', 'Users', ADMIN), page('/audit', 'Audit log', ADMIN), page('/connected-clients', 'Connected clients'), page('/settings', 'Settings')],
  },
]

export const PAGES: readonly ConsolePage[] = NAV_GROUPS.flatMap((group) => group.pages)

/** The page a path belongs to: /applications/pet-store is Applications. */
export const pageOf = (path: string) => PAGES.find((p) => path === p.path || path.startsWith(`${p.path}/`))

export function Frame({ me, path, children, signOut }: { me: Me; path: string; children?: ComponentChildren; signOut: () => void }) {
  return h(
    'div',
    { class: 'frame' },
    h('a', { class: 'skip', href: '#content' }, 'Skip to content'),
    h(
      'header',
      null,
      h('span', { class: 'brand' }, 'Agentbox'),
      h('div', { class: 'who' }, h('span', null, `${me.name} (${me.role})`), h('button', { type: 'button', onClick: signOut }, 'Sign out')),
      h(MainNav, { me, path, groups: NAV_GROUPS, current: pageOf(path) }),
    ),
    h('main', { id: 'content', tabIndex: -1 }, children),
  )
}
