// Chat: the copilot, alone or as one of the agents the user may use (live; design and a mock of the draft for owners),
// streaming its answers with the tool calls as they happen; conversation starters and presets; follow-up chips; a
// second model side by side (with the warning that tools may run twice and tokens double); and the user's threads,
// listed and reopened. The page follows the user's language: right-to-left for Hebrew, Arabic, Persian and Urdu, each
// message laid out by its own text (dir=auto).
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import type { Me, UserSettings } from '../session.ts'
import { Banner, h, Loading, useLoad } from '../ui.ts'
import type { AgentSummary } from './agent-fields.ts'
import type { AppViewScope } from './chat-app-view.ts'
import { applyEvent, type ChatRequestBody, type ModelRef, newTurn, type SavedThread, streamTurn, type Turn, turnsOf } from './chat-stream.ts'
import { TurnView } from './chat-turn.ts'

interface Models {
  default: ModelRef
  providers: { provider: string; default_model: string | null }[]
}
interface Starter {
  name: string
  prompt: string
}
interface ThreadSummary {
  id: string
  title: string | null
  agent_name: string | null
  task_id: string | null
  updated_at: string
}
type Mode = AppViewScope['mode']
type Preset = { id: string; name: string; prompt: string; agent_name?: string }

export const COMPARE_WARNING = 'Comparing runs this turn on both models: tools may execute twice, and tokens double.'

/** What the page opens with: /chat?agent=&mode=&version=&thread= (the agent designer's "Try in mock mode" links here). */
function initialParams() {
  const params = new URLSearchParams(location.search)
  const mode = params.get('mode')
  return {
    agent: params.get('agent') ?? '',
    mode: (mode === 'mock' || mode === 'design' ? mode : 'live') as Mode,
    version: (params.get('version') === 'draft' ? 'draft' : 'live') as 'live' | 'draft',
    thread: params.get('thread'),
  }
}

function ModelPicker({
  id,
  label,
  models,
  value,
  onChange,
}: {
  id: string
  label: string
  models: Models
  value: ModelRef
  onChange: (model: ModelRef) => void
}) {
  return h(
    'div',
    { class: 'chat-model' },
    h('label', { for: `${id}-provider` }, label),
    h(
      'div',
      { class: 'chat-model-fields' },
      h(
        'select',
        {
          id: `${id}-provider`,
          value: value.provider,
          onChange: (e: Event) => {
            const provider = (e.currentTarget as HTMLSelectElement).value
            const found = models.providers.find((p) => p.provider === provider)
            onChange({ provider, model: found?.default_model ?? '' })
          },
        },
        models.providers.map((p) => h('option', { key: p.provider, value: p.provider }, p.provider)),
      ),
      h('input', {
        id: `${id}-model`,
        'aria-label': `${label}: model name`,
        value: value.model,
        placeholder: 'model name',
        onInput: (e: Event) => onChange({ ...value, model: (e.currentTarget as HTMLInputElement).value }),
      }),
    ),
  )
}

function ThreadList({
  threads,
  current,
  onOpen,
  onNew,
}: {
  threads: ThreadSummary[]
  current: string | null
  onOpen: (id: string) => void
  onNew: () => void
}) {
  const chats = threads.filter((thread) => thread.task_id === null)
  return h(
    'nav',
    { class: 'chat-threads', 'aria-label': 'Conversations' },
    h('button', { type: 'button', class: 'primary', onClick: onNew }, 'New chat'),
    chats.length === 0
      ? h('p', { class: 'muted' }, 'No conversations yet.')
      : h(
          'ul',
          null,
          chats.map((thread) =>
            h(
              'li',
              { key: thread.id },
              h(
                'button',
                { type: 'button', class: 'link', 'aria-current': thread.id === current ? 'true' : undefined, onClick: () => onOpen(thread.id) },
                h('span', { dir: 'auto' }, thread.title || 'Untitled'),
                thread.agent_name ? h('small', { class: 'muted' }, ` · ${thread.agent_name}`) : null,
              ),
            ),
          ),
        ),
  )
}

