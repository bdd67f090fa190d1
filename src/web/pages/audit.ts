// The audit log (admins): newest first, filtered by action, actor and a date range as GET /api/audit allows
// (action, actor_id, since, until), paged with limit/offset behind a "Load more" button.
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import { Banner, Field, formatDate, h, Select, useLoad } from '../ui.ts'

interface AuditEntry {
  id: string
  at: string
  actor_id: string | null
  actor_email: string | null
  action: string
  target_type: string
  target_id: string
  details: Record<string, unknown>
}
interface User {
  id: string
  email: string
  name: string
}
interface Filters {
  action: string
  actor: string
  from: string
  to: string
}

const PAGE = 50
// The actions the server's modules write today (writeAudit calls); actions seen on the page are offered too.
const KNOWN_ACTIONS = [
  'user.create',
  'user.role_change',
  'user.rename',
  'user.password_reset',
  'user.deactivate',
  'user.reactivate',
  'token.create',
  'token.revoke',
  'token.revoke_all',
  'license.apply',
  'org_settings.update',
  'secrets_key.rotate',
  'workflow.approval',
  'workflow.cancel',
  'application.import',
  'context_type.create',
  'context_type.replace',
  'context_type.delete',
  'application.replace',
  'application.update',
  'application.delete',
  'application.credential_set',
  'application.credential_clear',
  'oauth.grant.create',
  'oauth.grant.revoke',
  'gpt.create',
  'gpt.rotate_key',
  'gpt.uninstall',
]
const NO_FILTERS: Filters = { action: '', actor: '', from: '', to: '' }

/** `YYYY-MM-DD` of a date input as the instant its local day starts; `days` later for an exclusive end. */
function dayStart(date: string, days = 0): string | null {
  const [y, m, d] = date.split('-').map(Number)
  if (!y || !m || !d) return null
  return new Date(y, m - 1, d + days).toISOString()
}

/** The query string of a page of entries; a date range turns into the API's since (inclusive) and until (exclusive). */
function queryOf(f: Filters, offset: number): string {
  const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) })
  if (f.action.trim()) q.set('action', f.action.trim())
  if (f.actor) q.set('actor_id', f.actor)
  const since = f.from ? dayStart(f.from) : null
  const until = f.to ? dayStart(f.to, 1) : null
  if (since) q.set('since', since)
  if (until) q.set('until', until)
  return q.toString()
}

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))

function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details ?? {})
  if (entries.length === 0) return h('span', { class: 'muted' }, '—')
  return h(
    'dl',
    { class: 'audit-details' },
    entries.map(([key, value]) => [h('dt', { key: `k-${key}` }, key), h('dd', { key: `v-${key}`, dir: 'auto' }, show(value))]),
  )
}

