// History: the recorded MCP tool calls and API actions (GET /api/interactions), newest first, with the API's filters
// and "Load more"; a conversation id opens that conversation's calls together (/history?conversation=…), and the
// text filters may come in the URL too (/history?client_source=… : the GPT apps page links a GPT's calls so).
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, Field, h, Select, useLoad } from '../ui.ts'
import { CallTable, ConversationView, type Interaction, type InteractionPage } from './history-calls.ts'

interface Filters {
  kind: string
  api_title: string
  tool_name: string
  client_source: string
  user_id: string
  from: string
  to: string
  outcome: string
}
interface User {
  id: string
  email: string
}

const NO_FILTERS: Filters = { kind: '', api_title: '', tool_name: '', client_source: '', user_id: '', from: '', to: '', outcome: '' }
const PAGE = 50
/**
 * A page examines a bounded number of calls, so with a rare filter one can come back empty while older calls remain:
 * up to this many pages are fetched in a row before asking the user to go on.
 */
const EMPTY_PAGES_IN_A_ROW = 5

/** `2026-11-24T09:30` from a datetime-local input, as the instant it names in the browser's time zone. */
const instant = (local: string) => (local ? new Date(local).toISOString() : '')

function queryOf(f: Filters, cursor: string | null): string {
  const q = new URLSearchParams({ limit: String(PAGE) })
  for (const key of ['kind', 'api_title', 'tool_name', 'client_source', 'user_id'] as const) if (f[key].trim()) q.set(key, f[key].trim())
  if (f.from) q.set('from', instant(f.from))
  if (f.to) q.set('to', instant(f.to))
  if (f.outcome) q.set('is_error', f.outcome === 'failed' ? 'true' : 'false')
  if (cursor) q.set('cursor', cursor)
  return q.toString()
}

const conversationInUrl = () => new URLSearchParams(location.search).get('conversation')

/** The filters a link named in the URL (kind, api_title, tool_name, client_source), over none. */
function filtersInUrl(): Filters {
  const q = new URLSearchParams(location.search)
  const named: Partial<Filters> = {}
  for (const key of ['kind', 'api_title', 'tool_name', 'client_source'] as const) {
    const value = q.get(key)
    if (value) named[key] = value
  }
  return { ...NO_FILTERS, ...named }
}

