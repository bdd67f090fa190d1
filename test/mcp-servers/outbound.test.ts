// External MCP servers follow the outbound rules at every connection, not only when saved: a loopback server is
// refused when saved until an admin allows it (outbound_allow), and once the entry is removed again every listing,
// call and sign-in is refused before anything connects ("Destination not allowed"). No AGENTBOX_OUTBOUND_ALLOW here.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { type McpWorld, registerServer, startServersWorld } from './helpers.ts'
import { TestMcpServer } from './upstream.ts'

let w: McpWorld
let up: TestMcpServer
let guarded: TestMcpServer

const principal = (userId: string): Principal => ({
  userId,
  email: 'o@example.com',
  name: 'o',
  role: 'member',
  kind: 'person',
  via: 'access_token',
  tokenId: null,
})
const allow = (entries: string[]) => w.t.request('PUT', '/api/org/settings', { token: w.admin, body: { outbound_allow: entries } })

beforeAll(async () => {
  w = await startServersWorld({ env: { AGENTBOX_OUTBOUND_ALLOW: '' } })
  up = new TestMcpServer({ auth: 'bearer', bearerTokens: { t: 'owner' } })
  guarded = new TestMcpServer({ auth: 'oauth' })
})
afterAll(async () => {
  up.stop()
  guarded.stop()
  await w.stop()
})

test('refused when saved, saved once allowed, refused again at every connection once the allowance is gone', async () => {
  const refused = await w.t.request('POST', '/api/mcp-servers', { token: w.admin, body: { name: 'local', url: up.url, auth: 'bearer' } })
  expect(refused.status).toBe(422)
  expect(refused.body.detail[0].msg).toBe('Destination not allowed (loopback address): an admin can allow it in the outbound_allow setting')

  expect((await allow(['127.0.0.1'])).status).toBe(200)
  await registerServer(w, { name: 'local', url: up.url, auth: 'bearer' })
  await registerServer(w, { name: 'guarded', url: guarded.url, auth: 'oauth' })
  await w.t.request('PUT', '/api/mcp-servers/local/connection', { token: w.owner.token, body: { token: 't' } })
  const toolbox = w.t.server.modules.toolbox.service
  const listed = await toolbox.forExternalServers(principal(w.owner.id), { mode: 'live' })
  expect(listed.tools.map((tool) => tool.name)).toContain('local__whoami')
  expect((await toolbox.run(principal(w.owner.id), listed, { name: 'local__whoami', arguments: {} })).text).toBe('owner')

  expect((await allow([])).status).toBe(200)
  const requests = up.requests.length
  const call = await toolbox.run(principal(w.owner.id), listed, { name: 'local__whoami', arguments: {} })
  expect(call.outcome.ok).toBe(false)
  expect(call.text).toBe("MCP server 'local': Destination not allowed")
  w.t.clock.advance(61_000)
  const relisted = await toolbox.forExternalServers(principal(w.owner.id), { mode: 'live' })
  expect(relisted.tools).toEqual([])
  expect(relisted.instructions).toContain('Unavailable just now: local (Destination not allowed)')
  const signIn = await w.t.request('POST', '/api/mcp-servers/guarded/connect', { token: w.owner.token })
  expect(signIn.status).toBe(502)
  expect(signIn.body.detail).toBe("Could not sign in to MCP server 'guarded': Destination not allowed")
  // Refused before connecting: the servers saw nothing after the allowance went.
  expect(up.requests.length).toBe(requests)
  expect(guarded.requests).toEqual([])
  // Still connected: the token is fine, the destination is what is refused.
  const entry = (await w.t.request('GET', '/api/mcp-servers/local', { token: w.owner.token })).body
  expect(entry).toMatchObject({ connected: true, reason: null })
})
