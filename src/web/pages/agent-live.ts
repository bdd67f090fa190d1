// The Live tab: what chat and MCP clients use — the live version's description, instructions, skills and workflows —
// and how to connect an MCP client to it (owners also get the design endpoint, which edits the draft).
import { api } from '../api.ts'
import { h, Loading, useLoad } from '../ui.ts'
import { type AgentDetail, agentApi, type VersionDetail, type TabProps } from './agent-fields.ts'
import { SkillsPanel } from './agent-skills.ts'
import { WorkflowsPanel } from './agent-workflows.ts'
import { McpConnect } from './mcp-connect.ts'

/** Owners read the live version's snapshot; viewers and admins already got the live version from GET /api/agents/{name}. */
function LiveText({ agent }: { agent: AgentDetail }) {
  const owner = agent.role === 'owner'
  const version = useLoad(
    () =>
      owner && agent.live_version !== null
        ? api<VersionDetail>('GET', agentApi(agent.name, `/versions/${agent.live_version}`))
        : Promise.resolve({ description: agent.description ?? '', instructions: agent.instructions ?? '', applications: agent.applications }),
    [agent.name, agent.live_version, owner],
  )
  if (agent.live_version === null) {
    return h(
      'section',
      { class: 'card', 'aria-labelledby': 'live-title' },
      h('h3', { id: 'live-title' }, 'Live version'),
      h('p', null, owner ? 'Nothing is live yet: publish the draft from the Design tab.' : 'This agent has not been published yet.'),
    )
  }
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'live-title' },
    h('h3', { id: 'live-title' }, `Live version v${agent.live_version}`),
    !version.data
      ? h(Loading, { error: version.error })
      : h(
          'dl',
          { class: 'live-text' },
          h('dt', null, 'Description'),
          h('dd', { dir: 'auto', 'data-testid': 'live-description' }, version.data.description),
          h('dt', null, 'Instructions'),
          h('dd', null, h('pre', { class: 'instructions', dir: 'auto', 'data-testid': 'live-instructions' }, version.data.instructions)),
          h('dt', null, 'Applications (their operations are MCP tools)'),
          h(
            'dd',
            { 'data-testid': 'live-applications' },
            version.data.applications.length === 0
              ? 'None'
              : h(
                  'ul',
                  null,
                  version.data.applications.map((use) =>
                    h('li', { key: use.api_name }, h('code', null, use.api_name), use.operation_ids ? `: ${use.operation_ids.join(', ')}` : ': all operations'),
                  ),
                ),
          ),
        ),
  )
}

export function LiveTab({ agent, me, refresh }: TabProps) {
  // The panels show the draft to owners; here an owner sees what everyone else uses, the live version, read-only.
  const role = agent.role === 'owner' ? 'viewer' : agent.role
  const origin = location.origin
  return h(
    'div',
    { class: 'live' },
    h(LiveText, { agent }),
    agent.live_version === null ? null : h(SkillsPanel, { agent: agent.name, role, me, onChanged: refresh }),
    agent.live_version === null ? null : h(WorkflowsPanel, { agent: agent.name, role, me, onChanged: refresh }),
    h(McpConnect, { name: agent.name, url: `${origin}/agent/${agent.name}/mcp`, offer: agentApi(agent.name, '/tools') }),
    agent.role === 'owner'
      ? h(McpConnect, {
          name: `${agent.name}-design`,
          url: `${origin}/agent/${agent.name}/design/mcp`,
          heading: 'Design from an MCP client (the draft; owners only)',
          offer: agentApi(agent.name, '/tools?version=draft'),
        })
      : null,
  )
}
