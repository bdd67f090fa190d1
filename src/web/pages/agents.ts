// Agents: /agents lists every agent the user may see (search, and a form to create one); /agents/{name}[/{tab}] is one
// agent's page (agent-page.ts: design, versions, members, live and its MCP connection).
import { useEffect, useRef, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { navigate, usePath } from '../router.ts'
import type { Me } from '../session.ts'
import { Banner, Field, formatDate, h, Link, Loading, useLoad } from '../ui.ts'
import { AgentPage } from './agent-page.ts'
import { ImportBundle } from './bundle-import.ts'
import {
  type AgentDetail,
  type AgentSummary,
  agentNameProblem,
  agentPath,
  CountedField,
  DraftChip,
  fieldErrors,
  MAX_DESCRIPTION_LENGTH,
  MAX_INSTRUCTIONS_LENGTH,
  normaliseAgentName,
} from './agent-fields.ts'

const ROLE_TEXT = { owner: 'Owner', viewer: 'Viewer', admin: 'Admin (not a member)' } as const

function NewAgentForm({ onCreated }: { onCreated: (agent: AgentDetail) => void }) {
  const [form, setForm] = useState({ name: '', description: '', instructions: '' })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const set = (key: keyof typeof form) => (value: string) => setForm({ ...form, [key]: value })
  const normalised = normaliseAgentName(form.name)
  const problem = form.name.trim() ? agentNameProblem(form.name) : null

  const submit = async (event: Event) => {
    event.preventDefault()
    setErrors({})
    setError('')
    setBusy(true)
    try {
      onCreated(await api<AgentDetail>('POST', '/api/agents', form))
    } catch (e) {
      const { fields, message } = fieldErrors(e, 'name')
      setErrors(fields)
      setError(message)
      const first = ['name', 'description', 'instructions'].find((key) => fields[key])
      if (first) document.getElementById(`new-agent-${first}`)?.focus()
    } finally {
      setBusy(false)
    }
  }

  return h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-agent-title', onSubmit: submit, noValidate: true },
    h('h2', { id: 'new-agent-title' }, 'New agent'),
    error ? h(Banner, { kind: 'error' }, error) : null,
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'new-agent-name' }, 'Name'),
      h(
        'small',
        { class: 'hint', id: 'new-agent-name-hint' },
        'Lowercase; spaces and underscores become hyphens; at most 64 characters. It cannot change later.',
      ),
      h('input', {
        id: 'new-agent-name',
        name: 'name',
        value: form.name,
        required: true,
        autocomplete: 'off',
        spellcheck: false,
        'aria-invalid': errors.name || problem ? 'true' : undefined,
        'aria-describedby': 'new-agent-name-hint new-agent-name-becomes new-agent-name-error',
        onInput: (e: Event) => set('name')((e.currentTarget as HTMLInputElement).value),
      }),
      h(
        'small',
        { id: 'new-agent-name-becomes', class: 'name-preview', 'aria-live': 'polite' },
        form.name.trim()
          ? ['Will be created as ', h('code', { dir: 'ltr', 'data-testid': 'normalised-name' }, normalised || '—'), problem ? ` — ${problem}` : '']
          : '',
      ),
      h('div', { class: 'field-error', id: 'new-agent-name-error', role: 'alert' }, errors.name ?? ''),
    ),
    h(CountedField, {
      id: 'new-agent-description',
      label: 'Description',
      hint: 'What the agent is for; MCP clients show it.',
      value: form.description,
      max: MAX_DESCRIPTION_LENGTH,
      onInput: set('description'),
      error: errors.description,
      required: true,
    }),
    h(CountedField, {
      id: 'new-agent-instructions',
      label: 'Instructions',
      hint: 'How the agent should behave: what chat and MCP clients get as its instructions.',
      value: form.instructions,
      max: MAX_INSTRUCTIONS_LENGTH,
      onInput: set('instructions'),
      error: errors.instructions,
      multiline: true,
      rows: 6,
      required: true,
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Create agent')),
  )
}

