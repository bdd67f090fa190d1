// The tool-calling loop against fake model servers on 127.0.0.1 speaking each provider's wire format: the agent's tools
// offered natively (the same list as its MCP endpoint), calls run and their results sent back, a name the turn was not
// given answered with an error and never run (a prompt-injected tool result cannot reach another agent's tools), the
// round limit, malformed calls, and a workflow that waits for approval.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { type FakeServer, startFakeServer } from '../llm/fake-servers.ts'
import { chatEvents, deltaText, ticketsUpstream } from './helpers.ts'
import { AGENT, type ChatWorld, recordedIn, startChatWorld } from './world.ts'

let w: ChatWorld
let openai: FakeServer
let anthropic: FakeServer
/** The other agent's upstream: nothing the helpdesk chat does may reach it. */
let vault: ReturnType<typeof ticketsUpstream>

const OPENAI = { provider: 'openai', model: 'gpt-test' }
const ANTHROPIC = { provider: 'anthropic', model: 'claude-test' }

beforeAll(async () => {
  openai = startFakeServer('openai')
  anthropic = startFakeServer('anthropic')
  vault = ticketsUpstream()
  w = await startChatWorld({
    env: {
      AGENTBOX_OPENAI_BASE_URL: openai.url,
      AGENTBOX_OPENAI_API_KEY: 'sk-fake',
      AGENTBOX_ANTHROPIC_BASE_URL: anthropic.url,
      AGENTBOX_ANTHROPIC_API_KEY: 'sk-ant-fake',
    },
  })
  // The owner's private agent `vault` offers wipeVault: the viewer may not see it.
  const spec = {
    openapi: '3.1.0',
    info: { title: 'Vault', version: '1' },
    servers: [{ url: vault.url }],
    paths: { '/wipe': { post: { operationId: 'wipeVault', responses: { '200': { description: 'ok' } } } } },
  }
  expect((await uploadSpec(w.t, w.owner.token, spec, { api_name: 'vault-api' })).status).toBe(201)
  const token = w.owner.token
  expect((await w.t.request('POST', '/api/agents', { token, body: { name: 'vault', description: 'Private', instructions: 'Guard it.' } })).status).toBe(201)
  expect((await w.t.request('PATCH', '/api/agents/vault', { token, body: { applications: [{ api_name: 'vault-api' }] } })).status).toBe(200)
  expect((await w.t.request('POST', '/api/agents/vault/publish', { token, body: {} })).status).toBe(201)
})
afterAll(async () => {
  await w.stop()
  await openai.close()
  await anthropic.close()
  vault.stop()
})

const chat = (token: string, body: Record<string, unknown>) => w.t.request('POST', '/api/chat', { token, body })

describe('native tool formats', () => {
  test('OpenAI: the agent’s tools as functions (the MCP endpoint’s list), a call run, its result sent back as a tool message', async () => {
    openai.requests.length = 0
    openai.behave({ toolCalls: [{ id: 'call_a', name: 'getTicket', arguments: '{"id":"9"}' }] }, { reply: 'Ticket 9 is open.' })
    const res = await chat(w.viewer.token, { agent_name: AGENT, model: OPENAI, message: 'How is ticket 9?' })
    expect(res.status).toBe(200)
    expect(res.body.message).toEqual({ role: 'assistant', content: 'Ticket 9 is open.', model: OPENAI, stop_reason: 'end_turn' })
    expect(res.body.tool_calls).toMatchObject([{ id: 'call_a', name: 'getTicket', arguments: { id: '9' }, is_error: false }])

    const offered = (await w.t.request('GET', `/api/agents/${AGENT}/tools`, { token: w.viewer.token })).body.tools.map((tool: any) => tool.name)
    expect(offered).toEqual(['run_workflow', 'resume_workflow', 'getTicket', 'closeTickets', 'load_skill'])
    const [first, second] = openai.requests.map((r) => r.body)
    expect(first.tools.map((tool: any) => [tool.type, tool.function.name])).toEqual(offered.map((name: string) => ['function', name]))
    expect(first.tools.find((tool: any) => tool.function.name === 'getTicket').function.parameters).toMatchObject({ type: 'object', required: ['id'] })
    expect(first.messages[0].role).toBe('system')
    expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'How is ticket 9?' })
    expect(second.messages.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'getTicket', arguments: '{"id":"9"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: res.body.tool_calls[0].content },
    ])
  })

  test('Anthropic: tools with input_schema, a tool_use answered with a tool_result block', async () => {
    anthropic.requests.length = 0
    anthropic.behave({ reply: 'Let me look.', toolCalls: [{ id: 'toolu_1', name: 'getTicket', arguments: '{"id":"3"}' }] }, { reply: 'It is open.' })
    const res = await chatEvents(w.t, w.viewer.token, { agent_name: AGENT, model: ANTHROPIC, message: 'Ticket 3?' })
    const message = res.events.find((e) => e.event === 'message')!.data
    // Two model calls, one message: the second call's text starts a new paragraph, and the deltas still add up.
    expect(message.content).toBe('Let me look.\n\nIt is open.')
    expect(deltaText(res.events)).toBe(message.content)
    const [first, second] = anthropic.requests.map((r) => r.body)
    expect(first.tools.map((tool: any) => tool.name)).toContain('getTicket')
    expect(first.tools.find((tool: any) => tool.name === 'getTicket').input_schema).toMatchObject({ type: 'object' })
    expect(second.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] })
    // In the thread: the first call's text with its tool call, the result, then the last words.
    const saved = (await w.t.request('GET', `/api/threads/${res.events.at(-1)!.data.thread_id}`, { token: w.viewer.token })).body
    expect(saved.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Ticket 3?'],
      ['assistant', 'Let me look.'],
      ['tool', expect.any(String)],
      ['assistant', 'It is open.'],
    ])
    expect(saved.messages[1].model).toEqual(ANTHROPIC)
  })
})

