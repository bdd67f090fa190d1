// GPT apps: custom GPTs connected to the organisation (docs/api.md "GPT apps"). Everyone sees the installed GPTs they
// may (admins all, members public ones and private ones they installed); admins connect one (its key is shown once,
// with the Actions schema URL and the instructions to paste into the GPT builder), rotate its key and uninstall it.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, ConfirmActions, CopyButton, Field, formatDate, h, Link, Loading, Select, useLoad } from '../ui.ts'

interface Gpt {
  name: string
  description: string
  instructions: string
  applications: string[]
  agent_name: string | null
  visibility: 'private' | 'public'
  installed: boolean
  installed_at: string
  installed_by: string
  actions_openapi_url: string
}
type GptWithKey = Gpt & { api_key: string }
interface ApplicationInfo {
  api_name: string
  title: string
  shared_security_info: boolean
}

/** What the GPT builder's own Instructions field says: everything else comes from apps_list, kept on this server. */
export const BUILDER_INSTRUCTIONS =
  'At the start of every conversation, before anything else, call the apps_list action and follow the instructions it returns. ' +
  'Do what the user asks only through the app_execute_action action, with an api_name and operation_id from its operations_list ' +
  "and arguments that match that entry's input_schema. If an action answers ok: false, tell the user what went wrong."

interface Form {
  name: string
  description: string
  instructions: string
  applications: string[]
  agent_name: string
  visibility: 'private' | 'public'
}
const emptyForm = (): Form => ({ name: '', description: '', instructions: '', applications: [], agent_name: '', visibility: 'private' })
const VISIBILITY = [
  ['private', 'Private: admins only'],
  ['public', 'Public: every member sees it'],
] as const

/** What to paste into the GPT builder, with copy buttons; the key only right after it was made. */
function Connect({ gpt, keyShown, onDone }: { gpt: Gpt; keyShown?: string; onDone?: () => void }) {
  const id = `gpt-${gpt.name}`
  return h(
    'div',
    { class: keyShown ? 'banner banner-warning' : 'connect', role: keyShown ? 'status' : undefined },
    keyShown ? h('p', null, h('strong', null, `Copy the key of "${gpt.name}" now: it will not be shown again.`)) : null,
    keyShown
      ? h(
          'div',
          { class: 'field' },
          h('label', { for: `${id}-key` }, 'API key (the GPT sends it as x-api-key)'),
          h('input', {
            id: `${id}-key`,
            class: 'token',
            dir: 'ltr',
            readOnly: true,
            value: keyShown,
            onFocus: (e: Event) => (e.currentTarget as HTMLInputElement).select(),
          }),
          h('div', { class: 'actions' }, h(CopyButton, { text: keyShown, label: 'Copy key' })),
        )
      : null,
    h(
      'div',
      { class: 'field' },
      h('label', { for: `${id}-schema` }, 'Actions schema URL (GPT builder → Actions → Import from URL; Authentication: API key, custom header x-api-key)'),
      h('input', { id: `${id}-schema`, class: 'token', dir: 'ltr', readOnly: true, value: gpt.actions_openapi_url }),
      h('div', { class: 'actions' }, h(CopyButton, { text: gpt.actions_openapi_url, label: 'Copy schema URL' })),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: `${id}-instructions` }, 'Instructions for the GPT builder'),
      h('textarea', { id: `${id}-instructions`, readOnly: true, rows: 4, value: BUILDER_INSTRUCTIONS }),
      h('div', { class: 'actions' }, h(CopyButton, { text: BUILDER_INSTRUCTIONS, label: 'Copy instructions' })),
    ),
    onDone ? h('div', { class: 'actions' }, h('button', { type: 'button', onClick: onDone }, 'I have copied it')) : null,
  )
}

