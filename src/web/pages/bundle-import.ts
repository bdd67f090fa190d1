// Import an agent from a bundle (a zip exported by another Agentbox): choose the file, check it (a dry run shows what
// will be created or reused), then import. Nothing is written until Import is pressed.
import { useState } from 'preact/hooks'
import { upload } from '../api.ts'
import { navigate } from '../router.ts'
import { Banner, Field, h, Select } from '../ui.ts'
import { agentPath } from './agent-fields.ts'
import { bundleProblems, type ImportPlan, PlanView } from './bundle-plan.ts'

const CONFLICT_CHOICES = [
  ['fail', 'Stop if an agent of that name exists'],
  ['rename', 'Import as a copy with a new name'],
  ['replace', 'Publish as the next version of that agent'],
] as const

export function ImportBundle() {
  const [file, setFile] = useState<File | null>(null)
  const [name, setName] = useState('')
  const [onConflict, setOnConflict] = useState('fail')
  const [plan, setPlan] = useState<ImportPlan | null>(null)
  const [problems, setProblems] = useState<string[]>([])
  const [busy, setBusy] = useState(false)

  const form = () => {
    const data = new FormData()
    data.append('file', file!)
    if (name.trim()) data.append('name', name.trim())
    data.append('on_conflict', onConflict)
    return data
  }
  const run = async (dryRun: boolean) => {
    if (!file) return setProblems(['Choose a bundle (.zip) first'])
    setBusy(true)
    setProblems([])
    try {
      if (dryRun) setPlan((await upload<{ plan: ImportPlan }>('/api/agents/import?dry_run=true', form())).plan)
      else navigate(agentPath((await upload<{ name: string }>('/api/agents/import', form())).name))
    } catch (error) {
      setPlan(null)
      setProblems(bundleProblems(error))
    } finally {
      setBusy(false)
    }
  }
  // Any change means the plan shown no longer describes what Import would do.
  const changed =
    <T>(set: (value: T) => void) =>
    (value: T) => {
      set(value)
      setPlan(null)
    }

  return h(
    'form',
    { class: 'card', 'aria-labelledby': 'import-bundle-title', onSubmit: (e: Event) => (e.preventDefault(), run(plan === null)) },
    h('h2', { id: 'import-bundle-title' }, 'Import an agent from a bundle'),
    h(
      'p',
      { class: 'muted' },
      'A bundle is the zip an Export makes: the agent, its skills, workflows and the API descriptions of its applications. Never credentials.',
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'bundle-file' }, 'Bundle (.zip)'),
      h('input', {
        id: 'bundle-file',
        name: 'file',
        type: 'file',
        accept: '.zip,application/zip',
        onChange: (e: Event) => changed(setFile)((e.currentTarget as HTMLInputElement).files?.[0] ?? null),
      }),
    ),
    h(Field, { id: 'bundle-name', label: 'Import as (optional)', value: name, onInput: changed(setName), hint: "Default: the agent's name in the bundle" }),
    h(Select, {
      id: 'bundle-on-conflict',
      label: 'When that agent exists already',
      value: onConflict,
      options: CONFLICT_CHOICES,
      onChange: changed(setOnConflict),
    }),
    problems.length > 0
      ? h(
          Banner,
          { kind: 'error' },
          h('p', null, 'The bundle cannot be imported:'),
          h(
            'ul',
            { 'data-testid': 'bundle-problems' },
            problems.map((p, i) => h('li', { key: i }, p)),
          ),
        )
      : null,
    plan ? h(PlanView, { plan }) : null,
    h(
      'div',
      { class: 'actions' },
      plan
        ? [
            h('button', { type: 'submit', class: 'primary', disabled: busy, key: 'import' }, 'Import'),
            h('button', { type: 'button', disabled: busy, onClick: () => setPlan(null), key: 'back' }, 'Cancel'),
          ]
        : h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Check bundle'),
    ),
  )
}
