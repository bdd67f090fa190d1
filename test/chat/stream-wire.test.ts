// The event stream over a real socket: events reach the client while the model is still answering (nothing buffers the
// stream), and a client that closes its connection mid-answer interrupts the turn, which keeps a consistent thread.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { type FakeServer, startFakeServer } from '../llm/fake-servers.ts'
import { parseSse } from './helpers.ts'
import { type ChatWorld, startChatWorld } from './world.ts'

let w: ChatWorld
let openai: FakeServer
let base: string
let listener: ReturnType<typeof Bun.serve>
const OPENAI = { provider: 'openai', model: 'gpt-test' }

beforeAll(async () => {
  openai = startFakeServer('openai')
  w = await startChatWorld({ env: { AGENTBOX_OPENAI_BASE_URL: openai.url, AGENTBOX_OPENAI_API_KEY: 'k' } })
  listener = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request, server) => w.t.server.fetch(request, server as never) })
  base = `http://127.0.0.1:${listener.port}`
})
afterAll(async () => {
  openai.release()
  await listener.stop(true)
  await w.stop()
  await openai.close()
})

const post = (body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${base}/api/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.owner.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model: OPENAI, ...body }),
    signal,
  })

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, marker: string): Promise<string> {
  let text = ''
  while (!text.includes(marker)) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`stream ended before ${marker}: ${text}`)
    text += new TextDecoder().decode(value)
  }
  return text
}

test('the first deltas arrive while the model is still answering', async () => {
  openai.behave({ reply: 'Hello from a slow model', pieces: 4, stallAfter: 3 })
  const response = await post({ message: 'hi' })
  expect(response.headers.get('content-type')).toStartWith('text/event-stream')
  const reader = response.body!.getReader()
  // The model is stalled (it has sent two pieces and waits for release): these events came through anyway.
  const early = parseSse(await readUntil(reader, 'event: delta'))
  expect(early[0]!.event).toBe('delta')
  openai.release()
  let rest = ''
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value)
  const events = [...early, ...parseSse(rest)]
  expect(events.at(-1)!.event).toBe('done')
  expect(
    events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join(''),
  ).toBe('Hello from a slow model')
})

test('a client that closes the connection mid-answer interrupts the turn; the thread stays consistent', async () => {
  openai.behave({ reply: 'one two three four', pieces: 4, stallAfter: 3 })
  const abort = new AbortController()
  const response = await post({ message: 'talk' }, abort.signal)
  await readUntil(response.body!.getReader(), 'event: delta')
  abort.abort()
  // The server notices the closed connection and ends the turn without the model ever being released.
  await w.t.server.modules.chat.service.idle()
  const threads = (await w.t.request('GET', '/api/threads', { token: w.owner.token })).body
  const thread = (await w.t.request('GET', `/api/threads/${threads[0].id}`, { token: w.owner.token })).body
  expect(thread.messages.map((m: any) => m.role)).toEqual(['user', 'assistant'])
  expect(thread.messages[1].metadata.stop_reason).toBe('interrupted')
  expect('one two three four').toStartWith(thread.messages[1].content)
  openai.release()
})

test('a JSON turn over the socket runs to its end, tools included', async () => {
  openai.behave({ toolCalls: [{ id: 'c1', name: 'getTicket', arguments: '{"id":"12"}' }] }, { reply: 'Ticket 12 is open.' })
  const response = await fetch(`${base}/api/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${w.owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: OPENAI, agent_name: 'helpdesk', message: 'ticket 12?' }),
  })
  expect(response.status).toBe(200)
  const body = (await response.json()) as any
  expect(body.message.content).toBe('Ticket 12 is open.')
  expect(body.tool_calls).toMatchObject([{ name: 'getTicket', is_error: false }])
})
