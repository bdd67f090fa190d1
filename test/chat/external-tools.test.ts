// External MCP servers' tools join the chat through the chat service's port (ExternalTools): a ToolSet whose tools are
// named `<server>__<tool>`, merged after the agent's, each call run through the toolbox with the set it came from (so it
// is recorded, or simulated in mock mode); a failing source leaves the chat working. Also the resource read the console
// uses to draw a tool's UI template (MCP Apps) and skills.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Principal } from '../../src/platform/auth/principal.ts'
import type { ToolMode } from '../../src/platform/tools/tool.ts'
import { type FakeServer, startFakeServer } from '../llm/fake-servers.ts'
import { chatEvents } from './helpers.ts'
import { UI, weatherSet } from './weather-tools.ts'
import { AGENT, type ChatWorld, recordedIn, SKILL, startChatWorld } from './world.ts'

let w: ChatWorld
let openai: FakeServer
const OPENAI = { provider: 'openai', model: 'gpt-test' }
const TEMPLATE = '<!doctype html><html><body><p id="out">waiting</p></body></html>'
const alerts: string[] = []
const weather = (mode: ToolMode) => weatherSet(mode, TEMPLATE, alerts)

beforeAll(async () => {
  openai = startFakeServer('openai')
  w = await startChatWorld({ env: { AGENTBOX_OPENAI_BASE_URL: openai.url, AGENTBOX_OPENAI_API_KEY: 'k' } })
  // The viewer connected the weather server; nobody else did. The source always answers a live set: the chat puts it in
  // the turn's mode itself.
  w.t.server.modules.chat.service.plugExternalTools(async (principal: Principal) => (principal.userId === w.viewer.id ? weather('live') : null))
})
afterAll(async () => {
  await w.stop()
  await openai.close()
})

const chat = (token: string, body: Record<string, unknown>) => w.t.request('POST', '/api/chat', { token, body })

describe('external tools in the chat', () => {
  test('without an agent: offered, called with its _meta in the events, run and recorded under its server', async () => {
    const res = await chatEvents(w.t, w.viewer.token, { message: 'weather__forecast {"city": "Lyon"}' })
    const call = res.events.find((e) => e.event === 'tool_call')!.data
    expect(call).toMatchObject({ name: 'weather__forecast', arguments: { city: 'Lyon' }, _meta: { ui: UI, 'ui/resourceUri': UI.resourceUri } })
    const result = res.events.find((e) => e.event === 'tool_result')!.data
    expect(result).toMatchObject({ is_error: false, content: '{"city":"Lyon","temp":21}', _meta: { ui: UI } })
    const recorded = await recordedIn(w, res.events.at(-1)!.data.thread_id)
    expect(recorded).toMatchObject([{ kind: 'mcp_tool', api_title: 'weather', action: 'weather__forecast', client_source: 'agentbox-copilot' }])
    // Someone who did not connect it does not get it.
    const other = await chat(w.owner.token, { message: 'weather__forecast {"city": "Lyon"}' })
    expect(other.body.tool_calls).toEqual([])
  })

  test("with an agent: the agent's tools first, then the external ones", async () => {
    openai.requests.length = 0
    openai.behave({ reply: 'ok' })
    await chat(w.viewer.token, { agent_name: AGENT, model: OPENAI, message: 'hi' })
    expect(openai.requests[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual([
      'run_workflow',
      'resume_workflow',
      'getTicket',
      'closeTickets',
      'load_skill',
      'weather__forecast',
      'weather__alert',
    ])
  })

  test('mock mode simulates them too, and records nothing', async () => {
    const res = await chat(w.viewer.token, { mode: 'mock', message: 'weather__alert now' })
    expect(JSON.parse(res.body.tool_calls[0].content)).toMatchObject({ simulated: true, tool: 'weather__alert' })
    expect(alerts).toEqual([])
    expect(await recordedIn(w, res.body.thread_id)).toEqual([])
    const live = await chat(w.viewer.token, { message: 'weather__alert now' })
    expect(live.body.tool_calls[0].content).toBe('{"sent":true}')
    expect(alerts).toEqual(['viewer@example.com'])
  })

  test('a source that fails leaves its tools out and the chat working', async () => {
    const service = w.t.server.modules.chat.service
    service.plugExternalTools(async () => {
      throw new Error('weather server unreachable')
    })
    try {
      const res = await chat(w.viewer.token, { message: 'weather__forecast {"city": "Oslo"}' })
      expect(res.status).toBe(200)
      expect(res.body.tool_calls).toEqual([])
      expect(w.t.log.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'external tools left out of a chat turn' }))
    } finally {
      service.plugExternalTools(async (principal: Principal) => (principal.userId === w.viewer.id ? weather('live') : null))
    }
  })
})

describe('GET /api/chat/resource', () => {
  test('a tool’s UI template, as resources/read answers it, with its _meta.ui', async () => {
    const res = await w.t.request('GET', `/api/chat/resource?uri=${encodeURIComponent(UI.resourceUri)}`, { token: w.viewer.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      contents: [
        { uri: UI.resourceUri, mimeType: 'text/html;profile=mcp-app', text: TEMPLATE, _meta: { ui: { prefersBorder: true, csp: { connectDomains: [] } } } },
      ],
    })
    expect((await w.t.request('GET', `/api/chat/resource?uri=${encodeURIComponent(UI.resourceUri)}`, { token: w.owner.token })).status).toBe(404)
  })

  test("an agent's skill; the draft's for owners only; unknown resources and agents are 404; no uri is a 422", async () => {
    const skill = await w.t.request('GET', `/api/chat/resource?agent_name=${AGENT}&uri=${encodeURIComponent(`skill://${AGENT}/triage`)}`, {
      token: w.viewer.token,
    })
    expect(skill.body.contents[0]).toEqual({ uri: `skill://${AGENT}/triage`, mimeType: 'text/markdown', text: SKILL })
    const design = `/api/chat/resource?agent_name=${AGENT}&mode=design&uri=${encodeURIComponent(`skill://${AGENT}/triage`)}`
    expect((await w.t.request('GET', design, { token: w.viewer.token })).status).toBe(403)
    expect((await w.t.request('GET', design, { token: w.owner.token })).status).toBe(200)
    expect((await w.t.request('GET', `/api/chat/resource?agent_name=${AGENT}&uri=ui%3A%2F%2Fnope`, { token: w.viewer.token })).body).toEqual({
      detail: 'Resource not found',
    })
    expect((await w.t.request('GET', `/api/chat/resource?agent_name=nobody&uri=x`, { token: w.viewer.token })).status).toBe(404)
    const missing = await w.t.request('GET', '/api/chat/resource', { token: w.viewer.token })
    expect(missing.status).toBe(422)
    expect(missing.body.detail[0].loc).toEqual(['query', 'uri'])
    const version = await w.t.request('GET', `/api/chat/resource?uri=x&mode=live&version=draft`, { token: w.viewer.token })
    expect(version.body.detail[0].loc).toEqual(['query', 'version'])
  })
})
