// Recorded calls as the History page shows them: a table whose rows open to their arguments and result, and a
// conversation's calls together, oldest first.
import { useEffect, useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import { Banner, formatDate, h, Loading } from '../ui.ts'

/** One item of GET /api/interactions. */
export interface Interaction {
  id: string
  kind: 'mcp_tool' | 'api_action'
  api_title: string
  tool_name: string
  mcp_server_name: string | null
  client_source: string | null
  conversation_id: string | null
  user_id: string
  user_email: string
  user_input: string | null
  arguments: unknown
  result: unknown
  is_error: boolean
  status: number | null
  duration_seconds: number | null
  created_at: string
}

export interface InteractionPage {
  items: Interaction[]
  next_cursor: string | null
}

const KIND_LABELS = { mcp_tool: 'MCP tool', api_action: 'API action' } as const

const pretty = (value: unknown) => JSON.stringify(value, null, 2)

function duration(seconds: number | null): string {
  if (seconds === null) return '—'
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`
}

function outcome(call: Interaction): string {
  const status = call.status === null ? '' : ` (${call.status})`
  return `${call.is_error ? 'Failed' : 'OK'}${status}`
}

function CallDetails({ call }: { call: Interaction }) {
  return h(
    'div',
    { class: 'call-details' },
    call.user_input ? h('div', null, h('h4', null, 'User message'), h('p', { dir: 'auto', class: 'user-input' }, call.user_input)) : null,
    h('div', null, h('h4', null, 'Arguments'), h('pre', { class: 'data', 'data-testid': 'call-arguments' }, pretty(call.arguments))),
    h('div', null, h('h4', null, 'Result'), h('pre', { class: 'data', 'data-testid': 'call-result' }, pretty(call.result))),
    h('p', { class: 'muted' }, `Interaction ${call.id}${call.client_source ? ` · client ${call.client_source}` : ''}`),
  )
}

interface CallTableProps {
  calls: readonly Interaction[]
  /** Show who made each call (admins see everyone's). */
  showUser: boolean
  /** Opens a conversation; without it conversation ids are plain text. */
  onConversation?: (conversationId: string) => void
  caption: string
}

/** Calls in the order given; each row's button opens its arguments and result below it. */
export function CallTable({ calls, showUser, onConversation, caption }: CallTableProps) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set())
  const toggle = (id: string) => {
    const next = new Set(open)
    if (!next.delete(id)) next.add(id)
    setOpen(next)
  }
  const columns = ['', 'Time', ...(showUser ? ['User'] : []), 'Server or application', 'Tool or operation', 'Conversation', 'Duration', 'Outcome']
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'stack calls' },
      h('caption', { class: 'sr-only' }, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          columns.map((c, i) => h('th', { scope: 'col', key: i }, c)),
        ),
      ),
      h(
        'tbody',
        null,
        calls.flatMap((call) => {
          const expanded = open.has(call.id)
          const detailsId = `call-${call.id}`
          const row = h(
            'tr',
            { key: call.id, class: call.is_error ? 'failed' : undefined },
            h(
              'td',
              null,
              h(
                'button',
                { type: 'button', class: 'link', 'aria-expanded': expanded ? 'true' : 'false', 'aria-controls': detailsId, onClick: () => toggle(call.id) },
                expanded ? 'Hide' : 'Details',
                h('span', { class: 'sr-only' }, ` of ${call.tool_name} at ${formatDate(call.created_at)}`),
              ),
            ),
            h('td', { 'data-label': 'Time' }, h('time', { dateTime: call.created_at }, formatDate(call.created_at))),
            showUser ? h('td', { 'data-label': 'User' }, call.user_email) : null,
            h('td', { 'data-label': 'Server or application' }, call.api_title, h('br', null), h('small', { class: 'muted' }, KIND_LABELS[call.kind])),
            h('td', { 'data-label': 'Tool or operation' }, h('code', null, call.tool_name)),
            h(
              'td',
              { 'data-label': 'Conversation' },
              call.conversation_id === null
                ? '—'
                : onConversation
                  ? h(
                      'button',
                      { type: 'button', class: 'link conversation', onClick: () => onConversation(call.conversation_id!) },
                      h('span', { class: 'sr-only' }, 'Open conversation '),
                      call.conversation_id,
                    )
                  : h('code', null, call.conversation_id),
            ),
            h('td', { 'data-label': 'Duration' }, duration(call.duration_seconds)),
            h('td', { 'data-label': 'Outcome' }, outcome(call)),
          )
          if (!expanded) return [row]
          return [
            row,
            h('tr', { key: `${call.id}-details`, id: detailsId, class: 'details-row' }, h('td', { colSpan: columns.length }, h(CallDetails, { call }))),
          ]
        }),
      ),
    ),
  )
}

/** The most calls a conversation view loads (pages of 200). */
const CONVERSATION_CAP = 1000

/** Every call of one conversation the caller may see, oldest first. */
export function ConversationView({ conversationId, showUser, onClose }: { conversationId: string; showUser: boolean; onClose: () => void }) {
  const [calls, setCalls] = useState<Interaction[] | null>(null)
  const [cut, setCut] = useState(false)
  const [error, setError] = useState('')
  useEffect(() => {
    let live = true
    setCalls(null)
    setError('')
    ;(async () => {
      const found: Interaction[] = []
      let cursor: string | null = null
      do {
        const query = new URLSearchParams({ conversation_id: conversationId, limit: '200', ...(cursor && { cursor }) })
        const page: InteractionPage = await api<InteractionPage>('GET', `/api/interactions?${query}`)
        found.push(...page.items)
        cursor = page.next_cursor
      } while (cursor !== null && found.length < CONVERSATION_CAP)
      if (live) {
        setCut(cursor !== null)
        setCalls(found.reverse())
      }
    })().catch((e) => live && setError(errorText(e)))
    return () => void (live = false)
  }, [conversationId])
  return h(
    'section',
    { class: 'card conversation-view', 'aria-labelledby': 'conversation-title' },
    h('h2', { id: 'conversation-title' }, 'Conversation ', h('code', null, conversationId)),
    h('div', { class: 'actions' }, h('button', { type: 'button', onClick: onClose }, 'Back to all calls')),
    error ? h(Banner, { kind: 'error' }, error) : null,
    calls === null
      ? error
        ? null
        : h(Loading, null)
      : h(
          'div',
          null,
          h(
            'p',
            { role: 'status' },
            `${calls.length} ${calls.length === 1 ? 'call' : 'calls'}, oldest first${cut ? ` (the latest ${CONVERSATION_CAP})` : ''}.`,
          ),
          h(CallTable, { calls, showUser, caption: `The calls of conversation ${conversationId}, oldest first` }),
        ),
  )
}
