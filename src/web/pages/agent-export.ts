// Export: download a version of the agent as a bundle (zip) to import on another Agentbox. Owners choose live, the
// draft or any version; viewers and admins who are not owners get the live version.
import { useState } from 'preact/hooks'
import { api, download } from '../api.ts'
import { h, useLoad } from '../ui.ts'
import { type AgentDetail, agentApi } from './agent-fields.ts'
import { bundleProblems } from './bundle-plan.ts'

export function ExportBundle({ agent }: { agent: AgentDetail }) {
  const owner = agent.role === 'owner'
  const versions = useLoad(
    () => (owner ? api<{ version: number }[]>('GET', agentApi(agent.name, '/versions')) : Promise.resolve([])),
    [agent.name, agent.live_version],
  )
  const [choice, setChoice] = useState(agent.live_version === null ? 'draft' : 'live')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const options: [string, string][] = [
    ...(agent.live_version === null ? [] : ([['live', `Live (v${agent.live_version})`]] as [string, string][])),
    ...(owner ? ([['draft', 'Draft']] as [string, string][]) : []),
    ...(versions.data ?? []).map((v) => [String(v.version), `Version ${v.version}`] as [string, string]),
  ]
  if (options.length === 0) return null
  const save = async () => {
    setBusy(true)
    setError('')
    try {
      await download(agentApi(agent.name, `/export?version=${encodeURIComponent(choice)}`), `${agent.name}.zip`)
    } catch (e) {
      setError(bundleProblems(e).join(' '))
    } finally {
      setBusy(false)
    }
  }
  return h(
    'div',
    { class: 'export-bundle', role: 'group', 'aria-label': 'Export a bundle' },
    h('label', { for: 'export-version' }, 'Export '),
    h(
      'select',
      { id: 'export-version', value: choice, onChange: (e: Event) => setChoice((e.currentTarget as HTMLSelectElement).value) },
      options.map(([value, text]) => h('option', { key: value, value }, text)),
    ),
    ' ',
    h('button', { type: 'button', onClick: save, disabled: busy }, 'Download bundle'),
    error ? h('p', { class: 'field-error', role: 'alert' }, error) : null,
  )
}
