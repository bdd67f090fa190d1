// The Design tab (owners): the draft's description, instructions and applications (Save), its skills and workflows
// (their own panels), and Publish with an optional note. Live keeps serving the last published version until then.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import { Banner, h, Loading, useLoad } from '../ui.ts'
import {
  type AgentDetail,
  type ApplicationUse,
  agentApi,
  CountedField,
  fieldErrors,
  MAX_DESCRIPTION_LENGTH,
  MAX_INSTRUCTIONS_LENGTH,
  MAX_NOTE_LENGTH,
  type Notice,
  NoticeArea,
  type Version,
  type TabProps,
} from './agent-fields.ts'
import { SkillsPanel } from './agent-skills.ts'
import { allOperations } from './application-detail.ts'
import { WorkflowsPanel } from './agent-workflows.ts'

interface ApplicationInfo {
  api_name: string
  title: string
  operations_count: number
}
interface OperationInfo {
  operation_id: string
  method: string
  path: string
  summary: string
}

interface Draft {
  description: string
  instructions: string
  applications: ApplicationUse[]
}

const draftOf = (agent: AgentDetail): Draft => ({
  description: agent.description ?? '',
  instructions: agent.instructions ?? '',
  applications: agent.applications.map((use) => ({ ...use })),
})
const sameDraft = (a: Draft, b: Draft) => JSON.stringify(a) === JSON.stringify(b)
const safeId = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_')

/** The operations of one application as checkboxes, with a filter (an application may have thousands). */
function OperationPicker({ use, onChange }: { use: ApplicationUse; onChange: (ids: string[]) => void }) {
  const ops = useLoad(() => allOperations<OperationInfo>(use.api_name), [use.api_name])
  const [filter, setFilter] = useState('')
  const chosen = new Set(use.operation_ids ?? [])
  if (!ops.data) return h(Loading, { error: ops.error })
  const needle = filter.trim().toLowerCase()
  const shown = ops.data.filter((op) => !needle || `${op.operation_id} ${op.method} ${op.path} ${op.summary}`.toLowerCase().includes(needle))
  const base = `ops-${safeId(use.api_name)}`
  const toggle = (id: string, on: boolean) => onChange(ops.data!.map((op) => op.operation_id).filter((op) => (op === id ? on : chosen.has(op))))
  return h(
    'fieldset',
    { class: 'operation-picker' },
    h('legend', null, `Operations of ${use.api_name} (${chosen.size} of ${ops.data.length} chosen)`),
    h(
      'div',
      { class: 'field' },
      h('label', { for: `${base}-filter` }, 'Filter operations'),
      h('input', { id: `${base}-filter`, type: 'search', value: filter, onInput: (e: Event) => setFilter((e.currentTarget as HTMLInputElement).value) }),
    ),
    h(
      'ul',
      { class: 'operation-checks' },
      shown.slice(0, 200).map((op) =>
        h(
          'li',
          { key: op.operation_id },
          h(
            'label',
            null,
            h('input', {
              type: 'checkbox',
              checked: chosen.has(op.operation_id),
              onChange: (e: Event) => toggle(op.operation_id, (e.currentTarget as HTMLInputElement).checked),
            }),
            ' ',
            h('code', null, op.operation_id),
            h('span', { class: 'muted' }, ` ${op.method} ${op.path}`),
          ),
        ),
      ),
    ),
    shown.length > 200 ? h('p', { class: 'muted' }, `${shown.length - 200} more: narrow the filter.`) : null,
  )
}