export function ChatPage({ settings }: { me: Me; settings: UserSettings }) {
  const initial = useRef(initialParams()).current
  const agents = useLoad(() => api<AgentSummary[]>('GET', '/api/agents'))
  const models = useLoad(() => api<Models>('GET', '/api/chat/models'))
  const starters = useLoad(() => api<Starter[]>('GET', '/api/chat/starters'))
  const threads = useLoad(() => api<ThreadSummary[]>('GET', '/api/threads?limit=100'))
  const [agent, setAgent] = useState(initial.agent)
  const [mode, setMode] = useState<Mode>(initial.mode)
  const [version, setVersion] = useState<'live' | 'draft'>(initial.version)
  const [threadId, setThreadId] = useState<string | null>(null)
  const [turns, setTurns] = useState<Turn[]>([])
  const [model, setModel] = useState<ModelRef | null>(null)
  const [comparing, setComparing] = useState(false)
  const [compareModel, setCompareModel] = useState<ModelRef | null>(null)
  const [presetId, setPresetId] = useState('')
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [notice, setNotice] = useState('')
  const end = useRef<HTMLLIElement>(null)

  useEffect(() => {
    if (models.data && !model) {
      setModel(models.data.default)
      const other = models.data.providers.find((p) => p.provider !== models.data!.default.provider && p.default_model)
      setCompareModel(other ? { provider: other.provider, model: other.default_model! } : { ...models.data.default, model: `${models.data.default.model}-2` })
    }
  }, [models.data])
  useEffect(() => {
    if (initial.thread) void openThread(initial.thread)
  }, [])
  useEffect(() => end.current?.scrollIntoView?.({ block: 'end' }), [turns])

  const role = agents.data?.find((a) => a.name === agent)?.role
  const owner = role === 'owner'
  const scope: AppViewScope = { agent: agent || null, mode, version: mode === 'design' ? 'draft' : mode === 'mock' ? version : 'live' }
  const presets = ((settings.prompt_presets ?? []) as Preset[]).filter((p) => !p.agent_name || p.agent_name === agent)

  const startNew = () => {
    setThreadId(null)
    setTurns([])
    setNotice('')
  }
  async function openThread(id: string) {
    try {
      const thread = await api<SavedThread>('GET', `/api/threads/${encodeURIComponent(id)}`)
      setThreadId(thread.id)
      setAgent(thread.agent_name ?? '')
      setTurns(turnsOf(thread))
      setNotice('')
    } catch (e) {
      setNotice(errorText(e))
    }
  }

  const send = async (message: string) => {
    if (!message.trim() || busy || !model) return
    const sides = comparing && compareModel ? [model, compareModel] : [model]
    const turn = newTurn(message, sides)
    const update = (change: (turn: Turn) => Turn) => setTurns((all) => all.map((t) => (t.key === turn.key ? change(t) : t)))
    setTurns((all) => [...all, turn])
    setText('')
    setBusy(true)
    const body: ChatRequestBody = {
      message,
      model,
      mode,
      ...(threadId ? { thread_id: threadId } : agent ? { agent_name: agent } : {}),
      ...(mode === 'mock' && { version }),
      ...(comparing && compareModel && { compare_with: compareModel }),
      ...(presetId && { preset_id: presetId }),
    }
    try {
      await streamTurn(body, (event) => {
        update((t) => applyEvent(t, event))
        if (event.event === 'done') setThreadId(event.data.thread_id)
      })
    } catch (e) {
      update((t) => ({ ...t, sides: t.sides.filter((side) => side.parts.length > 0), error: errorText(e) }))
    } finally {
      update((t) => ({ ...t, pending: false, sides: t.sides.map((side) => ({ ...side, done: true })) }))
      setBusy(false)
      setPresetId('')
      threads.reload()
    }
  }

  const changeAgent = (name: string) => {
    const ownsIt = agents.data?.some((a) => a.name === name && a.role === 'owner') ?? false
    setAgent(name)
    // Design and the draft are for owners (and need an agent): someone else's agent is chatted with live.
    if (mode === 'design' && !ownsIt) setMode('live')
    if (!ownsIt) setVersion('live')
    startNew()
  }
  const changeMode = (next: Mode) => {
    setMode(next)
    startNew()
  }

  if (!models.data || !model) return h(Loading, { error: models.error })
  const empty = turns.length === 0
  return h(
    'section',
    { class: 'chat', dir: settings.direction, lang: settings.language, 'aria-labelledby': 'chat-title', 'data-testid': 'chat' },
    h('h1', { id: 'chat-title' }, 'Chat'),
    h(
      'div',
      { class: 'chat-layout' },
      h(ThreadList, { threads: threads.data ?? [], current: threadId, onOpen: (id) => void openThread(id), onNew: startNew }),
      h(
        'div',
        { class: 'chat-main' },
        h(
          'div',
          { class: 'chat-controls' },
          h(
            'div',
            { class: 'field' },
            h('label', { for: 'chat-agent' }, 'Agent'),
            h(
              'select',
              {
                id: 'chat-agent',
                value: agent,
                disabled: threadId !== null,
                onChange: (e: Event) => changeAgent((e.currentTarget as HTMLSelectElement).value),
              },
              h('option', { value: '' }, 'Copilot (no agent)'),
              (agents.data ?? []).map((a) => h('option', { key: a.name, value: a.name }, a.name)),
            ),
          ),
          h(
            'div',
            { class: 'field' },
            h('label', { for: 'chat-mode' }, 'Mode'),
            h(
              'select',
              { id: 'chat-mode', value: mode, onChange: (e: Event) => changeMode((e.currentTarget as HTMLSelectElement).value as Mode) },
              h('option', { value: 'live' }, 'Live'),
              h('option', { value: 'mock' }, 'Mock (tools simulated)'),
              owner ? h('option', { value: 'design' }, 'Design (the draft)') : null,
            ),
          ),
          mode === 'mock' && owner
            ? h(
                'div',
                { class: 'field' },
                h('label', { for: 'chat-version' }, 'Version'),
                h(
                  'select',
                  { id: 'chat-version', value: version, onChange: (e: Event) => setVersion((e.currentTarget as HTMLSelectElement).value as 'live' | 'draft') },
                  h('option', { value: 'live' }, 'Live version'),
                  h('option', { value: 'draft' }, 'Draft'),
                ),
              )
            : null,
          h(ModelPicker, { id: 'chat-model', label: 'Model', models: models.data, value: model, onChange: setModel }),
          h(
            'label',
            { class: 'check chat-compare-toggle' },
            h('input', { type: 'checkbox', checked: comparing, onChange: (e: Event) => setComparing((e.currentTarget as HTMLInputElement).checked) }),
            'Compare with a second model',
          ),
          comparing && compareModel
            ? h(ModelPicker, { id: 'chat-compare', label: 'Second model', models: models.data, value: compareModel, onChange: setCompareModel })
            : null,
        ),
        comparing ? h(Banner, { kind: 'warning' }, h('span', { 'data-testid': 'compare-warning' }, COMPARE_WARNING)) : null,
        mode === 'mock'
          ? h(
              Banner,
              { kind: 'info' },
              h(
                'span',
                { 'data-testid': 'mock-banner' },
                `Mock mode${scope.version === 'draft' ? ' on the draft' : ''}: every tool is simulated — nothing is changed or recorded.`,
              ),
            )
          : null,
        mode === 'design' ? h(Banner, { kind: 'warning' }, 'Design mode: the copilot’s tools change this agent’s draft.') : null,
        notice ? h(Banner, { kind: 'error' }, notice) : null,
        h(
          'ol',
          { class: 'chat-turns', 'aria-live': 'polite', 'aria-label': 'Conversation' },
          turns.map((turn, index) => h(TurnView, { key: turn.key, turn, scope, last: index === turns.length - 1, onSuggestion: (s) => void send(s) })),
          h('li', { ref: end, class: 'chat-end', 'aria-hidden': 'true' }),
        ),
        empty && (starters.data?.length ?? 0) > 0
          ? h(
              'div',
              { class: 'chat-chips', role: 'group', 'aria-label': 'Conversation starters' },
              starters.data!.map((s) =>
                h('button', { key: s.name, type: 'button', class: 'chip-button', dir: 'auto', onClick: () => void send(s.prompt) }, s.name),
              ),
            )
          : null,
        h(
          'form',
          {
            class: 'chat-composer',
            onSubmit: (e: Event) => {
              e.preventDefault()
              void send(text)
            },
          },
          presets.length > 0
            ? h(
                'div',
                { class: 'field' },
                h('label', { for: 'chat-preset' }, 'Preset'),
                h(
                  'select',
                  { id: 'chat-preset', value: presetId, onChange: (e: Event) => setPresetId((e.currentTarget as HTMLSelectElement).value) },
                  h('option', { value: '' }, 'None'),
                  presets.map((p) => h('option', { key: p.id, value: p.id }, p.name)),
                ),
              )
            : null,
          h(
            'div',
            { class: 'field chat-input' },
            h('label', { for: 'chat-message' }, 'Message'),
            h('textarea', {
              id: 'chat-message',
              dir: 'auto',
              rows: 3,
              value: text,
              onInput: (e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value),
              onKeyDown: (e: KeyboardEvent) => {
                if (e.key === 'Enter' && !e.shiftKey) {
                  e.preventDefault()
                  void send(text)
                }
              },
            }),
          ),
          h('button', { type: 'submit', class: 'primary', disabled: busy || !text.trim() }, busy ? 'Answering…' : 'Send'),
        ),
      ),
    ),
  )
}