export function HistoryPage({ me }: { me: Me }) {
  const admin = me.role === 'admin'
  const users = useLoad(() => (admin ? api<User[]>('GET', '/api/users') : Promise.resolve([] as User[])))
  const [draft, setDraft] = useState<Filters>(filtersInUrl)
  const [applied, setApplied] = useState<Filters>(filtersInUrl)
  const [calls, setCalls] = useState<Interaction[] | null>(null)
  const [cursor, setCursor] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [status, setStatus] = useState('')
  const [conversation, setConversation] = useState<string | null>(conversationInUrl())

  /** The first page for `filters` (replacing the list), or the next pages after `from` (appending). */
  const load = async (filters: Filters, from: string | null) => {
    setBusy(true)
    setError('')
    setErrors({})
    setStatus(from ? 'Loading more calls…' : 'Loading calls…')
    try {
      const found: Interaction[] = []
      let next = from
      let empty = 0
      do {
        const page = await api<InteractionPage>('GET', `/api/interactions?${queryOf(filters, next)}`)
        found.push(...page.items)
        next = page.next_cursor
        empty = page.items.length === 0 ? empty + 1 : 0
      } while (found.length === 0 && next !== null && empty < EMPTY_PAGES_IN_A_ROW)
      const all = from ? [...(calls ?? []), ...found] : found
      setCalls(all)
      setCursor(next)
      setStatus(
        all.length === 0
          ? next
            ? 'No matching calls among the most recent ones searched: Load more searches further back.'
            : 'No calls match.'
          : `Showing ${all.length} ${all.length === 1 ? 'call' : 'calls'}${next ? '; more may be available' : ''}.`,
      )
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) {
        // The API names its query fields; the form's outcome is the API's is_error.
        const named: Record<string, string> = {}
        for (const [key, msg] of Object.entries(e.fields)) named[key === 'is_error' ? 'outcome' : key] = msg
        setErrors(named)
        setStatus('')
      } else setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => void load(applied, null), [])
  // Back and forward move between the list and a conversation opened from it.
  useEffect(() => {
    const follow = () => setConversation(conversationInUrl())
    addEventListener('popstate', follow)
    return () => removeEventListener('popstate', follow)
  }, [])

  const openConversation = (id: string | null) => {
    history.pushState(null, '', id === null ? '/history' : `/history?${new URLSearchParams({ conversation: id })}`)
    setConversation(id)
    scrollTo({ top: 0 })
  }
  const apply = (event: Event) => {
    event.preventDefault()
    if (draft.from && draft.to && draft.to < draft.from) return setErrors({ to: 'The end is before the start' })
    setApplied(draft)
    void load(draft, null)
  }
  const clear = () => {
    setDraft(NO_FILTERS)
    setApplied(NO_FILTERS)
    void load(NO_FILTERS, null)
  }
  const set = (key: keyof Filters) => (value: string) => setDraft({ ...draft, [key]: value })
  const text = (key: keyof Filters, label: string) => h(Field, { id: `history-${key}`, label, value: draft[key], onInput: set(key), error: errors[key] })

  if (conversation !== null) {
    return h(
      'section',
      null,
      h('h1', null, 'History'),
      h(ConversationView, { conversationId: conversation, showUser: admin, onClose: () => openConversation(null) }),
    )
  }
  return h(
    'section',
    null,
    h('h1', null, 'History'),
    h(
      'p',
      { class: 'muted' },
      admin
        ? 'Every MCP tool call and API action recorded, newest first. Open a call for its arguments and result, or a conversation for all its calls.'
        : 'Your MCP tool calls and API actions, newest first. Open a call for its arguments and result, or a conversation for all its calls.',
    ),
    h(
      'form',
      { class: 'card', onSubmit: apply, 'aria-labelledby': 'history-filters-title' },
      h('h2', { id: 'history-filters-title' }, 'Filters'),
      users.error ? h(Banner, { kind: 'warning' }, `The list of users could not be loaded: ${users.error}`) : null,
      h(
        'div',
        { class: 'filters' },
        h(Select, {
          id: 'history-kind',
          label: 'Kind',
          value: draft.kind,
          options: [
            ['', 'Any'],
            ['mcp_tool', 'MCP tool calls'],
            ['api_action', 'API actions'],
          ],
          onChange: set('kind'),
        }),
        text('api_title', 'Server or application'),
        text('tool_name', 'Tool or operation'),
        text('client_source', 'Client'),
        admin
          ? h(Select, {
              id: 'history-user',
              label: 'User',
              value: draft.user_id,
              options: [['', 'Anyone'], ...(users.data ?? []).map((u) => [u.id, u.email] as const)],
              onChange: set('user_id'),
            })
          : null,
        h(Select, {
          id: 'history-outcome',
          label: 'Outcome',
          value: draft.outcome,
          options: [
            ['', 'Any'],
            ['failed', 'Failed'],
            ['succeeded', 'Succeeded'],
          ],
          onChange: set('outcome'),
        }),
        h(Field, { id: 'history-from', label: 'From', type: 'datetime-local', value: draft.from, onInput: set('from'), error: errors.from }),
        h(Field, { id: 'history-to', label: 'To', type: 'datetime-local', value: draft.to, onInput: set('to'), error: errors.to }),
      ),
      errors.outcome || errors.kind || errors.user_id ? h(Banner, { kind: 'error' }, errors.outcome ?? errors.kind ?? errors.user_id) : null,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'primary', disabled: busy }, 'Apply filters'),
        h('button', { type: 'button', onClick: clear, disabled: busy }, 'Clear filters'),
      ),
    ),
    h(
      'div',
      null,
      error ? h(Banner, { kind: 'error' }, error) : null,
      h('p', { role: 'status', 'aria-live': 'polite', 'aria-busy': busy ? 'true' : undefined }, status),
    ),
    calls && calls.length > 0 ? h(CallTable, { calls, showUser: admin, onConversation: openConversation, caption: 'Recorded calls, newest first' }) : null,
    cursor
      ? h('div', { class: 'actions' }, h('button', { type: 'button', onClick: () => load(applied, cursor), disabled: busy }, busy ? 'Loading…' : 'Load more'))
      : null,
  )
}
