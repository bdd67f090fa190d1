// POST /api/chat over the real server with the mock model: JSON and Server-Sent Events, threads that persist and are the
// caller's own, an agent's live tools run through the toolbox and recorded with the thread as conversation, who may use
// which version, and every bad field refused with its 422.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chatEvents, deltaText } from './helpers.ts'
import { AGENT, type ChatWorld, INSTRUCTIONS, recordedIn, startChatWorld } from './world.ts'

let w: ChatWorld
beforeAll(async () => {
  w = await startChatWorld()
})
afterAll(async () => {
  await w.stop()
})

const chat = (token: string, body: Record<string, unknown>) => w.t.request('POST', '/api/chat', { token, body })
const thread = async (token: string, id: string) => (await w.t.request('GET', `/api/threads/${id}`, { token })).body

describe('a turn', () => {
  test('JSON: the answer, the thread it was saved in, and the next turn continues it', async () => {
    const first = await chat(w.owner.token, { message: 'Hello there' })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({
      message: { role: 'assistant', model: { provider: 'mock', model: 'mock' }, stop_reason: 'end_turn' },
      tool_calls: [],
      suggestions: [],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    })
    expect(first.body.message.content).toContain('Turn 1. You said: "Hello there"')
    expect(first.body.comparison).toBeUndefined()

    const second = await chat(w.owner.token, { message: 'And again', thread_id: first.body.thread_id })
    expect(second.status).toBe(200)
    expect(second.body.thread_id).toBe(first.body.thread_id)
    // The mock counts the user messages it was sent: the thread's history reached it.
    expect(second.body.message.content).toContain('Turn 2. You said: "And again"')

    const saved = await thread(w.owner.token, first.body.thread_id)
    expect(saved).toMatchObject({ owner_id: w.owner.id, agent_name: null, task_id: null, title: 'Hello there' })
    expect(saved.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Hello there'],
      ['assistant', first.body.message.content],
      ['user', 'And again'],
      ['assistant', second.body.message.content],
    ])
    expect(saved.messages[0].metadata).toEqual({ mode: 'live' })
    expect(saved.messages[1]).toMatchObject({ model: { provider: 'mock', model: 'mock' }, usage: first.body.usage, metadata: { stop_reason: 'end_turn' } })
    const listed = (await w.t.request('GET', '/api/threads', { token: w.owner.token })).body
    expect(listed[0].id).toBe(first.body.thread_id)
  })

  test('SSE: deltas that add up to the message, then done with the thread', async () => {
    const res = await chatEvents(w.t, w.owner.token, { message: 'Stream this please' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    expect(res.headers.get('cache-control')).toBe('no-store')
    const names = res.events.map((e) => e.event)
    expect(names.filter((n) => n === 'delta').length).toBeGreaterThan(1)
    expect(names.slice(-2)).toEqual(['message', 'done'])
    const message = res.events.find((e) => e.event === 'message')!.data
    expect(deltaText(res.events)).toBe(message.content)
    expect(message).toMatchObject({ role: 'assistant', model: { provider: 'mock', model: 'mock' }, stop_reason: 'end_turn' })
    const done = res.events.at(-1)!.data
    expect(done.usage).toEqual({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) })
    const saved = await thread(w.owner.token, done.thread_id)
    expect(saved.messages.map((m: any) => m.content)).toEqual(['Stream this please', message.content])
  })

  test("an agent's live version: its instructions, and its operation tool run through the toolbox and recorded", async () => {
    const before = w.upstream.calls.length
    const res = await chatEvents(w.t, w.viewer.token, { agent_name: AGENT, message: 'Look at getTicket {"id": "42"} for me' })
    expect(res.status).toBe(200)
    const call = res.events.find((e) => e.event === 'tool_call')!.data
    // The tool's _meta comes along (operation tools name their operation; UI templates add ui.resourceUri).
    const operationMeta = { 'agentbox/operation': { api_name: 'tickets', operation_id: 'getTicket' } }
    expect(call).toEqual({ id: 'mock_1_0', name: 'getTicket', arguments: { id: '42' }, model: { provider: 'mock', model: 'mock' }, _meta: operationMeta })
    const result = res.events.find((e) => e.event === 'tool_result')!.data
    expect(result).toMatchObject({ id: 'mock_1_0', name: 'getTicket', is_error: false, _meta: operationMeta })
    expect(JSON.parse(result.content)).toMatchObject({ status: 200, body: { id: '42', state: 'open' } })
    expect(w.upstream.calls.slice(before)).toEqual(['GET /tickets/42'])
    const message = res.events.find((e) => e.event === 'message')!.data
    expect(message.content).toStartWith('[mock reply] The tool "getTicket" returned:')
    expect(deltaText(res.events)).toBe(message.content)

    const threadId = res.events.at(-1)!.data.thread_id
    expect(await recordedIn(w, threadId)).toEqual([
      {
        user_id: w.viewer.id,
        kind: 'mcp_tool',
        api_title: AGENT,
        action: 'getTicket',
        is_error: false,
        client_source: 'agentbox-copilot',
        conversation_id: threadId,
        user_input: 'Look at getTicket {"id": "42"} for me',
        arguments: JSON.stringify({ id: '42' }),
      },
    ])
    // The thread keeps the call and its result between the user message and the answer, ready for the next turn.
    const saved = await thread(w.viewer.token, threadId)
    expect(saved.agent_name).toBe(AGENT)
    expect(saved.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(saved.messages[1].tool_calls).toEqual([{ id: 'mock_1_0', name: 'getTicket', arguments: { id: '42' } }])
    expect(saved.messages[2]).toMatchObject({
      tool_result: { tool_call_id: 'mock_1_0', name: 'getTicket', is_error: false },
      content: result.content,
      // Kept so that a reopened thread draws the result as it was (a UI template's view, an approval's link).
      metadata: { _meta: operationMeta },
    })
  })

  test('the instructions reach the model: the live version’s, not the draft’s', async () => {
    await w.t.request('PATCH', `/api/agents/${AGENT}`, { token: w.owner.token, body: { instructions: 'Draft words only.' } })
    const live = await chat(w.owner.token, { agent_name: AGENT, message: 'hi' })
    expect(live.body.message.content).toContain(INSTRUCTIONS)
    expect(live.body.message.content).not.toContain('Draft words only.')
    await w.t.request('PATCH', `/api/agents/${AGENT}`, { token: w.owner.token, body: { instructions: INSTRUCTIONS } })
  })

  test('a thread remembers its agent; naming another one with it is a 422', async () => {
    const first = await chat(w.owner.token, { agent_name: AGENT, message: 'first' })
    const next = await chat(w.owner.token, { thread_id: first.body.thread_id, message: 'getTicket {"id": "7"}' })
    expect(next.status).toBe(200)
    expect(next.body.tool_calls).toMatchObject([{ name: 'getTicket', is_error: false }])
    const other = await chat(w.owner.token, { thread_id: first.body.thread_id, agent_name: 'someone-else', message: 'x' })
    expect(other.status).toBe(422)
    expect(other.body.detail[0]).toMatchObject({ loc: ['body', 'agent_name'], msg: `This thread talks to the agent ${AGENT}` })
  })
})

describe('threads are their owner’s', () => {
  test("someone else's thread is 404, an admin's reading right included; a task's thread is a 422", async () => {
    const mine = await chat(w.owner.token, { message: 'private' })
    for (const token of [w.viewer.token, w.admin]) {
      const res = await chat(token, { thread_id: mine.body.thread_id, message: 'let me in' })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Thread not found' })
    }
    expect((await chat(w.owner.token, { thread_id: '01900000-0000-7000-8000-000000000000', message: 'x' })).status).toBe(404)
    const task = await w.t.request('POST', '/api/task', { token: w.owner.token, body: { name: 'Report', prompt: 'Report' } })
    expect(task.status).toBe(201)
    const run = await w.t.request('POST', `/api/task/${task.body.id}/run`, { token: w.owner.token })
    await w.t.server.modules.tasks.scheduler.idle()
    const res = await chat(w.owner.token, { thread_id: run.body.thread_id, message: 'continue' })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['body', 'thread_id'])
    // Nothing was added to any of them.
    expect((await thread(w.owner.token, mine.body.thread_id)).messages).toHaveLength(2)
  })
})

