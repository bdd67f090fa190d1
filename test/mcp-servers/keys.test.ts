// A database restored without its keys file: the stored tokens cannot be opened, so every connection says so (not
// connected, with why) and the server's tools are left out; nothing answers 500, and connecting again works.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { entryOf, type McpWorld, registerServer, startServersWorld } from './helpers.ts'
import { TestMcpServer } from './upstream.ts'

let w: McpWorld
let up: TestMcpServer

beforeAll(async () => {
  w = await startServersWorld()
  up = new TestMcpServer({ auth: 'bearer', bearerTokens: { first: 'owner', second: 'owner-again' } })
  await registerServer(w, { name: 'tickets', url: up.url, auth: 'bearer' })
  await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: 'first' } })
})
afterAll(async () => {
  up.stop()
  await w.stop()
})

test('restored without its keys: not connected with the reason, no tools, no 500; a new token works', async () => {
  expect((await entryOf(w, w.owner.token, 'tickets'))?.connected).toBe(true)
  // A restart reads the keyring afresh on first use: as after restoring a backup without FILE.keys. (Removed after the
  // boot: on PostgreSQL a boot without the key the database records refuses to start, which is the shared-keys test's.)
  await w.t.restart()
  rmSync(join(w.t.dataDir, 'secrets', 'credentials.key'))
  const entry = await entryOf(w, w.owner.token, 'tickets')
  expect(entry?.connected).toBe(false)
  expect(entry?.reason).toStartWith('The token cannot be opened (')
  const listed = await w.t.request('POST', '/mcp/gateway', {
    token: w.owner.token,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  })
  expect(listed.status).toBe(200)
  expect(listed.body.result.tools).toEqual([])
  // Nothing was sent to the server: there is no token to send.
  expect(up.requests).toEqual([])
  await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: 'second' } })
  expect((await entryOf(w, w.owner.token, 'tickets'))?.connected).toBe(true)
})
