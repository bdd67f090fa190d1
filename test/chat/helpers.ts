// Chat test helpers: a turn as parsed Server-Sent Events (through the harness, so every event is checked against the
// published document), and the pieces most chat tests arrange (an agent, an application on a loopback upstream).
import type { TestServer } from '../helpers/server.ts'

export interface SseEvent {
  event: string
  data: any
}

/** The events of a text/event-stream body, comments (keep-alives) left out. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = []
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((line) => line !== '' && !line.startsWith(':'))
    if (lines.length === 0) continue
    const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message'
    const data = lines
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
      .join('\n')
    events.push({ event, data: JSON.parse(data) })
  }
  return events
}

/** POST /api/chat asking for events; the whole stream, parsed. */
export async function chatEvents(t: TestServer, token: string, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/chat', { token, body, headers: { accept: 'text/event-stream' } })
  return { status: res.status, headers: res.headers, body: res.body, events: res.status === 200 ? parseSse(res.body as string) : [] }
}

/** The text the deltas of one model add up to. */
export const deltaText = (events: SseEvent[], model?: string) =>
  events
    .filter((e) => e.event === 'delta' && (model === undefined || e.data.model?.model === model))
    .map((e) => e.data.text)
    .join('')

/** Creates an agent owned by `token` and publishes it (instructions given), optionally using applications. */
export async function publishedAgent(
  t: TestServer,
  token: string,
  name: string,
  options: { instructions?: string; applications?: { api_name: string; operation_ids?: string[] }[] } = {},
) {
  const created = await t.request('POST', '/api/agents', {
    token,
    body: { name, description: `The ${name} agent`, instructions: options.instructions ?? `You are ${name}.` },
  })
  if (created.status !== 201) throw new Error(`create agent: ${created.status} ${JSON.stringify(created.body)}`)
  if (options.applications) {
    const patched = await t.request('PATCH', `/api/agents/${name}`, { token, body: { applications: options.applications } })
    if (patched.status !== 200) throw new Error(`patch agent: ${patched.status} ${JSON.stringify(patched.body)}`)
  }
  const published = await t.request('POST', `/api/agents/${name}/publish`, { token, body: { note: 'v1' } })
  if (published.status !== 200 && published.status !== 201) throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`)
}

/** A loopback upstream for an application's operations: counts its calls. */
export function ticketsUpstream() {
  const calls: string[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      calls.push(`${request.method} ${url.pathname}`)
      return Response.json({ id: url.pathname.split('/')[2] ?? null, state: 'open' })
    },
  })
  return { url: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) }
}

/** A small API: one read operation and one that changes things, on `serverUrl`, with no credentials needed. */
export const ticketsApi = (serverUrl: string) => ({
  openapi: '3.1.0',
  info: { title: 'Tickets', version: '1' },
  servers: [{ url: serverUrl }],
  paths: {
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        summary: 'Read a ticket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { example: { id: 'example', state: 'closed' } } } } },
      },
    },
    '/tickets': {
      post: {
        operationId: 'closeTickets',
        summary: 'Close every ticket',
        responses: { '200': { description: 'ok', content: { 'application/json': { example: { closed: 0 } } } } },
      },
    },
  },
})