describe('who may use which version', () => {
  test('an unknown agent and one the caller may not see are 404; design and a mock of the draft are for owners (403)', async () => {
    expect(await chat(w.owner.token, { agent_name: 'nobody', message: 'x' })).toMatchObject({ status: 404, body: { detail: 'Agent not found' } })
    expect((await chat(w.outsider.token, { agent_name: AGENT, message: 'x' })).status).toBe(404)
    expect((await chat(w.outsider.token, { agent_name: AGENT, message: 'x', mode: 'design' })).status).toBe(404)
    const design = await chat(w.viewer.token, { agent_name: AGENT, message: 'x', mode: 'design' })
    expect(design.status).toBe(403)
    expect(design.body.detail).toBe('Only owners can see the draft and versions of this agent')
    expect((await chat(w.viewer.token, { agent_name: AGENT, message: 'x', mode: 'mock', version: 'draft' })).status).toBe(403)
    expect((await chat(w.viewer.token, { agent_name: AGENT, message: 'x', mode: 'mock' })).status).toBe(200)
    // Refused turns leave no thread behind.
    expect((await w.t.request('GET', '/api/threads', { token: w.outsider.token })).body).toEqual([])
  })

  test("design: the draft's instructions and the design tools (get_agent reads the draft)", async () => {
    await w.t.request('PATCH', `/api/agents/${AGENT}`, { token: w.owner.token, body: { description: 'Draft description' } })
    const res = await chat(w.owner.token, { agent_name: AGENT, mode: 'design', message: 'get_agent please' })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls).toMatchObject([{ name: 'get_agent', is_error: false }])
    expect(JSON.parse(res.body.tool_calls[0].content)).toMatchObject({ name: AGENT, description: 'Draft description' })
    // The live version has no design tools: the same words call nothing there.
    const live = await chat(w.owner.token, { agent_name: AGENT, message: 'get_agent please' })
    expect(live.body.tool_calls).toEqual([])
  })
})

