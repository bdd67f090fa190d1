// Small fake model servers on 127.0.0.1 that speak the OpenAI chat-completions and Anthropic messages wire formats,
// streamed (Server-Sent Events, one event per write) when the request asks for `stream: true`, whole JSON otherwise.
import type { Server } from 'bun'

export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: any
}

/** A tool call the fake model makes; its arguments text is cut into `pieces` deltas (default 5). */
export interface FakeToolCall {
  id: string
  name: string
  /** Sent as is: a JSON text (valid or not) the test chooses. */
  arguments: string
  pieces?: number
}

/**
 * What the next request gets:
 * - a turn: `reply` text (in `pieces` deltas, default 3) and/or `toolCalls` (interleaved when `interleave`), with
 *   `usage` (default 3 in / 2 out; null sends none) and a `stop` reason in the provider's own words;
 *   `stallAfter` n events, the stream then goes silent until release(); `errorAfter` n events, an error event comes;
 * - an error status with the provider's error body;
 * - a raw response; or no answer at all (`hang`).
 */
export type Behaviour =
  | {
      reply?: string
      pieces?: number
      toolCalls?: FakeToolCall[]
      interleave?: boolean
      usage?: { input: number; output: number } | null
      stop?: string
      stallAfter?: number
      errorAfter?: { after: number; message: string; type?: string }
    }
  | { status: number; message: string; type?: string; headers?: Record<string, string> }
  | { raw: () => Response }
  | { hang: true }

type Turn = Extract<Behaviour, { reply?: string }>

export interface FakeServer {
  /** What AGENTBOX_*_BASE_URL should be: OpenAI clients expect the /v1 prefix in it, Anthropic's add it themselves. */
  readonly url: string
  readonly requests: RecordedRequest[]
  /** Behaviours are used in order; the last one repeats. */
  behave(...behaviours: Behaviour[]): void
  /** Resolves the next time a request arrives (for tests that hold a run in flight). */
  nextRequest(): Promise<RecordedRequest>
  /** Lets every hanging request (or stalled stream) finish; a hanging request answers with `reply`. */
  release(reply?: string): void
  close(): Promise<void>
}

type Format = 'openai' | 'anthropic'

function split(text: string, pieces: number): string[] {
  if (text === '') return []
  const size = Math.max(1, Math.ceil(text.length / pieces))
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

function successBody(format: Format, model: string, text: string) {
  if (format === 'openai') {
    return {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    }
  }
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 2 },
  }
}

function errorBody(format: Format, message: string, type: string) {
  return format === 'openai' ? { error: { message, type, param: null, code: type } } : { type: 'error', error: { type, message } }
}

