// Marketplace: the built-in sample agents and the organisation's published ones. Search, see what an install will
// create or reuse, then install. Admins publish a version of an agent and remove organisation entries.
import { useState } from 'preact/hooks'
import { api, download } from '../api.ts'
import { navigate } from '../router.ts'
import type { Me } from '../session.ts'
import { Banner, Field, formatDate, h, Loading, useLoad } from '../ui.ts'
import { type AgentSummary, agentPath } from './agent-fields.ts'
import { bundleProblems, type ImportPlan, PlanView } from './bundle-plan.ts'

interface Entry {
  id: string
  source: 'builtin' | 'organisation'
  name: string
  title: string
  description: string
  version: number
  skills: string[]
  workflows: string[]
  applications: string[]
  published_by: string | null
  published_at: string | null
}

function Install({ entry, onDone }: { entry: Entry; onDone: () => void }) {
  const [name, setName] = useState(entry.name)
  const [plan, setPlan] = useState<ImportPlan | null>(null)
  const [problems, setProblems] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const path = `/api/marketplace/${encodeURIComponent(entry.id)}/install`
  const body = () => ({ name: name.trim() || undefined, on_conflict: 'fail' })
  const go = async (dryRun: boolean) => {
    setBusy(true)
    setProblems([])
    try {
      if (dryRun) setPlan((await api<{ plan: ImportPlan }>('POST', `${path}?dry_run=true`, body())).plan)
      else navigate(agentPath((await api<{ name: string }>('POST', path, body())).name))
    } catch (error) {
      setPlan(null)
      setProblems(bundleProblems(error))
    } finally {
      setBusy(false)
    }
  }
  return h(
    'form',
    { class: 'install', 'aria-label': `Install ${entry.title}`, onSubmit: (e: Event) => (e.preventDefault(), go(plan === null)) },
    h(Field, {
      id: `install-name-${entry.id}`,
      label: 'Install as',
      value: name,
      onInput: (value) => {
        setName(value)
        setPlan(null)
      },
    }),
    problems.length > 0
      ? h(
          Banner,
          { kind: 'error' },
          h(
            'ul',
            null,
            problems.map((p, i) => h('li', { key: i }, p)),
          ),
        )
      : null,
    plan ? h(PlanView, { plan }) : null,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', disabled: busy }, plan ? 'Install' : 'Check'),
      h('button', { type: 'button', onClick: onDone }, 'Cancel'),
    ),
  )
}

function EntryCard({ entry, me, onChanged }: { entry: Entry; me: Me; onChanged: () => void }) {
  const [installing, setInstalling] = useState(false)
  const [error, setError] = useState('')
  const remove = async () => {
    if (!confirm(`Remove ${entry.title} v${entry.version} from the organisation catalog? Agents installed from it stay.`)) return
    try {
      await api('DELETE', `/api/marketplace/${encodeURIComponent(entry.id)}`)
      onChanged()
    } catch (e) {
      setError(bundleProblems(e).join(' '))
    }
  }
  return h(
    'article',
    { class: 'card marketplace-entry', 'aria-labelledby': `entry-${entry.id}`, 'data-testid': `entry-${entry.name}` },
    h(
      'h2',
      { id: `entry-${entry.id}` },
      entry.title,
      ' ',
      h('span', { class: 'chip' }, entry.source === 'builtin' ? 'Built-in' : `Organisation · v${entry.version}`),
    ),
    h('p', { dir: 'auto' }, entry.description),
    h(
      'ul',
      { class: 'muted' },
      h('li', null, `Skills: ${entry.skills.join(', ') || 'none'}`),
      h('li', null, `Workflows: ${entry.workflows.join(', ') || 'none'}`),
      h('li', null, `Applications: ${entry.applications.join(', ') || 'none'}`),
      entry.published_by ? h('li', null, `Published by ${entry.published_by}, ${formatDate(entry.published_at)}`) : null,
    ),
    error ? h(Banner, { kind: 'error' }, error) : null,
    installing
      ? h(Install, { entry, onDone: () => setInstalling(false) })
      : h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', class: 'primary', onClick: () => setInstalling(true) }, 'Install…'),
          h(
            'button',
            {
              type: 'button',
              onClick: () =>
                download(`/api/marketplace/${encodeURIComponent(entry.id)}/bundle`, `${entry.name}.zip`).catch((e) => setError(bundleProblems(e).join(' '))),
            },
            'Download bundle',
          ),
          me.role === 'admin' && entry.source === 'organisation' ? h('button', { type: 'button', class: 'danger', onClick: remove }, 'Remove') : null,
        ),
  )
}

