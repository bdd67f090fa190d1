// Context types: list (name, summary), create, edit, delete (docs/api.md "Context types"): names unique ignoring case
// (409 shown at the name), only the creator or an admin changes one.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, ConfirmActions, Field, formatDate, h, Loading, useLoad } from '../ui.ts'

interface ContextType {
  id: string
  name: string
  summary: string
  description: string
  when_to_use: string
  how_to_generate: string
  created_by: string
  created_at: string
  updated_at: string
}

type Form = Pick<ContextType, 'name' | 'summary' | 'description' | 'when_to_use' | 'how_to_generate'>
const FIELDS: readonly { key: keyof Form; label: string; hint?: string; multiline?: boolean }[] = [
  { key: 'name', label: 'Name', hint: 'Unique in the organisation, whatever the case' },
  { key: 'summary', label: 'Summary', hint: 'One line on what this kind of context is' },
  { key: 'description', label: 'Description', multiline: true },
  { key: 'when_to_use', label: 'When to use', hint: 'Tells the agent when to use it', multiline: true },
  { key: 'how_to_generate', label: 'How to generate', hint: 'Tells the agent how to write new context of this type', multiline: true },
]
const emptyForm = (): Form => ({ name: '', summary: '', description: '', when_to_use: '', how_to_generate: '' })
const formOf = (c: ContextType): Form => ({
  name: c.name,
  summary: c.summary,
  description: c.description,
  when_to_use: c.when_to_use,
  how_to_generate: c.how_to_generate,
})

export const mayChange = (me: Me, c: ContextType) => me.role === 'admin' || c.created_by === me.email

function ContextTypeForm({
  editing,
  onSaved,
  onCancel,
  onGone,
}: {
  editing: ContextType | null
  onSaved: (message: string) => void
  onCancel: () => void
  onGone: () => void
}) {
  const [form, setForm] = useState<Form>(() => (editing ? formOf(editing) : emptyForm()))
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({})
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const set = (key: keyof Form) => (value: string) => setForm({ ...form, [key]: value })

  const submit = async (event: Event) => {
    event.preventDefault()
    setErrors({})
    setError('')
    setBusy(true)
    try {
      const saved = editing
        ? await api<ContextType>('PUT', `/api/context-type/${encodeURIComponent(editing.id)}`, form)
        : await api<ContextType>('POST', '/api/context-type', form)
      if (!editing) setForm(emptyForm())
      onSaved(editing ? `Context type "${saved.name}" saved.` : `Context type "${saved.name}" created.`)
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) {
        setErrors(e.fields)
        const rest = Object.entries(e.fields).filter(([key]) => !FIELDS.some((f) => f.key === key))
        if (rest.length > 0) setError(rest.map(([key, msg]) => `${key}: ${msg}`).join('; '))
      } else if (e instanceof ApiError && e.status === 409) setErrors({ name: e.message })
      else if (e instanceof ApiError && e.status === 403) setError(`You may not change this context type: ${e.message}`)
      else if (e instanceof ApiError && e.status === 404) {
        setError(`This context type no longer exists: ${e.message}`)
        onGone()
      } else setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  const prefix = 'context-type'
  return h(
    'form',
    { class: 'card', onSubmit: submit, 'aria-labelledby': `${prefix}-title` },
    h('h2', { id: `${prefix}-title` }, editing ? h('span', null, 'Edit context type "', h('bdi', null, editing.name), '"') : 'Create a context type'),
    error ? h(Banner, { kind: 'error' }, error) : null,
    FIELDS.map((f) =>
      h(Field, {
        key: f.key,
        id: `${prefix}-${f.key.replaceAll('_', '-')}`,
        label: f.label,
        value: form[f.key],
        onInput: set(f.key),
        error: errors[f.key],
        ...(f.hint ? { hint: f.hint } : {}),
        multiline: f.multiline ?? false,
        required: f.key === 'name',
      }),
    ),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', disabled: busy }, editing ? 'Save context type' : 'Create context type'),
      editing ? h('button', { type: 'button', onClick: onCancel }, 'Cancel editing') : null,
    ),
  )
}

export function ContextTypesPage({ me }: { me: Me }) {
  const list = useLoad(() => api<ContextType[]>('GET', '/api/context-type'))
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [editing, setEditing] = useState<ContextType | null>(null)
  const [confirming, setConfirming] = useState<string | null>(null)

  const edit = (c: ContextType) => {
    setEditing(c)
    setConfirming(null)
    setNotice(null)
    requestAnimationFrame(() => document.getElementById('context-type-name')?.focus())
  }
  const saved = (text: string) => {
    setNotice({ kind: 'success', text })
    setEditing(null)
    list.reload()
  }
  const remove = async (c: ContextType) => {
    setConfirming(null)
    try {
      await api('DELETE', `/api/context-type/${encodeURIComponent(c.id)}`)
      setNotice({ kind: 'success', text: `Context type "${c.name}" deleted.` })
      if (editing?.id === c.id) setEditing(null)
    } catch (e) {
      const status = e instanceof ApiError ? e.status : 0
      setNotice({
        kind: 'error',
        text: status === 403 ? `You may not delete "${c.name}": ${errorText(e)}` : status === 404 ? `"${c.name}" no longer exists.` : errorText(e),
      })
    }
    list.reload()
  }

  return h(
    'section',
    null,
    h('h1', null, 'Context types'),
    h('p', { class: 'muted' }, 'Named kinds of context agents can use or write. Anyone may create one; only its creator or an admin changes or deletes it.'),
    h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, h('span', { dir: 'auto' }, notice.text)) : null),
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.length === 0
        ? h('p', null, 'No context types yet. Create one below.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'sr-only' }, 'Context types'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Name', 'Summary', 'Created by', 'Updated', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                list.data.map((c) =>
                  h(
                    'tr',
                    { key: c.id },
                    h('th', { scope: 'row', 'data-label': 'Name' }, h('bdi', null, c.name)),
                    h('td', { 'data-label': 'Summary', dir: 'auto', class: 'ct-summary' }, c.summary || h('span', { class: 'muted' }, '—')),
                    h('td', { 'data-label': 'Created by' }, c.created_by),
                    h('td', { 'data-label': 'Updated' }, h('time', { dateTime: c.updated_at }, formatDate(c.updated_at))),
                    h(
                      'td',
                      { 'data-label': 'Actions' },
                      !mayChange(me, c)
                        ? h('span', { class: 'muted' }, 'Only its creator or an admin changes it')
                        : confirming === c.id
                          ? h(ConfirmActions, { verb: 'Delete', name: c.name, onConfirm: () => remove(c), onKeep: () => setConfirming(null) })
                          : h(
                              'div',
                              { class: 'row-actions' },
                              h('button', { type: 'button', onClick: () => edit(c) }, 'Edit', h('span', { class: 'sr-only' }, ` ${c.name}`)),
                              h(
                                'button',
                                { type: 'button', class: 'danger', onClick: () => setConfirming(c.id) },
                                'Delete',
                                h('span', { class: 'sr-only' }, ` ${c.name}`),
                              ),
                            ),
                    ),
                  ),
                ),
              ),
            ),
          ),
    h(ContextTypeForm, {
      editing,
      onSaved: saved,
      onCancel: () => setEditing(null),
      onGone: list.reload,
      key: editing ? `edit-${editing.id}` : 'new',
    }),
  )
}