function AgentList({ me }: { me: Me }) {
  const agents = useLoad(() => api<AgentSummary[]>('GET', '/api/agents'))
  const [search, setSearch] = useState('')
  const needle = search.trim().toLowerCase()
  const all = agents.data ?? []
  const shown = needle ? all.filter((a) => `${a.name}\n${a.description ?? ''}`.toLowerCase().includes(needle)) : all
  return h(
    'section',
    { 'aria-labelledby': 'agents-title' },
    h('h1', { id: 'agents-title' }, 'Agents'),
    h(
      'p',
      { class: 'muted' },
      'Each agent is an MCP server: open one to design it, publish versions, share it, and connect an MCP client to its live version.',
    ),
    !agents.data
      ? h(Loading, { error: agents.error })
      : all.length === 0
        ? h('p', null, me.role === 'admin' ? 'There are no agents yet.' : 'No agent is shared with you yet. Create one below.')
        : h(
            'div',
            null,
            h(Field, { id: 'agent-search', label: 'Search agents', type: 'search', value: search, onInput: setSearch, hint: 'By name or description' }),
            h(
              'p',
              { class: 'muted', 'aria-live': 'polite', id: 'agent-search-count' },
              needle ? `${shown.length} of ${all.length} agents match.` : `${all.length} ${all.length === 1 ? 'agent' : 'agents'}.`,
            ),
            shown.length === 0
              ? null
              : h(
                  'div',
                  { class: 'table-wrap' },
                  h(
                    'table',
                    { class: 'stack agent-list' },
                    h('caption', { class: 'sr-only' }, 'Agents you may see'),
                    h(
                      'thead',
                      null,
                      h(
                        'tr',
                        null,
                        ['Name', 'Description', 'Live version', 'Your role', 'Updated'].map((c) => h('th', { scope: 'col', key: c }, c)),
                      ),
                    ),
                    h(
                      'tbody',
                      null,
                      shown.map((agent) =>
                        h(
                          'tr',
                          { key: agent.id },
                          h(
                            'th',
                            { scope: 'row', 'data-label': 'Name' },
                            h(Link, { to: agentPath(agent.name) }, h('bdi', null, agent.name)),
                            ' ',
                            h(DraftChip, { agent }),
                          ),
                          h(
                            'td',
                            { 'data-label': 'Description' },
                            agent.description ? h('span', { dir: 'auto' }, agent.description) : h('span', { class: 'muted' }, 'Not published yet'),
                          ),
                          h('td', { 'data-label': 'Live version' }, agent.live_version === null ? 'None yet' : `v${agent.live_version}`),
                          h('td', { 'data-label': 'Your role' }, ROLE_TEXT[agent.role]),
                          h('td', { 'data-label': 'Updated' }, h('time', { dateTime: agent.updated_at }, formatDate(agent.updated_at))),
                        ),
                      ),
                    ),
                  ),
                ),
          ),
    h(NewAgentForm, { onCreated: (agent) => navigate(agentPath(agent.name)) }),
    h(ImportBundle, null),
  )
}

/** `/agents` is the list; `/agents/{name}` and `/agents/{name}/{tab}` one agent. */
export function AgentsPage({ me }: { me: Me }) {
  const path = usePath()
  const [, , raw, tab] = path.split('/')
  const name = raw ? decodeURIComponent(raw) : ''
  const main = useRef<string>('')
  // Moving between the list and an agent moves the keyboard to the new page's heading.
  useEffect(() => {
    const page = name ? `agent:${name}` : 'list'
    if (main.current && main.current !== page) requestAnimationFrame(() => document.querySelector<HTMLElement>('#content h1')?.focus())
    main.current = page
  }, [name])
  return name ? h(AgentPage, { key: name, name, tab: tab ?? '', me }) : h(AgentList, { me })
}
