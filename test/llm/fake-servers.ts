// Small fake model servers on 127.0.0.1 that speak the OpenAI chat-completions and Anthropic messages wire formats.
import type { Server } from 'bun'

export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: any
}

/** What the next request gets: a reply text, an error status with the provider's error body, a raw response, or no answer at all. */
export type Behaviour =
  | { reply: string }
  | { status: number; message: string; type?: string; headers?: Record<string, string> }
  | { raw: () => Response }
  | { hang: true }

export interface FakeServer {
  /** What AGENTBOX_*_BASE_URL should be: OpenAI clients expect the /v1 prefix in it, Anthropic's add it themselves. */
  readonly url: string
  readonly requests: RecordedRequest[]
  /** Behaviours are used in order; the last one repeats. */
  behave(...behaviours: Behaviour[]): void
  /** Resolves the next time a request arrives (for tests that hold a run in flight). */
  nextRequest(): Promise<RecordedRequest>
  /** Lets every hanging request finish with `reply`. */
  release(reply?: string): void
  close(): Promise<void>
}

type Format = 'openai' | 'anthropic'

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

export function startFakeServer(format: Format): FakeServer {
  const requests: RecordedRequest[] = []
  let behaviours: Behaviour[] = [{ reply: 'fake reply' }]
  let waiters: ((r: RecordedRequest) => void)[] = []
  let hanging: ((reply: string) => void)[] = []
  const expectedPath = format === 'openai' ? '/v1/chat/completions' : '/v1/messages'

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
      if ('reply' in behaviour) return Response.json(successBody(format, model, behaviour.reply))
      if ('raw' in behaviour) return behaviour.raw()
      if ('hang' in behaviour) {
        const reply = await new Promise<string>((resolve) => hanging.push(resolve))
        return Response.json(successBody(format, model, reply))
      }
      return Response.json(errorBody(format, behaviour.message, behaviour.type ?? 'api_error'), { status: behaviour.status, headers: behaviour.headers })
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
