// Bad input, nothing lost: provider errors, time-outs, a stream that breaks mid-answer, an answer that is not the wire
// format, a client that goes away mid-stream, a second turn in a busy thread, and shutdown during a turn. Each ends
// with a readable error (JSON: 502/504 with the thread; SSE: an error event, then done) and a thread that reads back.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ON_POSTGRES } from '../helpers/database.ts'
import { type FakeServer, startFakeServer } from '../llm/fake-servers.ts'
import { chatEvents, parseSse } from './helpers.ts'
import { type ChatWorld, startChatWorld } from './world.ts'

let w: ChatWorld
let openai: FakeServer
const OPENAI = { provider: 'openai', model: 'gpt-test' }
const TIMEOUT_MS = 400

beforeAll(async () => {
  openai = startFakeServer('openai')
  w = await startChatWorld({
    env: { AGENTBOX_OPENAI_BASE_URL: openai.url, AGENTBOX_OPENAI_API_KEY: 'sk-secret-key' },
  })
})
afterAll(async () => {
  await w.stop()
  await openai.close()
})

const chat = (body: Record<string, unknown>) => w.t.request('POST', '/api/chat', { token: w.owner.token, body })
const messagesOf = async (threadId: string) =>
  (await w.t.request('GET', `/api/threads/${threadId}`, { token: w.owner.token })).body.messages.map((m: any) => ({
    role: m.role,
    content: m.content,
    metadata: m.metadata,
  }))

