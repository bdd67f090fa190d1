// Settings: the caller's own (language, theme, prompt presets), their password, the organisation's recording mode for
// admins, and personal API tokens (created, shown once, revoked).
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me, UserSettings } from '../session.ts'
import { Banner, CopyButton, Field, formatDate, h, Loading, Select, useLoad } from '../ui.ts'
import { ChangePassword } from './change-password.ts'

type Preset = UserSettings['prompt_presets'][number]
interface ApiToken {
  id: string
  name: string
  kind: 'org' | 'pat'
  hint: string
  created_at: string
  revoked_at: string | null
}
interface OrgSettings {
  workflow_recording: 'full' | 'headers_only' | 'disabled'
}
type Notice = { kind: 'success' | 'error' | 'info'; text: string } | null

const LANGUAGES = [
  ['en', 'English (en)'],
  ['he', 'עברית (he)'],
  ['ar', 'العربية (ar)'],
  ['fa', 'فارسی (fa)'],
  ['ur', 'اردو (ur)'],
  ['ja', '日本語 (ja)'],
  ['zh', '中文 (zh)'],
  ['ko', '한국어 (ko)'],
  ['de', 'Deutsch (de)'],
  ['fr', 'Français (fr)'],
  ['es', 'Español (es)'],
  ['it', 'Italiano (it)'],
  ['pt-BR', 'Português do Brasil (pt-BR)'],
  ['nl', 'Nederlands (nl)'],
  ['pl', 'Polski (pl)'],
  ['ru', 'Русский (ru)'],
  ['uk', 'Українська (uk)'],
  ['tr', 'Türkçe (tr)'],
  ['hi', 'हिन्दी (hi)'],
] as const
const THEMES = [
  ['system', 'Follow the system'],
  ['light', 'Light'],
  ['dark', 'Dark'],
] as const
const RECORDING = [
  ['full', 'Full (headers and bodies)'],
  ['headers_only', 'Headers only'],
  ['disabled', 'Disabled'],
] as const

/** crypto.randomUUID needs a secure context; a plain-http LAN install still gets unique enough preset ids. */
const newId = () => globalThis.crypto?.randomUUID?.() ?? `p-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`

// The console's own sentences are English: dir=auto keeps their punctuation and quotes in place on a right-to-left page.
const banner = (notice: Notice) =>
  h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, h('span', { dir: 'auto' }, notice.text)) : null)

