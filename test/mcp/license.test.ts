// After the licence's grace period, MCP tools that change things answer a tool error (the HTTP API's 402 rule); tools
// that only read keep working.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { echoFlow } from './helpers.ts'

const DAY = 86_400_000
let t: TestServer
let org: string

const call = async (name: string, args: Record<string, unknown>) => {
  const res = await t.request('POST', '/agent/lapse-bot/mcp', {
    token: org,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  })
  expect(res.status).toBe(200)
  return res.body.result
}

beforeAll(async () => {
  t = await startTestServer()
  org = (await t.provision({ days: 1 })).orgToken
  await t.request('POST', '/api/agents', { token: org, body: { name: 'lapse-bot', description: 'd', instructions: 'i' } })
  await t.request('POST', '/api/agents/lapse-bot/skills', { token: org, body: { content: '---\nname: tiny\ndescription: A tiny skill.\n---\nSay hello.\n' } })
  await t.request('POST', '/api/workflows/lapse-bot', { token: org, body: { name: 'echo', definition: echoFlow() } })
  expect((await t.request('POST', '/api/agents/lapse-bot/publish', { token: org, body: {} })).status).toBe(201)
})
afterAll(() => t.close())

describe('licence past its grace period', () => {
  test('run_workflow is refused with a readable tool error; load_skill still answers', async () => {
    expect((await call('run_workflow', { workflow: 'echo', input: { text: 'before' } })).isError).toBeFalsy()
    t.clock.advance(16 * DAY) // a day to expiry, then 14 days of grace
    const refused = await call('run_workflow', { workflow: 'echo', input: { text: 'after' } })
    expect(refused.isError).toBe(true)
    expect(refused.content[0].text).toContain('License expired')
    const read = await call('load_skill', { name: 'tiny' })
    expect(read.isError).toBeFalsy()
    expect(read.structuredContent.body).toBe('Say hello.')
  })
})