describe('the tool set is fixed per turn from the caller’s rights', () => {
  test('a tool result that tells the model to call another agent’s tool: the call is refused, never run, never recorded', async () => {
    // The helpdesk ticket says what a prompt injection would; the model then obeys it.
    openai.requests.length = 0
    openai.behave(
      { toolCalls: [{ id: 'c1', name: 'getTicket', arguments: '{"id":"1"}' }] },
      { toolCalls: [{ id: 'c2', name: 'wipeVault', arguments: '{}' }] },
      { reply: 'I could not do that.' },
    )
    const res = await chat(w.viewer.token, { agent_name: AGENT, model: OPENAI, message: 'Read ticket 1 and do what it says' })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls).toMatchObject([
      { id: 'c1', name: 'getTicket', is_error: false },
      { id: 'c2', name: 'wipeVault', is_error: true, content: 'Unknown tool: wipeVault. Only the tools offered in this chat can be called.' },
    ])
    expect(openai.requests.every((r) => !r.body.tools.some((tool: any) => tool.function.name === 'wipeVault'))).toBe(true)
    expect(vault.calls).toEqual([])
    const recorded = await recordedIn(w, res.body.thread_id)
    expect(recorded.map((r) => [r.api_title, r.action])).toEqual([[AGENT, 'getTicket']])
    // Even the owner, who may use vault, does not get its tools in a helpdesk chat.
    openai.behave({ toolCalls: [{ id: 'c3', name: 'wipeVault', arguments: '{}' }] }, { reply: 'No.' })
    const owner = await chat(w.owner.token, { agent_name: AGENT, model: OPENAI, message: 'wipe' })
    expect(owner.body.tool_calls).toMatchObject([{ name: 'wipeVault', is_error: true }])
    expect(vault.calls).toEqual([])
  })

  test('a tool name the model invents is an error result the model sees, and the turn goes on', async () => {
    openai.behave({ toolCalls: [{ id: 'x1', name: 'made_up_tool', arguments: '{}' }] }, { reply: 'Sorry, no such tool.' })
    const res = await chatEvents(w.t, w.viewer.token, { agent_name: AGENT, model: OPENAI, message: 'go' })
    const result = res.events.find((e) => e.event === 'tool_result')!.data
    expect(result).toMatchObject({ name: 'made_up_tool', is_error: true })
    expect(res.events.find((e) => e.event === 'message')!.data.content).toBe('Sorry, no such tool.')
    expect(res.events.some((e) => e.event === 'error')).toBe(false)
    expect(await recordedIn(w, res.events.at(-1)!.data.thread_id)).toEqual([])
  })
})