function Publish({ onPublished }: { onPublished: () => void }) {
  const agents = useLoad(() => api<AgentSummary[]>('GET', '/api/agents'))
  const [agent, setAgent] = useState('')
  const [version, setVersion] = useState('')
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null)
  const published = (agents.data ?? []).filter((a) => a.live_version !== null)
  const submit = async (event: Event) => {
    event.preventDefault()
    setMessage(null)
    try {
      const entry = await api<Entry>('POST', '/api/marketplace', {
        agent_name: agent || published[0]?.name,
        version: version.trim() ? Number(version) : undefined,
      })
      setMessage({ kind: 'success', text: `Published ${entry.name} v${entry.version}.` })
      onPublished()
    } catch (e) {
      setMessage({ kind: 'error', text: bundleProblems(e).join(' ') })
    }
  }
  if (!agents.data) return h(Loading, { error: agents.error })
  return h(
    'form',
    { class: 'card', 'aria-labelledby': 'publish-title', onSubmit: submit },
    h('h2', { id: 'publish-title' }, 'Publish an agent to the organisation catalog'),
    published.length === 0
      ? h('p', { class: 'muted' }, 'No agent has a live version yet.')
      : [
          h(
            'div',
            { class: 'field', key: 'agent' },
            h('label', { for: 'publish-agent' }, 'Agent'),
            h(
              'select',
              { id: 'publish-agent', value: agent || published[0]!.name, onChange: (e: Event) => setAgent((e.currentTarget as HTMLSelectElement).value) },
              published.map((a) => h('option', { key: a.id, value: a.name }, `${a.name} (live v${a.live_version})`)),
            ),
          ),
          h(Field, {
            id: 'publish-version',
            key: 'version',
            label: 'Version (optional)',
            value: version,
            onInput: setVersion,
            hint: 'Default: the live version',
          }),
          message ? h(Banner, { kind: message.kind, key: 'message' }, message.text) : null,
          h('div', { class: 'actions', key: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Publish')),
        ],
  )
}

export function MarketplacePage({ me }: { me: Me }) {
  const [q, setQ] = useState('')
  const entries = useLoad(() => api<Entry[]>('GET', `/api/marketplace${q.trim() ? `?q=${encodeURIComponent(q.trim())}` : ''}`), [q])
  return h(
    'section',
    { 'aria-labelledby': 'marketplace-title' },
    h('h1', { id: 'marketplace-title', tabIndex: -1 }, 'Marketplace'),
    h(
      'p',
      { class: 'muted' },
      'Ready-made agents: the samples built into Agentbox and the ones your organisation published. Installing one creates your own copy.',
    ),
    h(Field, {
      id: 'marketplace-search',
      label: 'Search the marketplace',
      type: 'search',
      value: q,
      onInput: setQ,
      hint: 'Names, descriptions, skills, workflows, applications',
    }),
    !entries.data
      ? h(Loading, { error: entries.error })
      : h(
          'div',
          null,
          h('p', { class: 'muted', 'aria-live': 'polite' }, `${entries.data.length} ${entries.data.length === 1 ? 'entry' : 'entries'}.`),
          entries.data.map((entry) => h(EntryCard, { key: entry.id, entry, me, onChanged: entries.reload })),
        ),
    me.role === 'admin' ? h(Publish, { onPublished: entries.reload }) : null,
  )
}
