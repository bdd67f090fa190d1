// The user's settings shape the chat: personal context and language in the system prompt, prompt presets, conversation
// starters, follow-up suggestions (deterministic with the mock, asked of a real model otherwise); and the models a user
// may pick.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type FakeServer, startFakeServer } from '../llm/fake-servers.ts'
import { chatEvents } from './helpers.ts'
import { AGENT, type ChatWorld, startChatWorld } from './world.ts'

let w: ChatWorld
let openai: FakeServer
const OPENAI = { provider: 'openai', model: 'gpt-test' }

beforeAll(async () => {
  openai = startFakeServer('openai')
  w = await startChatWorld({ env: { AGENTBOX_OPENAI_BASE_URL: openai.url, AGENTBOX_OPENAI_API_KEY: 'k' } })
})
afterAll(async () => {
  await w.stop()
  await openai.close()
})

const settings = (token: string, body: Record<string, unknown>) => w.t.request('POST', '/api/user/settings/update', { token, body })
const chat = (token: string, body: Record<string, unknown>) => w.t.request('POST', '/api/chat', { token, body })

describe('the system prompt', () => {
  test('carries the personal context and the language, by name and code', async () => {
    await settings(w.viewer.token, {
      personal_context: { name: 'Dana', position: 'Support lead', traits: 'Prefers bullet points', additional_personalization: [{ team: 'EMEA' }] },
      language: 'he',
    })
    openai.requests.length = 0
    openai.behave({ reply: 'שלום' })
    const res = await chat(w.viewer.token, { agent_name: AGENT, model: OPENAI, message: 'hello' })
    expect(res.status).toBe(200)
    const system = openai.requests[0]!.body.messages[0].content as string
    expect(system).toContain('Answer about tickets.')
    expect(system).toContain(
      'About the user you are talking to:\nName: Dana\nPosition: Support lead\nTraits: Prefers bullet points\nMore about them: [{"team":"EMEA"}]',
    )
    expect(system).toContain("The user's language is Hebrew (he): answer in it unless they write in another language.")
    await settings(w.viewer.token, { personal_context: {}, language: 'en' })
  })
})

describe('prompt presets', () => {
  test("a preset's prompt goes before the message, in the thread too; its agent is used when the request names none", async () => {
    await settings(w.owner.token, {
      prompt_presets: [
        { id: 'brief', name: 'Brief', prompt: 'Answer in one line.' },
        { id: 'tickets', name: 'Tickets', prompt: 'Check getTicket {"id": "4"}', agent_name: AGENT },
      ],
    })
    const brief = await chat(w.owner.token, { preset_id: 'brief', message: 'What is Agentbox?' })
    expect(brief.body.message.content).toContain('You said: "Answer in one line.\n\nWhat is Agentbox?"')
    const saved = (await w.t.request('GET', `/api/threads/${brief.body.thread_id}`, { token: w.owner.token })).body
    expect(saved.messages[0]).toMatchObject({ content: 'Answer in one line.\n\nWhat is Agentbox?', metadata: { mode: 'live', preset_id: 'brief' } })
    expect(saved.title).toBe('What is Agentbox?')

    const tickets = await chat(w.owner.token, { preset_id: 'tickets', message: 'please' })
    expect(tickets.body.tool_calls).toMatchObject([{ name: 'getTicket', arguments: { id: '4' } }])
    expect((await w.t.request('GET', `/api/threads/${tickets.body.thread_id}`, { token: w.owner.token })).body.agent_name).toBe(AGENT)
    // Another user's presets are not yours.
    expect((await chat(w.viewer.token, { preset_id: 'brief', message: 'x' })).status).toBe(422)
  })
})

describe('conversation starters', () => {
  test('listed with the message each one sends', async () => {
    expect((await w.t.request('GET', '/api/chat/starters', { token: w.outsider.token })).body).toEqual([])
    await settings(w.outsider.token, {
      conversation_starters: [{ name: 'Open tickets', action: [{ api_name: 'tickets', user_input: 'Which tickets are open?' }] }, { name: 'Say hello' }],
    })
    const res = await w.t.request('GET', '/api/chat/starters', { token: w.outsider.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      { name: 'Open tickets', prompt: 'Which tickets are open?', action: [{ api_name: 'tickets', user_input: 'Which tickets are open?' }] },
      { name: 'Say hello', prompt: 'Say hello', action: [] },
    ])
    expect((await w.t.request('GET', '/api/chat/starters')).status).toBe(401)
  })
})

describe('follow-up suggestions', () => {
  test('off by default; on, the mock makes them from the turn (deterministic) and the thread keeps them', async () => {
    const off = await chatEvents(w.t, w.outsider.token, { message: 'hi' })
    expect(off.events.some((e) => e.event === 'suggestions')).toBe(false)
    await settings(w.viewer.token, { enable_follow_up_suggestions: true })
    const res = await chatEvents(w.t, w.viewer.token, { agent_name: AGENT, message: 'getTicket {"id": "1"}' })
    const names = res.events.map((e) => e.event)
    expect(names.slice(-3)).toEqual(['message', 'suggestions', 'done'])
    const items = res.events.find((e) => e.event === 'suggestions')!.data.items
    expect(items).toEqual(['Explain the result of getTicket', 'What can run_workflow do?', 'What can resume_workflow do?'])
    const json = await chat(w.viewer.token, { message: 'hello' })
    expect(json.body.suggestions).toEqual(['Summarise that in one sentence'])
    const saved = (await w.t.request('GET', `/api/threads/${json.body.thread_id}`, { token: w.viewer.token })).body
    expect(saved.messages[1].metadata.suggestions).toEqual(['Summarise that in one sentence'])
  })

  test('a real model is asked for them in one small extra call; a failure there leaves the answer without chips', async () => {
    openai.requests.length = 0
    openai.behave(
      { reply: 'The answer.', usage: { input: 10, output: 5 } },
      { reply: '1. Tell me more\n- "What next?"\n\nThanks', usage: { input: 7, output: 3 } },
    )
    const res = await chat(w.viewer.token, { model: OPENAI, message: 'question' })
    expect(res.body.suggestions).toEqual(['Tell me more', 'What next?', 'Thanks'])
    expect(res.body.usage).toEqual({ input_tokens: 17, output_tokens: 8 })
    expect(openai.requests).toHaveLength(2)
    expect(openai.requests[1]!.body.tools).toBeUndefined()
    expect(openai.requests[1]!.body.messages.at(-1).content).toContain('Suggest up to 3 short follow-up messages')
    openai.behave({ reply: 'The answer.' }, { status: 400, message: 'nope' })
    const failed = await chat(w.viewer.token, { model: OPENAI, message: 'question' })
    expect(failed.status).toBe(200)
    expect(failed.body.suggestions).toEqual([])
    await settings(w.viewer.token, { enable_follow_up_suggestions: false })
  })
})

describe('models', () => {
  test('the configured providers, the default model, and the model used when only a provider is named', async () => {
    const res = await w.t.request('GET', '/api/chat/models', { token: w.viewer.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      default: { provider: 'mock', model: 'mock' },
      providers: [
        { provider: 'mock', default_model: 'mock' },
        { provider: 'openai', default_model: null },
      ],
    })
    const unnamed = await chat(w.viewer.token, { message: 'x', model: { provider: 'openai' } })
    expect(unnamed.status).toBe(422)
    expect(unnamed.body.detail[0]).toMatchObject({ loc: ['body', 'model', 'model'], type: 'missing' })
  })
})
