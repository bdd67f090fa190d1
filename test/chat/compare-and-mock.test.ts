// Model comparison (one turn on two models side by side: tools may run twice, tokens double; the thread keeps the first
// model's answer and the second's as metadata) and mock mode (every tool simulated, nothing recorded, live or draft).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type FakeServer, startFakeServer } from '../llm/fake-servers.ts'
import { chatEvents, deltaText } from './helpers.ts'
import { AGENT, type ChatWorld, recordedIn, startChatWorld } from './world.ts'

let w: ChatWorld
let openai: FakeServer
const MOCK = { provider: 'mock', model: 'mock' }
const OTHER_MOCK = { provider: 'mock', model: 'mock-b' }
const OPENAI = { provider: 'openai', model: 'gpt-test' }

beforeAll(async () => {
  openai = startFakeServer('openai')
  w = await startChatWorld({ env: { AGENTBOX_OPENAI_BASE_URL: openai.url, AGENTBOX_OPENAI_API_KEY: 'k' } })
})
afterAll(async () => {
  await w.stop()
  await openai.close()
})

const chat = (token: string, body: Record<string, unknown>) => w.t.request('POST', '/api/chat', { token, body })

describe('model comparison', () => {
  test('JSON: both answers side by side; the tool ran twice and both calls were recorded; usage counts both', async () => {
    const before = w.upstream.calls.length
    const res = await chat(w.viewer.token, { agent_name: AGENT, message: 'getTicket {"id": "8"}', model: MOCK, compare_with: OTHER_MOCK })
    expect(res.status).toBe(200)
    expect(res.body.comparison).toHaveLength(2)
    const [first, second] = res.body.comparison
    expect(first).toMatchObject({ ...MOCK, message: res.body.message, tool_calls: res.body.tool_calls, error: null })
    expect(second).toMatchObject({ ...OTHER_MOCK, message: { model: OTHER_MOCK, stop_reason: 'end_turn' }, error: null })
    expect(second.tool_calls).toMatchObject([{ name: 'getTicket', is_error: false }])
    expect(w.upstream.calls.length - before).toBe(2)
    expect((await recordedIn(w, res.body.thread_id)).map((r) => r.action)).toEqual(['getTicket', 'getTicket'])
    // Tokens double: the turn's usage is both models' together.
    expect(res.body.usage).toEqual({
      input_tokens: first.usage.input_tokens + second.usage.input_tokens,
      output_tokens: first.usage.output_tokens + second.usage.output_tokens,
    })
    expect(first.usage.input_tokens).toBeGreaterThan(0)
    expect(second.usage.input_tokens).toBeGreaterThan(0)

    // The thread keeps the first model's turn; the second's answer is metadata of its last message.
    const saved = (await w.t.request('GET', `/api/threads/${res.body.thread_id}`, { token: w.viewer.token })).body
    expect(saved.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(saved.messages[0].metadata).toEqual({ mode: 'live', compare_with: OTHER_MOCK })
    expect(saved.messages[3].model).toEqual(MOCK)
    expect(saved.messages[3].metadata.comparison).toMatchObject({
      ...OTHER_MOCK,
      content: second.message.content,
      stop_reason: 'end_turn',
      tool_calls: [{ name: 'getTicket', is_error: false }],
      error: null,
    })
  })

  test('SSE: every event names its model, and each model’s deltas add up to its own message', async () => {
    const res = await chatEvents(w.t, w.owner.token, { message: 'Compare us', model: MOCK, compare_with: OTHER_MOCK })
    const messages = res.events.filter((e) => e.event === 'message').map((e) => e.data)
    expect(messages.map((m) => m.model).sort((a, b) => a.model.localeCompare(b.model))).toEqual([MOCK, OTHER_MOCK])
    for (const message of messages) expect(deltaText(res.events, message.model.model)).toBe(message.content)
    for (const event of res.events.filter((e) => e.event === 'delta')) expect([MOCK, OTHER_MOCK]).toContainEqual(event.data.model)
    expect(res.events.at(-1)!.event).toBe('done')
  })

  test('when the compared model fails, the turn still answers: its entry carries the error', async () => {
    openai.behave({ status: 400, message: 'no such model' })
    const res = await chat(w.owner.token, { message: 'hi', model: MOCK, compare_with: OPENAI })
    expect(res.status).toBe(200)
    expect(res.body.comparison[1]).toMatchObject({
      ...OPENAI,
      error: expect.stringContaining('answered HTTP 400: no such model'),
      message: { stop_reason: 'error' },
    })
    const streamed = await chatEvents(w.t, w.owner.token, { message: 'hi', model: MOCK, compare_with: OPENAI })
    const error = streamed.events.find((e) => e.event === 'error')!
    expect(error.data.model).toEqual(OPENAI)
    expect(streamed.events.find((e) => e.event === 'message')!.data.model).toEqual(MOCK)
  })
})

describe('mock mode', () => {
  test('every tool simulated: an operation answers its dry run, the upstream is not called, nothing is recorded', async () => {
    const before = w.upstream.calls.length
    const res = await chat(w.viewer.token, { agent_name: AGENT, mode: 'mock', message: 'getTicket {"id": "1"} then closeTickets' })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls.map((c: any) => [c.name, c.is_error])).toEqual([
      ['getTicket', false],
      ['closeTickets', false],
    ])
    // The dry run answers from the document's examples.
    expect(JSON.parse(res.body.tool_calls[0].content)).toMatchObject({ body: { id: 'example', state: 'closed' } })
    expect(w.upstream.calls.length).toBe(before)
    expect(await recordedIn(w, res.body.thread_id)).toEqual([])
    // The model is told, so it can say so.
    openai.requests.length = 0
    openai.behave({ reply: 'ok' })
    await chat(w.viewer.token, { agent_name: AGENT, mode: 'mock', model: OPENAI, message: 'hello' })
    expect(openai.requests[0]!.body.messages[0].content).toContain('Mock mode: every tool is simulated.')
  })

  test('workflows run dry: a gate is simulated, no run is left waiting', async () => {
    const res = await chat(w.viewer.token, { agent_name: AGENT, mode: 'mock', message: 'run_workflow {"workflow": "refund", "input": {"amount": 2}}' })
    const run = JSON.parse(res.body.tool_calls[0].content)
    expect(run).toMatchObject({ dry_run: true, status: 'succeeded' })
    expect(res.body.tool_calls[0].approval).toBeUndefined()
    const waiting = await w.t.request('GET', `/api/workflows/${AGENT}/runs?status=waiting_human`, { token: w.viewer.token })
    expect(waiting.body).toEqual([])
  })

  test('an owner tries the draft: its instructions and tools, changes simulated (the draft stays as it is)', async () => {
    await w.t.request('PATCH', `/api/agents/${AGENT}`, { token: w.owner.token, body: { instructions: 'Draft: be cheerful.' } })
    const res = await chat(w.owner.token, {
      agent_name: AGENT,
      mode: 'mock',
      version: 'draft',
      message: 'update_agent {"description": "changed by the model"} and getTicket {"id": "3"}',
    })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls.map((c: any) => c.name)).toEqual(['update_agent', 'getTicket'])
    expect(JSON.parse(res.body.tool_calls[0].content)).toMatchObject({ simulated: true, tool: 'update_agent' })
    const agent = (await w.t.request('GET', `/api/agents/${AGENT}`, { token: w.owner.token })).body
    expect(agent.description).not.toBe('changed by the model')
    const saved = (await w.t.request('GET', `/api/threads/${res.body.thread_id}`, { token: w.owner.token })).body
    expect(saved.messages[0].metadata).toEqual({ mode: 'mock', version: 'draft' })
    expect(await recordedIn(w, res.body.thread_id)).toEqual([])
    // The draft's instructions are the model's, and the tools offered are the draft's (with its design tools).
    openai.requests.length = 0
    openai.behave({ reply: 'ok' })
    await chat(w.owner.token, { agent_name: AGENT, mode: 'mock', version: 'draft', model: OPENAI, message: 'hello' })
    const sent = openai.requests[0]!.body
    expect(sent.messages[0].content).toContain("The agent's instructions:\nDraft: be cheerful.")
    expect(sent.tools.map((tool: any) => tool.function.name)).toContain('update_agent')
    await w.t.request('PATCH', `/api/agents/${AGENT}`, { token: w.owner.token, body: { instructions: 'Answer about tickets.' } })
  })
})