export function AuditPage() {
  const users = useLoad(() => api<User[]>('GET', '/api/users'))
  const [draft, setDraft] = useState<Filters>(NO_FILTERS)
  const [applied, setApplied] = useState<Filters>(NO_FILTERS)
  const [entries, setEntries] = useState<AuditEntry[] | null>(null)
  const [more, setMore] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [status, setStatus] = useState('')

  /** Loads the first page for `filters` (replacing the list) or the next one (appending). */
  const load = async (filters: Filters, append: boolean) => {
    setBusy(true)
    setError('')
    setErrors({})
    setStatus(append ? 'Loading more entries…' : 'Loading entries…')
    const offset = append ? (entries?.length ?? 0) : 0
    try {
      const page = await api<AuditEntry[]>('GET', `/api/audit?${queryOf(filters, offset)}`)
      const all = append ? [...(entries ?? []), ...page] : page
      setEntries(all)
      setMore(page.length === PAGE)
      setStatus(
        all.length === 0
          ? 'No entries match.'
          : `Showing ${all.length} ${all.length === 1 ? 'entry' : 'entries'}${page.length === PAGE ? '; more are available' : ''}.`,
      )
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) {
        // The API names its query fields; the form's are named after what people pick.
        const map: Record<string, string> = { action: 'action', actor_id: 'actor', since: 'from', until: 'to' }
        const next: Record<string, string> = {}
        for (const [key, msg] of Object.entries(e.fields)) next[map[key] ?? key] = msg
        setErrors(next)
        setStatus('')
      } else setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => void load(NO_FILTERS, false), [])

  const apply = (event: Event) => {
    event.preventDefault()
    if (draft.from && draft.to && draft.to < draft.from) {
      setErrors({ to: 'The end date is before the start date' })
      return
    }
    setApplied(draft)
    void load(draft, false)
  }
  const clear = () => {
    setDraft(NO_FILTERS)
    setApplied(NO_FILTERS)
    void load(NO_FILTERS, false)
  }
  const set = (key: keyof Filters) => (value: string) => setDraft({ ...draft, [key]: value })

  const actions = [...new Set([...KNOWN_ACTIONS, ...(entries ?? []).map((e) => e.action)])].sort()
  const actorOptions: (readonly [string, string])[] = [['', 'Anyone'], ...(users.data ?? []).map((u) => [u.id, u.email] as const)]
  const actorName = (e: AuditEntry) => e.actor_email ?? (e.actor_id ? e.actor_id : 'System')

  return h(
    'section',
    null,
    h('h1', null, 'Audit log'),
    h('p', { class: 'muted' }, 'Who changed users, tokens, licences, settings, approvals and runs, newest first.'),
    h(
      'form',
      { class: 'card', onSubmit: apply, 'aria-labelledby': 'audit-filters-title' },
      h('h2', { id: 'audit-filters-title' }, 'Filters'),
      users.error ? h(Banner, { kind: 'warning' }, `The list of users could not be loaded: ${users.error}`) : null,
      h(
        'div',
        { class: 'filters' },
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'audit-action' }, 'Action'),
          h('small', { class: 'hint', id: 'audit-action-hint' }, 'e.g. user.create; pick or type one'),
          h('input', {
            id: 'audit-action',
            name: 'audit-action',
            list: 'audit-actions',
            value: draft.action,
            autocomplete: 'off',
            'aria-invalid': errors.action ? 'true' : undefined,
            'aria-describedby': errors.action ? 'audit-action-hint audit-action-error' : 'audit-action-hint',
            onInput: (e: Event) => set('action')((e.currentTarget as HTMLInputElement).value),
          }),
          h(
            'datalist',
            { id: 'audit-actions' },
            actions.map((a) => h('option', { key: a, value: a })),
          ),
          h('div', { class: 'field-error', id: 'audit-action-error', role: 'alert' }, errors.action ?? ''),
        ),
        h(
          'div',
          null,
          h(Select, { id: 'audit-actor', label: 'Actor', value: draft.actor, options: actorOptions, onChange: set('actor') }),
          errors.actor ? h('div', { class: 'field-error', role: 'alert' }, errors.actor) : null,
        ),
        h(Field, { id: 'audit-from', label: 'From (date)', type: 'date', value: draft.from, onInput: set('from'), error: errors.from }),
        h(Field, { id: 'audit-to', label: 'To (date, inclusive)', type: 'date', value: draft.to, onInput: set('to'), error: errors.to }),
      ),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Apply filters'),
        h('button', { type: 'button', onClick: clear, disabled: busy }, 'Clear filters'),
      ),
    ),
    h(
      'div',
      { class: 'audit-status' },
      error ? h(Banner, { kind: 'error' }, error) : null,
      h('p', { role: 'status', 'aria-live': 'polite', 'aria-busy': busy ? 'true' : undefined }, status),
    ),
    !entries || entries.length === 0
      ? null
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'stack audit-table' },
            h('caption', { class: 'sr-only' }, 'Audit log entries, newest first'),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Time', 'Actor', 'Action', 'Target', 'Details'].map((c) => h('th', { scope: 'col', key: c }, c)),
              ),
            ),
            h(
              'tbody',
              null,
              entries.map((e) =>
                h(
                  'tr',
                  { key: e.id },
                  h('td', { 'data-label': 'Time' }, h('time', { dateTime: e.at }, formatDate(e.at))),
                  h('td', { 'data-label': 'Actor' }, actorName(e)),
                  h('td', { 'data-label': 'Action' }, h('code', null, e.action)),
                  h('td', { 'data-label': 'Target', class: 'audit-target' }, e.target_type, ' ', h('code', null, e.target_id)),
                  h('td', { 'data-label': 'Details' }, h(Details, { details: e.details })),
                ),
              ),
            ),
          ),
        ),
    more
      ? h('div', { class: 'actions' }, h('button', { type: 'button', onClick: () => load(applied, true), disabled: busy }, busy ? 'Loading…' : 'Load more'))
      : null,
  )
}