/** The applications whose operations the agent's MCP endpoints offer as tools; a 422 is shown on its entry. */
function ApplicationsEditor({
  uses,
  errors,
  onChange,
}: {
  uses: ApplicationUse[]
  errors: Record<string, string>
  onChange: (uses: ApplicationUse[]) => void
}) {
  const apps = useLoad(() => api<ApplicationInfo[]>('GET', '/api/applications'))
  const [adding, setAdding] = useState('')
  const byName = new Map((apps.data ?? []).map((app) => [app.api_name, app]))
  const available = (apps.data ?? []).filter((app) => !uses.some((use) => use.api_name === app.api_name))
  const pick = adding && available.some((app) => app.api_name === adding) ? adding : (available[0]?.api_name ?? '')
  const replace = (index: number, use: ApplicationUse) => onChange(uses.map((u, i) => (i === index ? use : u)))
  const entryErrors = (index: number) =>
    Object.entries(errors)
      .filter(([key]) => key === `applications.${index}` || key.startsWith(`applications.${index}.`))
      .map(([, message]) => message)
  const listError = errors.applications
  return h(
    'fieldset',
    { class: 'applications-editor' },
    h('legend', null, 'Applications'),
    h('p', { class: 'hint' }, "Their operations become tools on the agent's MCP endpoints, called with each user's own credentials."),
    uses.length === 0 ? h('p', null, 'No application yet.') : null,
    h(
      'ul',
      { class: 'application-uses' },
      uses.map((use, index) => {
        const app = byName.get(use.api_name)
        const problems = entryErrors(index)
        const id = `use-${safeId(use.api_name)}`
        return h(
          'li',
          { key: use.api_name, class: problems.length ? 'invalid' : undefined, 'aria-describedby': problems.length ? `${id}-error` : undefined },
          h('div', { class: 'use-head' }, h('strong', { dir: 'auto' }, app?.title ?? use.api_name), ' ', h('code', null, use.api_name)),
          h(
            'label',
            { class: 'check' },
            h('input', {
              type: 'checkbox',
              id: `${id}-all`,
              checked: !use.operation_ids,
              onChange: (e: Event) =>
                replace(index, (e.currentTarget as HTMLInputElement).checked ? { api_name: use.api_name } : { api_name: use.api_name, operation_ids: [] }),
            }),
            ` All operations${app ? ` (${app.operations_count})` : ''}`,
          ),
          use.operation_ids ? h(OperationPicker, { use, onChange: (ids: string[]) => replace(index, { api_name: use.api_name, operation_ids: ids }) }) : null,
          h(
            'button',
            { type: 'button', onClick: () => onChange(uses.filter((_, i) => i !== index)) },
            'Remove',
            h('span', { class: 'sr-only' }, ` ${use.api_name}`),
          ),
          h('div', { class: 'field-error', id: `${id}-error`, role: 'alert' }, problems.join(' ')),
        )
      }),
    ),
    listError ? h('div', { class: 'field-error', role: 'alert' }, listError) : null,
    apps.error ? h(Banner, { kind: 'error' }, apps.error) : null,
    apps.data && available.length > 0
      ? h(
          'div',
          { class: 'inline-form' },
          h(
            'div',
            { class: 'field' },
            h('label', { for: 'add-application' }, 'Add an application'),
            h(
              'select',
              { id: 'add-application', value: pick, onChange: (e: Event) => setAdding((e.currentTarget as HTMLSelectElement).value) },
              available.map((app) => h('option', { key: app.api_name, value: app.api_name }, `${app.title} (${app.api_name})`)),
            ),
          ),
          h('button', { type: 'button', onClick: () => pick && (onChange([...uses, { api_name: pick }]), setAdding('')) }, 'Add application'),
        )
      : apps.data && apps.data.length === 0
        ? h('p', { class: 'muted' }, 'No application is registered yet (see Applications).')
        : null,
  )
}

