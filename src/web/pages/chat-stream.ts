// The chat page's data: a turn sent to POST /api/chat and read as Server-Sent Events through fetch streaming, the
// events folded into turns as they come (text, tool calls with their results, the second model's side when comparing),
// and a saved thread turned back into the same turns when it is reopened.
import { ApiError, refreshAccessToken, session } from '../api.ts'

export interface ModelRef {
  provider: string
  model: string
}

export interface Approval {
  run_id: string
  agent: string
  workflow_name: string
  message: string
  url: string
}

export interface ToolPart {
  kind: 'tool'
  id: string
  name: string
  arguments: Record<string, unknown>
  meta?: Record<string, unknown>
  result?: { is_error: boolean; content: string; approval?: Approval }
}

export type Part = { kind: 'text'; text: string } | ToolPart

/** One model's answer to a turn. */
export interface Side {
  model: ModelRef
  parts: Part[]
  done: boolean
  error?: string
  stopReason?: string
}

export interface Turn {
  key: string
  user: string
  sides: Side[]
  suggestions: string[]
  /** The turn as a whole failed before any model answered (a refused request). */
  error?: string
  pending: boolean
}

export interface ChatRequestBody {
  message: string
  thread_id?: string
  agent_name?: string
  model?: ModelRef
  compare_with?: ModelRef
  mode?: 'live' | 'design' | 'mock'
  version?: 'live' | 'draft'
  preset_id?: string
}

export interface StreamEvent {
  event: string
  // biome-ignore lint/suspicious/noExplicitAny: each event's data has its own documented shape (x-sse-events)
  data: any
}

const sameModel = (a: ModelRef, b: ModelRef) => a.provider === b.provider && a.model === b.model

let turns = 0
export function newTurn(user: string, models: ModelRef[]): Turn {
  return { key: `turn-${++turns}`, user, sides: models.map((model) => ({ model, parts: [], done: false })), suggestions: [], pending: true }
}

/** The side an event belongs to: by its model, else the first. */
function sideOf(turn: Turn, model: ModelRef | undefined): Side {
  return (model && turn.sides.find((side) => sameModel(side.model, model))) || turn.sides[0]!
}

/** The turn after one event (a new object, so Preact redraws). */
export function applyEvent(turn: Turn, { event, data }: StreamEvent): Turn {
  const next: Turn = { ...turn, sides: turn.sides.map((side) => ({ ...side, parts: [...side.parts] })) }
  const side = sideOf(next, data?.model)
  if (event === 'delta') {
    const last = side.parts.at(-1)
    if (last?.kind === 'text') side.parts[side.parts.length - 1] = { kind: 'text', text: last.text + data.text }
    else side.parts.push({ kind: 'text', text: data.text })
  } else if (event === 'tool_call') {
    side.parts.push({ kind: 'tool', id: data.id, name: data.name, arguments: data.arguments ?? {}, ...(data._meta && { meta: data._meta }) })
  } else if (event === 'tool_result') {
    const index = side.parts.findLastIndex((part) => part.kind === 'tool' && part.id === data.id && !part.result)
    if (index !== -1) {
      const part = side.parts[index] as ToolPart
      side.parts[index] = { ...part, result: { is_error: data.is_error, content: data.content, ...(data.approval && { approval: data.approval }) } }
    }
  } else if (event === 'message') {
    side.done = true
    side.stopReason = data.stop_reason
  } else if (event === 'error') {
    side.done = true
    side.error = data.detail
  } else if (event === 'suggestions') {
    next.suggestions = data.items ?? []
  } else if (event === 'done') {
    next.pending = false
    for (const each of next.sides) each.done = true
  }
  return next
}

/** Text of the events in `buffer`, and what is left of an event not yet complete. */
export function splitEvents(buffer: string): { events: StreamEvent[]; rest: string } {
  const events: StreamEvent[] = []
  const blocks = buffer.split('\n\n')
  const rest = blocks.pop() ?? ''
  for (const block of blocks) {
    let name = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue
      if (line.startsWith('event: ')) name = line.slice(7)
      else if (line.startsWith('data: ')) data.push(line.slice(6))
    }
    if (data.length === 0) continue
    try {
      events.push({ event: name, data: JSON.parse(data.join('\n')) })
    } catch {
      // A malformed event is skipped; the turn still ends with `done` or the stream's end.
    }
  }
  return { events, rest }
}