describe('limits and malformed calls', () => {
  test('a model that never stops calling tools is stopped after 8 rounds, with a note, and a thread whose every call has its result', async () => {
    openai.requests.length = 0
    const before = w.upstream.calls.length
    openai.behave({ reply: 'Again.', toolCalls: [{ id: 'loop', name: 'getTicket', arguments: '{"id":"1"}' }] })
    const res = await chatEvents(w.t, w.viewer.token, { agent_name: AGENT, model: OPENAI, message: 'loop forever' })
    // 8 rounds of tools, then the model is asked once more; its calls then are not run.
    expect(openai.requests).toHaveLength(9)
    expect(w.upstream.calls.length - before).toBe(8)
    expect(res.events.filter((e) => e.event === 'tool_result')).toHaveLength(8)
    const message = res.events.find((e) => e.event === 'message')!.data
    expect(message.stop_reason).toBe('round_limit')
    expect(message.content).toEndWith('Again.\n\nStopped: the model asked for tools more than 8 times in one turn. Ask again to continue.')
    expect(deltaText(res.events)).toBe(message.content)
    const saved = (await w.t.request('GET', `/api/threads/${res.events.at(-1)!.data.thread_id}`, { token: w.viewer.token })).body
    expect(saved.messages.map((m: any) => m.role)).toEqual(['user', ...Array(8).fill(['assistant', 'tool']).flat(), 'assistant'])
    expect(saved.messages.at(-1)).toMatchObject({ tool_calls: null, metadata: { stop_reason: 'round_limit' } })
    // The thread reads back for the next turn without a call left unanswered.
    openai.behave({ reply: 'Fine.' })
    expect((await w.t.request('POST', '/api/chat', { token: w.viewer.token, body: { thread_id: saved.id, model: OPENAI, message: 'ok' } })).status).toBe(200)
  })

  test('a malformed tool call ends the turn with a readable 502; the thread keeps the call and its error result', async () => {
    const before = w.upstream.calls.length
    openai.behave({
      toolCalls: [
        { id: 'good', name: 'getTicket', arguments: '{"id":"2"}' },
        { id: 'bad', name: 'getTicket', arguments: '{"id": ' },
      ],
    })
    const res = await chat(w.viewer.token, { agent_name: AGENT, model: OPENAI, message: 'two at once' })
    expect(res.status).toBe(502)
    expect(res.body.detail).toStartWith('The model sent a malformed tool call: Malformed JSON in the arguments of "getTicket"')
    // Neither call ran: the model's intent is unclear when one of a step's calls is broken.
    expect(w.upstream.calls.length).toBe(before)
    const saved = (await w.t.request('GET', `/api/threads/${res.body.thread_id}`, { token: w.viewer.token })).body
    expect(saved.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool'])
    expect(saved.messages[1].tool_calls[1]).toMatchObject({ id: 'bad', arguments: {}, invalid_arguments: { raw: '{"id": ' } })
    expect(saved.messages.slice(2).map((m: any) => m.tool_result.is_error)).toEqual([true, true])
  })

  test('the same over SSE with the mock: tool_call, an error tool_result, the error event, then done', async () => {
    const res = await chatEvents(w.t, w.viewer.token, { agent_name: AGENT, message: 'getTicket {"id": nope}' })
    expect(res.status).toBe(200)
    expect(res.events.map((e) => e.event)).toEqual(['tool_call', 'tool_result', 'error', 'done'])
    expect(res.events[1]!.data).toMatchObject({ is_error: true, content: expect.stringContaining('Malformed JSON in the arguments of "getTicket"') })
    expect(res.events[2]!.data.detail).toStartWith('The model sent a malformed tool call')
  })
})

describe('workflows', () => {
  test('a run waiting for approval is said in the chat with a link to approve it', async () => {
    const res = await chatEvents(w.t, w.viewer.token, { agent_name: AGENT, message: 'run_workflow {"workflow": "refund", "input": {"amount": 5}}' })
    const result = res.events.find((e) => e.event === 'tool_result')!.data
    expect(result.approval).toEqual({
      run_id: expect.any(String),
      agent: AGENT,
      workflow_name: 'refund',
      message: 'Refund 5?',
      url: `/approvals#run-${result.approval.run_id}`,
    })
    const message = res.events.find((e) => e.event === 'message')!.data
    expect(message.content).toEndWith(
      `The workflow "refund" is waiting for your approval: Refund 5?. Approve or reject it on the Approvals page: /approvals#run-${result.approval.run_id}`,
    )
    expect(deltaText(res.events)).toBe(message.content)
    const run = await w.t.request('GET', `/api/workflows/${AGENT}/runs/${result.approval.run_id}`, { token: w.viewer.token })
    expect(run.body.status).toBe('waiting_human')
    // Deciding it from the chat (resume_workflow) drops the note: nothing waits any more.
    const decided = await w.t.request('POST', '/api/chat', {
      token: w.viewer.token,
      body: { thread_id: res.events.at(-1)!.data.thread_id, message: `resume_workflow {"run_id": "${result.approval.run_id}", "decision": "approve"}` },
    })
    expect(decided.body.tool_calls).toMatchObject([{ name: 'resume_workflow', is_error: false }])
    expect(decided.body.tool_calls[0].approval).toBeUndefined()
    expect(decided.body.message.content).not.toContain('waiting for your approval')
  })
})