function CreateGpt({ onCreated }: { onCreated: (gpt: GptWithKey) => void }) {
  const apps = useLoad(() => api<ApplicationInfo[]>('GET', '/api/applications'))
  const agents = useLoad(() => api<{ name: string }[]>('GET', '/api/agents'))
  const [form, setForm] = useState<Form>(emptyForm)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const set = (key: 'name' | 'description' | 'instructions') => (value: string) => setForm({ ...form, [key]: value })
  const toggle = (apiName: string, on: boolean) =>
    setForm({ ...form, applications: on ? [...form.applications, apiName] : form.applications.filter((name) => name !== apiName) })

  const submit = async (event: Event) => {
    event.preventDefault()
    setErrors({})
    setError('')
    setBusy(true)
    try {
      const { agent_name, ...rest } = form
      const created = await api<GptWithKey>('POST', '/api/gpts', { ...rest, ...(agent_name ? { agent_name } : {}) })
      setForm(emptyForm())
      onCreated(created)
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) setErrors(e.fields)
      else if (e instanceof ApiError && e.status === 409) setErrors({ name: e.message })
      else setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  const applicationErrors = Object.entries(errors)
    .filter(([key]) => key.startsWith('applications'))
    .map(([, message]) => message)

  return h(
    'form',
    { class: 'card', onSubmit: submit, 'aria-labelledby': 'gpt-create-title' },
    h('h2', { id: 'gpt-create-title' }, 'Connect a GPT'),
    error ? h(Banner, { kind: 'error' }, error) : null,
    h(Field, {
      id: 'gpt-name',
      label: 'Name',
      value: form.name,
      onInput: set('name'),
      error: errors.name,
      hint: 'Lowercase letters, digits and hyphens',
      required: true,
    }),
    h(Field, { id: 'gpt-description', label: 'Description', value: form.description, onInput: set('description'), error: errors.description }),
    h(Field, {
      id: 'gpt-instructions',
      label: 'Instructions',
      value: form.instructions,
      onInput: set('instructions'),
      error: errors.instructions,
      hint: 'What the GPT is told by apps_list at the start of every session',
      multiline: true,
    }),
    h(
      'fieldset',
      null,
      h('legend', null, 'Applications'),
      h(
        'p',
        { class: 'hint' },
        "The GPT runs their operations with the organisation's shared credentials; applications with per-user credentials answer an error.",
      ),
      !apps.data
        ? h(Loading, { error: apps.error })
        : apps.data.length === 0
          ? h('p', null, 'No application yet.')
          : apps.data.map((app) =>
              h(
                'label',
                { class: 'check', key: app.api_name },
                h('input', {
                  type: 'checkbox',
                  checked: form.applications.includes(app.api_name),
                  onChange: (e: Event) => toggle(app.api_name, (e.currentTarget as HTMLInputElement).checked),
                }),
                ` ${app.title} (${app.api_name})${app.shared_security_info ? '' : ' — per-user credentials'}`,
              ),
            ),
      applicationErrors.length > 0 ? h('div', { class: 'field-error', role: 'alert' }, applicationErrors.join(' ')) : null,
    ),
    h(Select, {
      id: 'gpt-agent',
      label: 'Agent (optional: its live workflows and tools too)',
      value: form.agent_name,
      options: [['', 'None'], ...(agents.data ?? []).map((agent) => [agent.name, agent.name] as const)],
      onChange: (value) => setForm({ ...form, agent_name: value }),
    }),
    errors.agent_name ? h('div', { class: 'field-error', role: 'alert' }, errors.agent_name) : null,
    h(Select, {
      id: 'gpt-visibility',
      label: 'Visibility',
      value: form.visibility,
      options: VISIBILITY,
      onChange: (value) => setForm({ ...form, visibility: value as Form['visibility'] }),
    }),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Connect GPT')),
  )
}

export function GptAppsPage({ me }: { me: Me }) {
  const list = useLoad(() => api<Gpt[]>('GET', '/api/gpts/list'))
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [shown, setShown] = useState<GptWithKey | null>(null)
  const [open, setOpen] = useState<string | null>(null)
  const [confirming, setConfirming] = useState<string | null>(null)
  const admin = me.role === 'admin'

  const created = (gpt: GptWithKey) => {
    setShown(gpt)
    setNotice({ kind: 'success', text: `GPT "${gpt.name}" connected.` })
    list.reload()
  }
  const rotate = async (gpt: Gpt) => {
    try {
      setShown(await api<GptWithKey>('POST', `/api/gpts/${encodeURIComponent(gpt.name)}/rotate_key`))
      setNotice({ kind: 'success', text: `"${gpt.name}" has a new key; the old one no longer works.` })
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
  }
  const uninstall = async (gpt: Gpt) => {
    setConfirming(null)
    try {
      const done = await api<{ message: string }>('POST', `/api/gpt/${encodeURIComponent(gpt.name)}/uninstall`)
      setNotice({ kind: 'success', text: `${done.message}. Its key no longer works.` })
      if (shown?.name === gpt.name) setShown(null)
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
    list.reload()
  }

  return h(
    'section',
    null,
    h('h1', null, 'GPT apps'),
    h(
      'p',
      { class: 'muted' },
      "Custom GPTs connected to the organisation. A GPT asks for its instructions and operations (apps_list), then runs them (app_execute_action) with the organisation's shared credentials; its calls are in the history under its name.",
    ),
    h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, h('span', { dir: 'auto' }, notice.text)) : null),
    shown ? h(Connect, { gpt: shown, keyShown: shown.api_key, onDone: () => setShown(null) }) : null,
    !list.data
      ? h(Loading, { error: list.error })
      : list.data.length === 0
        ? h('p', null, admin ? 'No GPT is connected yet. Connect one below.' : 'No GPT is connected yet.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'sr-only' }, 'GPT apps'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Name', 'Applications', 'Agent', 'Visibility', 'Installed', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                list.data.map((gpt) => [
                  h(
                    'tr',
                    { key: gpt.name },
                    h(
                      'th',
                      { scope: 'row', 'data-label': 'Name' },
                      h('bdi', null, gpt.name),
                      gpt.description ? h('div', { class: 'muted', dir: 'auto' }, gpt.description) : null,
                    ),
                    h('td', { 'data-label': 'Applications' }, gpt.applications.join(', ') || h('span', { class: 'muted' }, '—')),
                    h('td', { 'data-label': 'Agent' }, gpt.agent_name ?? h('span', { class: 'muted' }, '—')),
                    h('td', { 'data-label': 'Visibility' }, gpt.visibility === 'public' ? 'Public' : 'Private'),
                    h('td', { 'data-label': 'Installed' }, h('time', { dateTime: gpt.installed_at }, formatDate(gpt.installed_at)), ` by ${gpt.installed_by}`),
                    h(
                      'td',
                      { 'data-label': 'Actions' },
                      confirming === gpt.name
                        ? h(ConfirmActions, { verb: 'Uninstall', name: gpt.name, onConfirm: () => uninstall(gpt), onKeep: () => setConfirming(null) })
                        : h(
                            'div',
                            { class: 'row-actions' },
                            h(
                              'button',
                              { type: 'button', 'aria-expanded': open === gpt.name, onClick: () => setOpen(open === gpt.name ? null : gpt.name) },
                              'Connect',
                              h('span', { class: 'sr-only' }, ` ${gpt.name}`),
                            ),
                            // Its calls are the organisation account's, which only admins' history shows.
                            admin
                              ? h(
                                  Link,
                                  { to: `/history?${new URLSearchParams({ client_source: gpt.name })}` },
                                  'Calls',
                                  h('span', { class: 'sr-only' }, ` of ${gpt.name}`),
                                )
                              : null,
                            admin
                              ? h('button', { type: 'button', onClick: () => rotate(gpt) }, 'Rotate key', h('span', { class: 'sr-only' }, ` ${gpt.name}`))
                              : null,
                            admin
                              ? h(
                                  'button',
                                  { type: 'button', class: 'danger', onClick: () => setConfirming(gpt.name) },
                                  'Uninstall',
                                  h('span', { class: 'sr-only' }, ` ${gpt.name}`),
                                )
                              : null,
                          ),
                    ),
                  ),
                  open === gpt.name
                    ? h(
                        'tr',
                        { key: `${gpt.name}-connect` },
                        h('td', { colSpan: 6 }, h(Connect, { gpt }), h('p', { class: 'hint', dir: 'auto' }, 'Its instructions: ', gpt.instructions || '—')),
                      )
                    : null,
                ]),
              ),
            ),
          ),
    admin ? h(CreateGpt, { onCreated: created }) : null,
  )
}
