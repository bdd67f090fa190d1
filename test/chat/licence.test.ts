// After the licence's grace period the chat still answers, like the MCP endpoints: tools that change things answer a
// readable error result (the toolbox's rule), tools that only read keep working.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { echoFlow } from '../mcp/helpers.ts'

const DAY = 86_400_000
let t: TestServer
let org: string

beforeAll(async () => {
  t = await startTestServer()
  org = (await t.provision({ days: 1 })).orgToken
  await t.request('POST', '/api/agents', { token: org, body: { name: 'lapse-bot', description: 'd', instructions: 'i' } })
  await t.request('POST', '/api/agents/lapse-bot/skills', { token: org, body: { content: '---\nname: tiny\ndescription: A tiny skill.\n---\nSay hello.\n' } })
  await t.request('POST', '/api/workflows/lapse-bot', { token: org, body: { name: 'echo', definition: echoFlow() } })
  expect((await t.request('POST', '/api/agents/lapse-bot/publish', { token: org, body: {} })).status).toBe(201)
})
afterAll(() => t.close())

test('past the grace period: the turn answers, run_workflow is refused as a tool error, load_skill still reads', async () => {
  t.clock.advance(16 * DAY)
  const res = await t.request('POST', '/api/chat', {
    token: org,
    body: { agent_name: 'lapse-bot', message: 'run_workflow {"workflow": "echo", "input": {"text": "x"}} then load_skill {"name": "tiny"}' },
  })
  expect(res.status).toBe(200)
  expect(res.body.tool_calls.map((c: any) => [c.name, c.is_error])).toEqual([
    ['run_workflow', true],
    ['load_skill', false],
  ])
  expect(res.body.tool_calls[0].content).toContain('License expired')
  // Other writes still answer 402, as before.
  expect((await t.request('POST', '/api/agents', { token: org, body: { name: 'new-bot', description: 'd', instructions: 'i' } })).status).toBe(402)
})