function PersonalSettings({ settings, onSaved }: { settings: UserSettings; onSaved: () => Promise<unknown> | void }) {
  const [language, setLanguage] = useState(settings.language)
  const [theme, setTheme] = useState(settings.dark_mode === 'dark' || settings.dark_mode === 'light' ? settings.dark_mode : 'system')
  const [presets, setPresets] = useState<Preset[]>(settings.prompt_presets ?? [])
  const [draft, setDraft] = useState({ name: '', prompt: '' })
  const [draftErrors, setDraftErrors] = useState<Record<string, string>>({})
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [notice, setNotice] = useState<Notice>(null)
  const [busy, setBusy] = useState(false)
  const languages = LANGUAGES.some(([code]) => code === language) ? LANGUAGES : [[language, language] as const, ...LANGUAGES]

  const addPreset = () => {
    const missing: Record<string, string> = {}
    if (!draft.name.trim()) missing.name = 'Give the preset a name'
    if (!draft.prompt.trim()) missing.prompt = 'Write the prompt the preset inserts'
    setDraftErrors(missing)
    if (Object.keys(missing).length > 0) return
    setPresets([...presets, { id: newId(), name: draft.name.trim(), prompt: draft.prompt }])
    setDraft({ name: '', prompt: '' })
  }

  const save = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setErrors({})
    setNotice(null)
    try {
      const res = await api<{ message: string; updated: boolean }>('POST', '/api/user/settings/update', { language, dark_mode: theme, prompt_presets: presets })
      setNotice({ kind: res.updated ? 'success' : 'info', text: res.message })
      // The same refresh as after sign-in: reloads the settings and applies lang, dir and theme to <html> at once.
      await onSaved()
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) {
        setErrors(e.fields)
        setNotice({ kind: 'error', text: e.message })
      } else setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(false)
    }
  }

  const presetError = Object.entries(errors).find(([key]) => key.startsWith('prompt_presets'))?.[1]
  return h(
    'form',
    { class: 'card', onSubmit: save, 'aria-labelledby': 'personal-title' },
    h('h2', { id: 'personal-title' }, 'Your settings'),
    banner(notice),
    h(
      'div',
      { class: 'filters' },
      h(
        'div',
        null,
        h(Select, { id: 'settings-language', label: 'Language', value: language, options: languages, onChange: setLanguage }),
        errors.language ? h('div', { class: 'field-error', role: 'alert' }, errors.language) : null,
      ),
      h(
        'div',
        null,
        h(Select, { id: 'settings-theme', label: 'Dark mode', value: theme, options: THEMES, onChange: setTheme }),
        errors.dark_mode ? h('div', { class: 'field-error', role: 'alert' }, errors.dark_mode) : null,
      ),
    ),
    h(
      'fieldset',
      null,
      h('legend', null, 'Prompt presets'),
      presets.length === 0
        ? h('p', { class: 'muted' }, 'No presets yet.')
        : h(
            'ul',
            { class: 'presets' },
            presets.map((p) =>
              h(
                'li',
                { key: p.id },
                h('div', null, h('strong', { dir: 'auto' }, p.name), h('p', { class: 'muted preset-prompt', dir: 'auto' }, p.prompt)),
                h(
                  'button',
                  { type: 'button', class: 'danger', onClick: () => setPresets(presets.filter((x) => x.id !== p.id)) },
                  'Remove',
                  h('span', { class: 'sr-only' }, ` preset ${p.name}`),
                ),
              ),
            ),
          ),
      presetError ? h('div', { class: 'field-error', role: 'alert' }, presetError) : null,
      h(Field, { id: 'preset-name', label: 'New preset name', value: draft.name, onInput: (name) => setDraft({ ...draft, name }), error: draftErrors.name }),
      h(Field, {
        id: 'preset-prompt',
        label: 'New preset prompt',
        value: draft.prompt,
        onInput: (prompt) => setDraft({ ...draft, prompt }),
        error: draftErrors.prompt,
        multiline: true,
      }),
      h('button', { type: 'button', onClick: addPreset }, 'Add preset'),
      h('p', { class: 'hint' }, 'Added and removed presets are kept when you save.'),
    ),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Save settings')),
  )
}

function OrgRecording() {
  const org = useLoad(() => api<OrgSettings>('GET', '/api/org/settings'))
  const [mode, setMode] = useState<string | null>(null)
  const [notice, setNotice] = useState<Notice>(null)
  const [busy, setBusy] = useState(false)
  if (!org.data) return h('section', { class: 'card' }, h('h2', null, 'Organisation'), h(Loading, { error: org.error }))
  const value = mode ?? org.data.workflow_recording
  const save = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    try {
      const res = await api<OrgSettings>('PUT', '/api/org/settings', { workflow_recording: value })
      setNotice({
        kind: 'success',
        text: `Workflow recording is now "${RECORDING.find(([v]) => v === res.workflow_recording)?.[1] ?? res.workflow_recording}".`,
      })
      setMode(null)
      org.reload()
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    } finally {
      setBusy(false)
    }
  }
  return h(
    'form',
    { class: 'card', onSubmit: save, 'aria-labelledby': 'org-title' },
    h('h2', { id: 'org-title' }, 'Organisation (admins)'),
    banner(notice),
    h(Select, { id: 'org-recording', label: 'Workflow recording', value, options: RECORDING, onChange: setMode }),
    h('p', { class: 'hint' }, 'What workflow runs keep of the HTTP calls they make.'),
    h('button', { type: 'submit', disabled: busy }, 'Save recording setting'),
  )
}