/** The turn as the provider's stream events (each one SSE event), in wire order. */
function streamEvents(format: Format, model: string, turn: Turn): string[] {
  const usage = turn.usage === undefined ? { input: 3, output: 2 } : turn.usage
  const calls = turn.toolCalls ?? []
  const pieces = calls.map((call) => split(call.arguments, call.pieces ?? 5))
  // Argument pieces in wire order: call by call, or round-robin when the calls interleave.
  const order: { call: number; piece: string }[] = []
  if (turn.interleave) {
    for (let round = 0; round < Math.max(0, ...pieces.map((p) => p.length)); round++)
      for (const [call, list] of pieces.entries()) if (round < list.length) order.push({ call, piece: list[round]! })
  } else for (const [call, list] of pieces.entries()) for (const piece of list) order.push({ call, piece })

  if (format === 'openai') {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    const events = [chunk({ role: 'assistant', content: '' })]
    for (const text of split(turn.reply ?? '', turn.pieces ?? 3)) events.push(chunk({ content: text }))
    for (const [index, call] of calls.entries())
      if (!turn.interleave) {
        events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
        for (const { piece } of order.filter((o) => o.call === index)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
      }
    if (turn.interleave) {
      for (const [index, call] of calls.entries())
        events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
      for (const { call, piece } of order) events.push(chunk({ tool_calls: [{ index: call, function: { arguments: piece } }] }))
    }
    events.push(chunk({}, turn.stop ?? (calls.length ? 'tool_calls' : 'stop')))
    if (usage)
      events.push(
        `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } })}\n\n`,
      )
    events.push('data: [DONE]\n\n')
    return events
  }

  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const events = [
    event('message_start', {
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage?.input ?? 0, output_tokens: 1 },
      },
    }),
  ]
  let block = 0
  if (turn.reply) {
    events.push(event('content_block_start', { index: block, content_block: { type: 'text', text: '' } }))
    for (const text of split(turn.reply, turn.pieces ?? 3)) events.push(event('content_block_delta', { index: block, delta: { type: 'text_delta', text } }))
    events.push(event('content_block_stop', { index: block }))
    block++
  }
  // The Messages API sends one content block at a time, so its tool calls never interleave.
  for (const [index, call] of calls.entries()) {
    events.push(event('content_block_start', { index: block, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }))
    for (const { piece } of order.filter((o) => o.call === index))
      events.push(event('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: piece } }))
    events.push(event('content_block_stop', { index: block }))
    block++
  }
  events.push(
    event('message_delta', {
      delta: { stop_reason: turn.stop ?? (calls.length ? 'tool_use' : 'end_turn'), stop_sequence: null },
      usage: usage ? { output_tokens: usage.output } : { output_tokens: 0 },
    }),
  )
  events.push(event('message_stop', {}))
  return events
}

function streamErrorEvent(format: Format, message: string, type: string): string {
  return format === 'openai'
    ? `data: ${JSON.stringify({ error: { message, type, param: null, code: null } })}\n\n`
    : `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`
}

export function startFakeServer(format: Format): FakeServer {
  const requests: RecordedRequest[] = []
  let behaviours: Behaviour[] = [{ reply: 'fake reply' }]
  let waiters: ((r: RecordedRequest) => void)[] = []
  let hanging: ((reply: string) => void)[] = []
  const expectedPath = format === 'openai' ? '/v1/chat/completions' : '/v1/messages'

  function streamed(model: string, turn: Turn): Response {
    const events = streamEvents(format, model, turn)
    const encoder = new TextEncoder()
    return new Response(
      new ReadableStream({
        async start(controller) {
          for (const [n, text] of events.entries()) {
            if (turn.stallAfter !== undefined && n === turn.stallAfter) await new Promise<string>((resolve) => hanging.push(resolve))
            if (turn.errorAfter && n === turn.errorAfter.after) {
              controller.enqueue(encoder.encode(streamErrorEvent(format, turn.errorAfter.message, turn.errorAfter.type ?? 'api_error')))
              break
            }
            controller.enqueue(encoder.encode(text))
          }
          try {
            controller.close()
          } catch {
            // The client went away first.
          }
        },
      }),
      { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } },
    )
  }

  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      const text = await request.text()
      const recorded = { method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers), body: text ? JSON.parse(text) : null }
      requests.push(recorded)
      for (const resolve of waiters) resolve(recorded)
      waiters = []
      if (url.pathname !== expectedPath) return Response.json(errorBody(format, `Unknown path ${url.pathname}`, 'not_found_error'), { status: 404 })
      const behaviour = behaviours.length > 1 ? behaviours.shift()! : behaviours[0]!
      const model = recorded.body?.model ?? 'unknown'
      const stream = recorded.body?.stream === true
      if ('raw' in behaviour) return behaviour.raw()
      if ('hang' in behaviour) {
        const reply = await new Promise<string>((resolve) => hanging.push(resolve))
        return stream ? streamed(model, { reply }) : Response.json(successBody(format, model, reply))
      }
      if ('status' in behaviour)
        return Response.json(errorBody(format, behaviour.message, behaviour.type ?? 'api_error'), { status: behaviour.status, headers: behaviour.headers })
      return stream ? streamed(model, behaviour) : Response.json(successBody(format, model, behaviour.reply ?? ''))
    },
  })

  return {
    url: format === 'openai' ? `http://127.0.0.1:${server.port}/v1` : `http://127.0.0.1:${server.port}`,
    requests,
    behave(...next) {
      behaviours = next
    },
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    release(reply = 'released reply') {
      for (const resolve of hanging) resolve(reply)
      hanging = []
    },
    async close() {
      this.release()
      await server.stop(true)
    },
  }
}