describe('bad input', () => {
  test('every bad field is a 422 at its place, all at once', async () => {
    const res = await chat(w.owner.token, { message: '', mode: 'bogus', model: { provider: 7 }, thread_id: 5 })
    expect(res.status).toBe(422)
    const locs = res.body.detail.map((d: any) => d.loc.join('.'))
    for (const loc of ['body.message', 'body.mode', 'body.model.provider', 'body.thread_id']) expect(locs).toContain(loc)
    expect((await chat(w.owner.token, {})).body.detail[0]).toMatchObject({ loc: ['body', 'message'], type: 'missing' })
    expect((await chat(w.owner.token, { message: '   ' })).status).toBe(422)
    expect(
      (await w.t.request('POST', '/api/chat', { token: w.owner.token, rawBody: '{"message":', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(422)
  })

  test('models, presets and versions are checked against what exists', async () => {
    const provider = await chat(w.owner.token, { message: 'x', model: { provider: 'openai' } })
    expect(provider.status).toBe(422)
    expect(provider.body.detail[0]).toMatchObject({
      loc: ['body', 'model', 'provider'],
      msg: 'Model provider "openai" is not configured on this server; configured: mock',
    })
    const same = await chat(w.owner.token, { message: 'x', model: { provider: 'mock', model: 'mock' }, compare_with: { provider: 'mock' } })
    expect(same.body.detail[0].loc).toEqual(['body', 'compare_with'])
    const preset = await chat(w.owner.token, { message: 'x', preset_id: 'nope' })
    expect(preset.body.detail[0]).toMatchObject({ loc: ['body', 'preset_id'], msg: 'No prompt preset has this id in your settings' })
    const version = await chat(w.owner.token, { message: 'x', agent_name: AGENT, version: 'draft' })
    expect(version.body.detail[0].loc).toEqual(['body', 'version'])
    const design = await chat(w.owner.token, { message: 'x', mode: 'design' })
    expect(design.body.detail[0]).toMatchObject({ loc: ['body', 'agent_name'], type: 'missing' })
    // Several at once.
    const many = await chat(w.owner.token, { message: 'x', preset_id: 'nope', model: { provider: 'anthropic' }, compare_with: { provider: 'openai' } })
    expect(many.body.detail.map((d: any) => d.loc.join('.'))).toEqual(['body.preset_id', 'body.model.provider', 'body.compare_with.provider'])
  })

  test('no token is a 401; an oversized body a 413', async () => {
    expect((await w.t.request('POST', '/api/chat', { body: { message: 'x' } })).status).toBe(401)
    expect((await chat(w.owner.token, { message: 'x'.repeat(2 * 1024 * 1024) })).status).toBe(413)
  })
})