function ApiTokens() {
  const tokens = useLoad(() => api<ApiToken[]>('GET', '/api/auth/tokens'))
  const [name, setName] = useState('')
  const [nameError, setNameError] = useState<string | undefined>(undefined)
  const [created, setCreated] = useState<(ApiToken & { token: string }) | null>(null)
  const [notice, setNotice] = useState<Notice>(null)

  const create = async (event: Event) => {
    event.preventDefault()
    setNameError(undefined)
    setNotice(null)
    try {
      setCreated(await api<ApiToken & { token: string }>('POST', '/api/auth/tokens', { name: name.trim() }))
      setName('')
      tokens.reload()
    } catch (e) {
      if (e instanceof ApiError && e.fields.name) setNameError(e.fields.name)
      else setNotice({ kind: 'error', text: errorText(e) })
    }
  }
  const revoke = async (token: ApiToken) => {
    try {
      await api('DELETE', `/api/auth/tokens/${encodeURIComponent(token.id)}`)
      setNotice({ kind: 'success', text: `Token "${token.name}" was revoked; it stops working at once.` })
      if (created?.id === token.id) setCreated(null)
    } catch (e) {
      setNotice({ kind: 'error', text: errorText(e) })
    }
    tokens.reload()
  }

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'tokens-title' },
    h('h2', { id: 'tokens-title' }, 'Personal API tokens'),
    h('p', { class: 'hint' }, 'A token acts as you on the API (Authorization: Bearer …). Revoke it when a device or script no longer needs it.'),
    banner(notice),
    created
      ? h(
          'div',
          { class: 'banner banner-warning', role: 'status' },
          h('p', null, h('strong', null, 'Copy it now: it will not be shown again.')),
          h(
            'div',
            { class: 'field' },
            h('label', { for: 'created-token' }, 'New token ', h('bdi', null, `"${created.name}"`)),
            h('input', {
              id: 'created-token',
              class: 'token',
              dir: 'ltr',
              readOnly: true,
              value: created.token,
              onFocus: (e: Event) => (e.currentTarget as HTMLInputElement).select(),
            }),
          ),
          h(
            'div',
            { class: 'actions' },
            h(CopyButton, { text: created.token, label: 'Copy token' }),
            h('button', { type: 'button', onClick: () => setCreated(null) }, 'I have copied it'),
          ),
        )
      : null,
    h(
      'form',
      { onSubmit: create, class: 'inline-form' },
      h(Field, { id: 'token-name', label: 'Token name', value: name, onInput: setName, error: nameError, hint: 'e.g. laptop, CI', required: true }),
      h('button', { type: 'submit', class: 'primary' }, 'Create token'),
    ),
    !tokens.data
      ? h(Loading, { error: tokens.error })
      : tokens.data.length === 0
        ? h('p', null, 'You have no tokens.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'sr-only' }, 'Your API tokens'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Name', 'Ends in', 'Created', 'Revoked', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                tokens.data.map((t) =>
                  h(
                    'tr',
                    { key: t.id },
                    h('th', { scope: 'row', 'data-label': 'Name' }, h('bdi', null, t.name), t.kind === 'org' ? ' (organisation)' : ''),
                    h('td', { 'data-label': 'Ends in', class: 'token' }, h('bdi', { dir: 'ltr' }, `…${t.hint}`)),
                    h('td', { 'data-label': 'Created' }, formatDate(t.created_at)),
                    h('td', { 'data-label': 'Revoked' }, t.revoked_at ? formatDate(t.revoked_at) : 'No'),
                    h(
                      'td',
                      { 'data-label': 'Actions' },
                      t.revoked_at
                        ? '—'
                        : h('button', { type: 'button', class: 'danger', onClick: () => revoke(t) }, 'Revoke', h('span', { class: 'sr-only' }, ` ${t.name}`)),
                    ),
                  ),
                ),
              ),
            ),
          ),
  )
}

export function SettingsPage({ me, settings, onSaved }: { me: Me; settings: UserSettings; onSaved: () => Promise<unknown> | void }) {
  return h(
    'section',
    null,
    h('h1', null, 'Settings'),
    h(PersonalSettings, { settings, onSaved }),
    h(ChangePassword, null),
    me.role === 'admin' ? h(OrgRecording, null) : null,
    h(ApiTokens, null),
  )
}
