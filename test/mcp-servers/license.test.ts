// After the licence's grace period no external tool runs, even one its server calls read-only: a server's own claim
// does not lift the licence's block. The refusal is a readable tool error and nothing reaches the server.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { TestMcpServer } from './upstream.ts'

const DAY = 86_400_000
let t: TestServer
let org: string
let up: TestMcpServer

const call = async (name: string) => {
  const res = await t.request('POST', '/mcp/gateway', {
    token: org,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
  })
  expect(res.status).toBe(200)
  return res.body.result
}

beforeAll(async () => {
  up = new TestMcpServer({ auth: 'none' })
  t = await startTestServer({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  org = (await t.provision({ days: 1 })).orgToken
  expect((await t.request('POST', '/api/mcp-servers', { token: org, body: { name: 'open', url: up.url, auth: 'none' } })).status).toBe(201)
})
afterAll(async () => {
  up.stop()
  await t.close()
})

test('a read-only external tool is refused once the licence has lapsed', async () => {
  expect((await call('open__whoami')).content[0].text).toBe('anonymous')
  t.clock.advance(16 * DAY)
  const calls = up.calls.length
  const refused = await call('open__whoami')
  expect(refused.isError).toBe(true)
  expect(refused.content[0].text).toContain('License expired')
  expect(up.calls.length).toBe(calls)
})