function DraftForm({ agent, refresh }: TabProps) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(agent))
  // What the form last took from the server: a reload (after a restore, or a skill change) replaces an unedited form only.
  const base = useRef<Draft>(draftOf(agent))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [notice, setNotice] = useState<Notice | null>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    const fresh = draftOf(agent)
    if (sameDraft(draft, base.current)) setDraft(fresh)
    base.current = fresh
  }, [agent.updated_at, agent.description, agent.instructions, JSON.stringify(agent.applications)])

  const changed = !sameDraft(draft, base.current)
  const save = async (event: Event) => {
    event.preventDefault()
    setErrors({})
    setNotice(null)
    setBusy(true)
    const body: Record<string, unknown> = { description: draft.description, instructions: draft.instructions }
    if (JSON.stringify(draft.applications) !== JSON.stringify(agent.applications)) body.applications = draft.applications
    try {
      const saved = await api<AgentDetail>('PATCH', agentApi(agent.name), body)
      base.current = draftOf(saved)
      setDraft(draftOf(saved))
      setNotice({
        kind: 'success',
        text: saved.has_unpublished_changes ? 'Draft saved. Publish it to make it live.' : 'Draft saved; it matches the live version.',
      })
      refresh()
    } catch (e) {
      const { fields, message } = fieldErrors(e)
      setErrors(fields)
      setNotice({ kind: 'error', text: message || 'The draft was not saved: see the fields marked below.' })
    } finally {
      setBusy(false)
    }
  }
  return h(
    'form',
    { class: 'card', 'aria-labelledby': 'draft-title', onSubmit: save, noValidate: true },
    h('h3', { id: 'draft-title' }, 'Draft'),
    h(CountedField, {
      id: 'agent-description',
      label: 'Description',
      value: draft.description,
      max: MAX_DESCRIPTION_LENGTH,
      onInput: (description: string) => setDraft({ ...draft, description }),
      error: errors.description,
      required: true,
    }),
    h(CountedField, {
      id: 'agent-instructions',
      label: 'Instructions',
      value: draft.instructions,
      max: MAX_INSTRUCTIONS_LENGTH,
      onInput: (instructions: string) => setDraft({ ...draft, instructions }),
      error: errors.instructions,
      multiline: true,
      rows: 10,
      required: true,
    }),
    h(ApplicationsEditor, {
      uses: draft.applications,
      errors,
      onChange: (applications: ApplicationUse[]) => {
        setDraft({ ...draft, applications })
        // Entry errors are by position: once the list changes they may point at another entry.
        setErrors(Object.fromEntries(Object.entries(errors).filter(([key]) => !key.startsWith('applications'))))
      },
    }),
    h(NoticeArea, { notice }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Save draft'),
      changed ? h('span', { class: 'muted' }, 'Unsaved changes') : null,
    ),
  )
}

function PublishForm({ agent, refresh }: TabProps) {
  const [note, setNote] = useState('')
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<Notice | null>(null)
  const [busy, setBusy] = useState(false)
  const publish = async (event: Event) => {
    event.preventDefault()
    setError(undefined)
    setNotice(null)
    setBusy(true)
    try {
      const version = await api<Version>('POST', agentApi(agent.name, '/publish'), note.trim() ? { note: note.trim() } : {})
      setNote('')
      setNotice({ kind: 'success', text: `Published v${version.version}: it is live now.` })
      refresh()
    } catch (e) {
      const { fields, message } = fieldErrors(e)
      if (fields.note) setError(fields.note)
      setNotice({ kind: 'error', text: message || errorText(e) })
    } finally {
      setBusy(false)
    }
  }
  return h(
    'form',
    { class: 'card', 'aria-labelledby': 'publish-title', onSubmit: publish, noValidate: true },
    h('h3', { id: 'publish-title' }, 'Publish'),
    h(
      'p',
      { class: 'muted' },
      agent.has_unpublished_changes
        ? 'The draft (with its skills and workflows) becomes the next version and goes live.'
        : 'The draft matches the live version: there is nothing to publish.',
    ),
    h(CountedField, {
      id: 'publish-note',
      label: 'Note (optional)',
      hint: 'What changed, for the version history.',
      value: note,
      max: MAX_NOTE_LENGTH,
      onInput: setNote,
      error,
    }),
    h(NoticeArea, { notice }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Publish')),
  )
}

export function DesignTab(props: TabProps) {
  const { agent, me, refresh } = props
  return h(
    'div',
    { class: 'design' },
    h(DraftForm, props),
    h(SkillsPanel, { agent: agent.name, role: 'owner', me, onChanged: refresh }),
    h(WorkflowsPanel, { agent: agent.name, role: 'owner', me, onChanged: refresh }),
    h(PublishForm, props),
  )
}