/**
 * Sends a turn and calls `onEvent` for each event as it arrives. A refusal (4xx) is thrown as an ApiError with the
 * server's words; a 401 is retried once with a token refreshed from the session.
 */
export async function streamTurn(body: ChatRequestBody, onEvent: (event: StreamEvent) => void, signal?: AbortSignal): Promise<void> {
  const send = (token: string | null) =>
    fetch('/api/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
      signal,
    })
  let response: Response
  try {
    response = await send(session.token())
    if (response.status === 401) {
      const fresh = await refreshAccessToken()
      if (fresh) response = await send(fresh)
    }
  } catch {
    throw new ApiError(0, 'The server could not be reached')
  }
  if (!response.ok || !response.body) {
    const parsed = (await response.json().catch(() => null)) as { detail?: unknown } | null
    const detail = parsed?.detail
    const message =
      typeof detail === 'string'
        ? detail
        : Array.isArray(detail)
          ? String(detail[0]?.msg ?? 'The request was not valid')
          : `The server answered ${response.status}`
    throw new ApiError(response.status, message)
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    const { events, rest } = splitEvents(buffer + value)
    buffer = rest
    for (const event of events) onEvent(event)
  }
}

// A saved thread, as GET /api/threads/{id} answers it.
export interface ThreadMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string
  tool_calls: { id: string; name: string; arguments: Record<string, unknown> }[] | null
  tool_result: { tool_call_id: string; name: string; is_error: boolean } | null
  model: ModelRef | null
  // biome-ignore lint/suspicious/noExplicitAny: metadata is what chat kept (mode, comparison, suggestions)
  metadata: Record<string, any> | null
}

export interface SavedThread {
  id: string
  title: string | null
  agent_name: string | null
  messages: ThreadMessage[]
}

/** The thread's messages as turns: a user message starts one, what follows is its first model's answer. */
export function turnsOf(thread: SavedThread): Turn[] {
  const out: Turn[] = []
  for (const message of thread.messages) {
    if (message.role === 'user') {
      out.push({ ...newTurn(message.content, []), pending: false })
      continue
    }
    const turn = out.at(-1)
    if (!turn || message.role === 'system') continue
    if (turn.sides.length === 0) turn.sides.push({ model: message.model ?? { provider: '', model: '' }, parts: [], done: true })
    const side = turn.sides[0]!
    if (message.role === 'assistant') {
      if (message.content) {
        const last = side.parts.at(-1)
        if (last?.kind === 'text') last.text += `\n\n${message.content}`
        else side.parts.push({ kind: 'text', text: message.content })
      }
      for (const call of message.tool_calls ?? []) side.parts.push({ kind: 'tool', id: call.id, name: call.name, arguments: call.arguments })
      const meta = message.metadata
      if (meta?.error) side.error = meta.error
      if (meta?.suggestions) turn.suggestions = meta.suggestions
      if (meta?.comparison) {
        const c = meta.comparison
        const parts: Part[] = c.content ? [{ kind: 'text', text: c.content }] : []
        for (const call of c.tool_calls ?? [])
          parts.push({ kind: 'tool', id: call.id, name: call.name, arguments: call.arguments, result: { is_error: call.is_error, content: call.content } })
        turn.sides.push({ model: { provider: c.provider, model: c.model }, parts, done: true, ...(c.error && { error: c.error }) })
      }
    } else if (message.role === 'tool' && message.tool_result) {
      const part = side.parts.find((p): p is ToolPart => p.kind === 'tool' && p.id === message.tool_result!.tool_call_id && !p.result)
      if (part) {
        part.result = {
          is_error: message.tool_result.is_error,
          content: message.content,
          ...(message.metadata?.approval && { approval: message.metadata.approval }),
        }
        if (message.metadata?._meta) part.meta = message.metadata._meta
      }
    }
  }
  return out
}