/** A turn sent through the full request path, as a client would, with its stream read as it comes. */
async function openStream(body: Record<string, unknown>, signal?: AbortSignal) {
  const request = new Request('http://localhost/api/chat', {
    method: 'POST',
    headers: { authorization: `Bearer ${w.owner.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model: OPENAI, ...body }),
    signal,
  })
  const response = await w.t.server.fetch(request)
  expect(response.status).toBe(200)
  return response.body!.getReader()
}

describe('the model fails', () => {
  test('an HTTP error: 502 with the provider’s words, no key, and the thread with the user message', async () => {
    openai.behave({ status: 400, message: 'model gpt-test does not exist' })
    const res = await chat({ model: OPENAI, message: 'Will this work?' })
    expect(res.status).toBe(502)
    expect(res.body.detail).toBe(`The openai provider at ${openai.url} answered HTTP 400: model gpt-test does not exist`)
    expect(JSON.stringify(res.body)).not.toContain('sk-secret-key')
    expect(await messagesOf(res.body.thread_id)).toEqual([{ role: 'user', content: 'Will this work?', metadata: { mode: 'live' } }])
  })

  test('no answer in time: 504, and over SSE an error event then done', async () => {
    // A world of its own with a short model deadline, so the other tests' held streams are never timed out.
    const slow = startFakeServer('openai')
    const world = await startChatWorld({
      env: { AGENTBOX_OPENAI_BASE_URL: slow.url, AGENTBOX_OPENAI_API_KEY: 'k', AGENTBOX_LLM_TIMEOUT_MS: String(TIMEOUT_MS) },
    })
    try {
      slow.behave({ hang: true })
      const res = await world.t.request('POST', '/api/chat', { token: world.owner.token, body: { model: OPENAI, message: 'Anyone there?' } })
      expect(res.status).toBe(504)
      expect(res.body.detail).toBe(`The openai provider at ${slow.url} did not answer within 0.4 s`)
      slow.release()
      // Silence mid-stream is the same time-out.
      slow.behave({ reply: 'a b c', pieces: 3, stallAfter: 2 })
      const streamed = await chatEvents(world.t, world.owner.token, { model: OPENAI, message: 'Still there?' })
      expect(streamed.events.map((e) => e.event)).toEqual(['delta', 'message', 'error', 'done'])
      expect(streamed.events[2]!.data).toEqual({ detail: expect.stringContaining('did not answer within 0.4 s'), model: OPENAI })
      const thread = (await world.t.request('GET', `/api/threads/${streamed.events[3]!.data.thread_id}`, { token: world.owner.token })).body
      expect(thread.messages.map((m: any) => [m.role, m.content])).toEqual([
        ['user', 'Still there?'],
        ['assistant', streamed.events[0]!.data.text],
      ])
    } finally {
      slow.release()
      await world.stop()
      await slow.close()
    }
  })

  test('a stream that breaks after some text: the text is kept in the thread with the error beside it', async () => {
    openai.behave({ reply: 'The first half and the second half', pieces: 4, errorAfter: { after: 3, message: 'overloaded' } })
    const res = await chatEvents(w.t, w.owner.token, { model: OPENAI, message: 'Tell me' })
    expect(res.events.map((e) => e.event)).toEqual(['delta', 'delta', 'message', 'error', 'done'])
    const partial = res.events[2]!.data
    expect(partial).toMatchObject({ stop_reason: 'error' })
    expect(partial.content.length).toBeGreaterThan(0)
    expect(res.events[3]!.data.detail).toContain('reported an error: overloaded')
    expect(await messagesOf(res.events.at(-1)!.data.thread_id)).toEqual([
      { role: 'user', content: 'Tell me', metadata: { mode: 'live' } },
      { role: 'assistant', content: partial.content, metadata: { stop_reason: 'error', error: res.events[3]!.data.detail } },
    ])
  })

  test('an answer that is not the wire format, or an empty one, is a 502', async () => {
    openai.behave({ raw: () => new Response('this is not JSON', { headers: { 'content-type': 'application/json' } }) })
    const garbage = await chat({ model: OPENAI, message: 'x' })
    expect(garbage.status).toBe(502)
    expect(garbage.body.thread_id).toEqual(expect.any(String))
    openai.behave({ reply: '' })
    const empty = await chat({ model: OPENAI, message: 'y' })
    expect(empty).toMatchObject({ status: 502, body: { detail: 'The model openai/gpt-test returned no text' } })
  })
})

describe('the client goes away', () => {
  test('mid-stream: the model call is cut, the thread keeps the user message and the text produced so far', async () => {
    // Six pieces, then silence until released: the turn is in the middle of its answer.
    openai.behave({ reply: 'one two three four five six', pieces: 6, stallAfter: 4 })
    const abort = new AbortController()
    const reader = await openStream({ message: 'Talk slowly' }, abort.signal)
    let text = ''
    while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value)
    abort.abort()
    await reader.cancel()
    // The turn ends on its own (the stalled model call is aborted), without the model ever finishing.
    await w.t.server.modules.chat.service.idle()
    const threads = (await w.t.request('GET', '/api/threads', { token: w.owner.token })).body
    const messages = await messagesOf(threads[0].id)
    expect(messages[0]).toEqual({ role: 'user', content: 'Talk slowly', metadata: { mode: 'live' } })
    expect(messages).toHaveLength(2)
    expect(messages[1]).toMatchObject({ role: 'assistant', metadata: { stop_reason: 'interrupted' } })
    expect('one two three four five six').toStartWith(messages[1].content)
    openai.release()
    // The thread goes on.
    openai.behave({ reply: 'Back again.' })
    expect((await chat({ model: OPENAI, thread_id: threads[0].id, message: 'Still here' })).status).toBe(200)
  })

  test('while a tool runs: the round finishes and is kept whole; the model is not asked again', async () => {
    openai.requests.length = 0
    openai.behave({ toolCalls: [{ id: 't1', name: 'getTicket', arguments: '{"id":"5"}' }] }, { reply: 'never asked' })
    const abort = new AbortController()
    const reader = await openStream({ agent_name: 'helpdesk', message: 'Ticket 5' }, abort.signal)
    let text = ''
    while (!text.includes('event: tool_call')) text += new TextDecoder().decode((await reader.read()).value)
    abort.abort()
    await reader.cancel()
    await w.t.server.modules.chat.service.idle()
    expect(openai.requests).toHaveLength(1)
    const threads = (await w.t.request('GET', '/api/threads', { token: w.owner.token })).body
    expect((await messagesOf(threads[0].id)).map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })
})

describe('one turn at a time per thread', () => {
  test('a second turn while one runs in the thread is a 409, and nothing is added', async () => {
    openai.behave({ reply: 'first answer' })
    const first = await chat({ model: OPENAI, message: 'start' })
    expect(first.status).toBe(200)
    // A turn held open: its model stalls mid-answer while the client keeps reading.
    openai.behave({ reply: 'slow answer', pieces: 2, stallAfter: 2 })
    const reader = await openStream({ thread_id: first.body.thread_id, message: 'hold' })
    let text = ''
    while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value)
    const second = await chat({ model: OPENAI, thread_id: first.body.thread_id, message: 'me too' })
    expect(second).toMatchObject({ status: 409, body: { detail: 'A turn is already in progress in this thread: wait for it to finish' } })
    openai.release()
    while (!(await reader.read()).done);
    await w.t.server.modules.chat.service.idle()
    expect((await messagesOf(first.body.thread_id)).map((m: any) => m.content)).toEqual(['start', 'first answer', 'hold', 'slow answer'])
    expect(await w.t.sql.count('leases', 'key = ?', `chat_turn:${first.body.thread_id}`)).toBe(0)
  })

  test("a turn running on another instance (its lease in the database) is a 409 here; once that instance's lease expires (it died), the thread takes turns again", async () => {
    openai.behave({ reply: 'first answer' })
    const first = await chat({ model: OPENAI, message: 'start' })
    const threadId = first.body.thread_id as string
    const lease = `chat_turn:${threadId}`
    // On SQLite one process owns the database, so only its own instance id can hold a lease there.
    const holder = ON_POSTGRES ? 'another instance' : w.t.server.cluster.instanceId
    await w.t.sql.run('INSERT INTO leases (key, holder, instance_id, expires_at) VALUES (?, ?, ?, ?)', lease, 'elsewhere', holder, w.t.clock.now() + 60_000)
    const refused = await chat({ model: OPENAI, thread_id: threadId, message: 'me too' })
    expect(refused).toMatchObject({ status: 409, body: { detail: 'A turn is already in progress in this thread: wait for it to finish' } })
    // The other instance's lease is left alone by the refusal.
    expect(await w.t.sql.get('SELECT holder FROM leases WHERE key = ?', lease)).toEqual({ holder: 'elsewhere' })
    await w.t.sql.run('UPDATE leases SET expires_at = ? WHERE key = ?', w.t.clock.now(), lease)
    openai.behave({ reply: 'second answer' })
    const second = await chat({ model: OPENAI, thread_id: threadId, message: 'now' })
    expect(second.status).toBe(200)
    expect((await messagesOf(threadId)).map((m: any) => m.content)).toEqual(['start', 'first answer', 'now', 'second answer'])
    expect(await w.t.sql.count('leases', 'key = ?', lease)).toBe(0)
  })
})

describe('shutdown', () => {
  test('a running turn is interrupted, keeps what it produced, and its stream ends with the error', async () => {
    const own = startFakeServer('openai')
    const world = await startChatWorld({ env: { AGENTBOX_OPENAI_BASE_URL: own.url, AGENTBOX_OPENAI_API_KEY: 'k' } })
    try {
      own.behave({ reply: 'partial words here', pieces: 3, stallAfter: 2 })
      const response = await world.t.server.fetch(
        new Request('http://localhost/api/chat', {
          method: 'POST',
          headers: { authorization: `Bearer ${world.owner.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ model: OPENAI, message: 'Before shutdown' }),
        }),
      )
      const reader = response.body!.getReader()
      let text = ''
      while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value)
      await world.t.server.modules.chat.stop?.()
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value)
      const events = parseSse(text)
      expect(events.map((e) => e.event).slice(-3)).toEqual(['message', 'error', 'done'])
      expect(events.at(-2)!.data.detail).toBe('Interrupted: the server is shutting down')
      const thread = (await world.t.request('GET', `/api/threads/${events.at(-1)!.data.thread_id}`, { token: world.owner.token })).body
      expect(thread.messages.map((m: any) => m.role)).toEqual(['user', 'assistant'])
      expect(thread.messages[1].metadata).toMatchObject({ stop_reason: 'interrupted' })
    } finally {
      own.release()
      await world.stop()
      await own.close()
    }
  })
})
