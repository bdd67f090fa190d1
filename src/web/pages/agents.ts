// Agents: every agent the user may use, each with its MCP URL and client configurations (and, for owners, the design
// endpoint that edits the draft from an MCP client). The agent designer (editing in the console) builds on this page.
import { useState } from 'preact/hooks'
import { api } from '../api.ts'
import type { Me } from '../session.ts'
import { formatDate, h, Loading, useLoad } from '../ui.ts'
import { McpConnect } from './mcp-connect.ts'

interface AgentSummary {
  id: string
  name: string
  description: string | null
  live_version: number | null
  has_unpublished_changes: boolean
  role: 'owner' | 'viewer' | 'admin'
  updated_at: string
}

export function AgentsPage(_props: { me: Me }) {
  const agents = useLoad(() => api<AgentSummary[]>('GET', '/api/agents'))
  const [open, setOpen] = useState<string | null>(null)
  const origin = location.origin
  return h(
    'section',
    { 'aria-labelledby': 'agents-title' },
    h('h1', { id: 'agents-title' }, 'Agents'),
    h(
      'p',
      { class: 'muted' },
      'Each agent is an MCP server: paste its URL into an MCP client, sign in, and its published workflows, API operations and skills are there as tools.',
    ),
    !agents.data
      ? h(Loading, { error: agents.error })
      : agents.data.length === 0
        ? h('p', null, 'No agent is shared with you yet.')
        : h(
            'ul',
            { class: 'agents' },
            agents.data.map((agent) =>
              h(
                'li',
                { key: agent.id },
                h(
                  'button',
                  { type: 'button', class: 'link', 'aria-expanded': open === agent.name, onClick: () => setOpen(open === agent.name ? null : agent.name) },
                  h('strong', null, agent.name),
                ),
                ` · ${agent.description ?? 'not published yet'} · ${agent.live_version === null ? 'no live version' : `live v${agent.live_version}`} · ${agent.role} · updated ${formatDate(agent.updated_at)}`,
                open === agent.name
                  ? h(
                      'div',
                      null,
                      h(McpConnect, { name: agent.name, url: `${origin}/agent/${agent.name}/mcp` }),
                      agent.role === 'owner'
                        ? h(McpConnect, {
                            name: `${agent.name}-design`,
                            url: `${origin}/agent/${agent.name}/design/mcp`,
                            heading: 'Design from an MCP client (draft; owners)',
                          })
                        : null,
                    )
                  : null,
              ),
            ),
          ),
  )
}
