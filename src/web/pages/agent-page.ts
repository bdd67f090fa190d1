// One agent: a header (name, Draft chip, live version) and tabs. Owners get Design (the draft), Versions, Members and
// Live; viewers, and admins who are not owners, get only Live (what chat and MCP clients use), as the API allows.
import { useRef } from 'preact/hooks'
import { api } from '../api.ts'
import { navigate } from '../router.ts'
import type { Me } from '../session.ts'
import { Banner, h, Link, Loading, useLoad } from '../ui.ts'
import { DesignTab } from './agent-design.ts'
import { ExportBundle } from './agent-export.ts'
import { type AgentDetail, agentApi, agentPath, DraftChip, liveText, type TabProps } from './agent-fields.ts'
import { LiveTab } from './agent-live.ts'
import { MembersTab } from './agent-members.ts'
import { VersionsTab } from './agent-versions.ts'

const OWNER_TABS = [
  ['design', 'Design'],
  ['versions', 'Versions'],
  ['members', 'Members'],
  ['live', 'Live'],
] as const
const OTHER_TABS = [['live', 'Live']] as const
type TabKey = (typeof OWNER_TABS)[number][0]

/** WAI-ARIA tabs: one tab stop, arrow keys (mirrored in right-to-left pages), Home and End move between tabs. */
function Tabs({ tabs, current, onSelect }: { tabs: readonly (readonly [TabKey, string])[]; current: TabKey; onSelect: (key: TabKey) => void }) {
  const list = useRef<HTMLDivElement>(null)
  const keyDown = (event: KeyboardEvent) => {
    const index = tabs.findIndex(([key]) => key === current)
    const rtl = getComputedStyle(event.currentTarget as Element).direction === 'rtl'
    const step = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1 } as Record<string, number>
    let next: number | null = null
    if (event.key in step) next = (index + step[event.key]! + tabs.length) % tabs.length
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = tabs.length - 1
    if (next === null) return
    event.preventDefault()
    const key = tabs[next]![0]
    onSelect(key)
    requestAnimationFrame(() => list.current?.querySelector<HTMLElement>(`#tab-${key}`)?.focus())
  }
  return h(
    'div',
    { role: 'tablist', 'aria-label': 'Agent', class: 'tabs', ref: list, onKeyDown: keyDown },
    tabs.map(([key, label]) =>
      h(
        'button',
        {
          key,
          type: 'button',
          role: 'tab',
          id: `tab-${key}`,
          'aria-selected': key === current ? 'true' : 'false',
          'aria-controls': `panel-${key}`,
          tabIndex: key === current ? 0 : -1,
          onClick: () => onSelect(key),
        },
        label,
      ),
    ),
  )
}

/**
 * Talk to the agent in the chat: its live version for everyone, and for owners the draft in mock mode (every tool
 * simulated, nothing changed or recorded), to try a draft before publishing it.
 */
function ChatLinks({ agent }: { agent: AgentDetail }) {
  const chat = (query: Record<string, string>) => `/chat?${new URLSearchParams({ agent: agent.name, ...query })}`
  return h(
    'span',
    { class: 'agent-chat-links' },
    agent.live_version !== null ? h(Link, { to: chat({}) }, 'Chat with it') : null,
    agent.role === 'owner' ? h(Link, { to: chat({ mode: 'mock', version: 'draft' }) }, 'Try in mock mode') : null,
  )
}

export function AgentPage({ name, tab, me }: { name: string; tab: string; me: Me }) {
  const loaded = useLoad(() => api<AgentDetail>('GET', agentApi(name)), [name])
  const agent = loaded.data
  if (!agent) {
    const missing = loaded.error && /not found/i.test(loaded.error)
    return h(
      'section',
      { 'aria-labelledby': 'agent-title' },
      h('p', null, h(Link, { to: '/agents' }, 'All agents')),
      h('h1', { id: 'agent-title', tabIndex: -1 }, h('bdi', null, name)),
      missing ? h(Banner, { kind: 'error' }, 'This agent does not exist, or it is not shared with you.') : h(Loading, { error: loaded.error }),
    )
  }
  const tabs = agent.role === 'owner' ? OWNER_TABS : OTHER_TABS
  const current: TabKey = tabs.find(([key]) => key === tab)?.[0] ?? tabs[0][0]
  const select = (key: TabKey) => key !== current && navigate(agentPath(agent.name, key))
  const props: TabProps = { agent, me, refresh: loaded.reload }
  const label = tabs.find(([key]) => key === current)![1]
  return h(
    'section',
    { 'aria-labelledby': 'agent-title', class: 'agent-page' },
    h('p', null, h(Link, { to: '/agents' }, 'All agents')),
    h(
      'header',
      { class: 'agent-head' },
      h('h1', { id: 'agent-title', tabIndex: -1 }, h('bdi', null, agent.name)),
      h(
        'span',
        { class: 'agent-status', 'aria-live': 'polite', 'data-testid': 'agent-status' },
        h(DraftChip, { agent }),
        ' ',
        h('span', { class: 'chip' }, liveText(agent.live_version)),
      ),
      h(ChatLinks, { agent }),
      h(ExportBundle, { agent }),
    ),
    agent.role === 'owner'
      ? null
      : h('p', { class: 'muted' }, agent.role === 'viewer' ? 'Shared with you as a viewer.' : 'You see this agent as an admin; only its owners change it.'),
    h(Tabs, { tabs, current, onSelect: select }),
    h(
      'div',
      { role: 'tabpanel', id: `panel-${current}`, 'aria-labelledby': `tab-${current}`, class: 'tab-panel', key: current },
      h('h2', { class: 'sr-only' }, label),
      current === 'design'
        ? h(DesignTab, props)
        : current === 'versions'
          ? h(VersionsTab, props)
          : current === 'members'
            ? h(MembersTab, props)
            : h(LiveTab, props),
    ),
  )
}
