// External servers' tools through chat's port (the agent toolbox's external tool set): `<server>__<tool>` for the
// servers a user can use, called with that user's own token (refreshed when near expiry), recorded as mcp_tool under
// the server's name; mock mode never reaches a server; listings are kept briefly; a refused refresh, an unreachable
// server and a tool's own error are readable tool errors, never a 500.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { entryOf, type McpWorld, recordedCalls, registerServer, signIn, startServersWorld } from './helpers.ts'
import { TestMcpServer } from './upstream.ts'

let w: McpWorld
let notes: TestMcpServer
let tickets: TestMcpServer
let open: TestMcpServer
const ticketTokens: Record<string, string> = { 'owner-ticket-token': 'owner@tickets', 'viewer-ticket-token': 'viewer@tickets' }

const principal = (userId: string): Principal => ({
  userId,
  email: `${userId}@example.com`,
  name: userId,
  role: 'member',
  kind: 'person',
  via: 'access_token',
  tokenId: null,
})
const toolbox = () => w.t.server.modules.toolbox.service

beforeAll(async () => {
  w = await startServersWorld()
  notes = new TestMcpServer({ auth: 'oauth' })
  tickets = new TestMcpServer({ auth: 'bearer', bearerTokens: ticketTokens, legacy: 'only' })
  open = new TestMcpServer({ auth: 'none', legacy: 'reject' })
  await registerServer(w, { name: 'notes', url: notes.url, auth: 'oauth' })
  await registerServer(w, { name: 'tickets', url: tickets.url, auth: 'bearer' })
  await registerServer(w, { name: 'open-data', url: open.url, auth: 'none' })
  await signIn(w, notes, 'notes', w.owner.token, 'alice')
  await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: 'owner-ticket-token' } })
})
afterAll(async () => {
  notes.stop()
  tickets.stop()
  open.stop()
  await w.stop()
})

async function call(userId: string, name: string, args: Record<string, unknown> = {}, mode: 'live' | 'mock' = 'live') {
  const set = await toolbox().forExternalServers(principal(userId), { mode })
  return toolbox().run(principal(userId), set, { name, arguments: args, clientSource: 'agentbox-copilot', conversationId: 'thread-1' })
}

describe('the external tool set (chat port)', () => {
  test('the servers a user can use, by name, each tool as <server>__<tool> (cleaned to the tool-name rules)', async () => {
    const set = await toolbox().forExternalServers(principal(w.owner.id), { mode: 'live' })
    expect(set.name).toBe('gateway')
    expect(set.tools.map((tool) => tool.name)).toEqual([
      'notes__whoami',
      'notes__add',
      'notes__fail',
      'notes__search_issues_by_label',
      'open-data__whoami',
      'open-data__add',
      'open-data__fail',
      'open-data__search_issues_by_label',
      'tickets__whoami',
      'tickets__add',
      'tickets__fail',
      'tickets__search_issues_by_label',
    ])
    const add = set.described().find((tool) => tool.name === 'notes__add')!
    expect(add.inputSchema).toEqual({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] })
    expect(add.title).toBe('Add two numbers')
    expect(set.instructions).toContain('notes, open-data, tickets')
    // A server's read-only claim is not trusted (the licence block treats external tools as changing things).
    expect(set.described().find((tool) => tool.name === 'notes__whoami')!.annotations).toEqual({ openWorldHint: true })
  })

  test('a member with no connection gets only the servers without auth; the port answers null for nobody-connected', async () => {
    const set = await toolbox().forExternalServers(principal(w.viewer.id), { mode: 'live' })
    expect(set.tools.every((tool) => tool.name.startsWith('open-data__'))).toBe(true)
    await w.t.request('DELETE', '/api/mcp-servers/open-data', { token: w.admin })
    expect(await toolbox().externalTools(principal(w.viewer.id), 'live')).toBeNull()
    await registerServer(w, { name: 'open-data', url: open.url, auth: 'none' })
    expect((await toolbox().externalTools(principal(w.viewer.id), 'live'))?.tools).toHaveLength(4)
  })

  test("each call carries the caller's own token: user B's connection never uses A's", async () => {
    expect((await call(w.owner.id, 'notes__whoami')).text).toBe('alice')
    expect((await call(w.owner.id, 'tickets__whoami')).text).toBe('owner@tickets')
    await signIn(w, notes, 'notes', w.viewer.token, 'bob')
    await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.viewer.token, body: { token: 'viewer-ticket-token' } })
    expect((await call(w.viewer.id, 'notes__whoami')).text).toBe('bob')
    expect((await call(w.viewer.id, 'tickets__whoami')).text).toBe('viewer@tickets')
    expect((await call(w.owner.id, 'notes__whoami')).text).toBe('alice')
    // The outsider connected nothing: the OAuth servers' tools are not theirs to call.
    const outsider = await call(w.outsider.id, 'notes__whoami')
    expect(outsider.outcome.ok).toBe(false)
    expect(outsider.text).toBe('Unknown tool: notes__whoami')
  })

  test('a call is recorded as mcp_tool under the server and the tool, with the client and conversation; structured content is the answer', async () => {
    const run = await call(w.owner.id, 'notes__add', { a: 2, b: 40 })
    expect(run.outcome).toEqual({ ok: true, content: { sum: 42 } })
    await run.recorded
    const recorded = (await recordedCalls(w)).at(-1)!
    expect(recorded).toMatchObject({ user_id: w.owner.id, api_title: 'notes', action: 'add', is_error: 0, client_source: 'agentbox-copilot' })
    expect(JSON.parse(recorded.arguments!)).toEqual({ a: 2, b: 40 })
    expect(notes.callsOf('add').at(-1)).toEqual({ tool: 'add', arguments: { a: 2, b: 40 }, account: 'alice' })
    // The tool name as the server knows it reaches the server, whatever it became in Agentbox.
    expect((await call(w.owner.id, 'tickets__search_issues_by_label', { label: 'bug' })).text).toBe('issues labelled bug')
    expect(tickets.callsOf().at(-1)?.tool).toBe('search.issues/by label')
  })

  test("a tool's own error is a tool error with the server's text, recorded as failed", async () => {
    const run = await call(w.owner.id, 'open-data__fail')
    expect(run.outcome.ok).toBe(false)
    expect(run.text).toBe('the upstream says no')
    await run.recorded
    expect((await recordedCalls(w)).at(-1)).toMatchObject({ api_title: 'open-data', action: 'fail', is_error: 1 })
  })

  test('mock mode: the same tools, a simulated answer, no request reaches the server, nothing recorded', async () => {
    const before = { calls: notes.calls.length, requests: notes.requests.length }
    const recordedBefore = (await recordedCalls(w)).length
    const run = await call(w.owner.id, 'notes__add', { a: 1, b: 1 }, 'mock')
    expect(run.outcome).toEqual({
      ok: true,
      content: { simulated: true, tool: 'notes__add', detail: 'Mock mode: the tool add of the MCP server notes was not called' },
    })
    expect(await run.recorded).toBeNull()
    expect(notes.calls.length).toBe(before.calls)
    expect(notes.requests.length).toBe(before.requests)
    expect((await recordedCalls(w)).length).toBe(recordedBefore)
  })
})

describe('tool lists are kept briefly', () => {
  test('a second listing within a minute asks no server; after a minute, or after connecting again, it asks again', async () => {
    await toolbox().forExternalServers(principal(w.owner.id), { mode: 'live' })
    const requests = notes.requests.length
    for (let i = 0; i < 3; i++) await toolbox().forExternalServers(principal(w.owner.id), { mode: 'live' })
    expect(notes.requests.length).toBe(requests)
    w.t.clock.advance(61_000)
    await toolbox().forExternalServers(principal(w.owner.id), { mode: 'live' })
    const afterExpiry = notes.requests.length
    expect(afterExpiry).toBeGreaterThan(requests)
    await toolbox().forExternalServers(principal(w.owner.id), { mode: 'live' })
    expect(notes.requests.length).toBe(afterExpiry)
    // A new connection is a new stamp in the database: the old listing is not used (another instance would see it too).
    await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: 'owner-ticket-token' } })
    const ticketRequests = tickets.requests.length
    await toolbox().forExternalServers(principal(w.owner.id), { mode: 'live' })
    expect(tickets.requests.length).toBeGreaterThan(ticketRequests)
    expect(notes.requests.length).toBe(afterExpiry)
  })
})

describe('tokens that expire', () => {
  test('an access token near its expiry is refreshed first (with the resource), and the new one is sent', async () => {
    expect((await call(w.owner.id, 'notes__whoami')).text).toBe('alice')
    const refreshes = () => notes.as!.tokenRequests.filter((form) => form.get('grant_type') === 'refresh_token')
    const before = refreshes().length
    const oldToken = notes.requests.at(-1)
    w.t.clock.advance(3600_000)
    expect((await call(w.owner.id, 'notes__whoami')).text).toBe('alice')
    expect(refreshes()).toHaveLength(before + 1)
    expect(refreshes().at(-1)!.get('resource')).toBe(notes.url)
    expect(notes.requests.at(-1)).not.toBe(oldToken)
    // The old access token was revoked by the rotation at the authorization server: the call only worked with the new one.
    expect(notes.as!.access.get(oldToken!.slice('Bearer '.length))?.revoked).toBe(true)
  })

  test('a refresh token the authorization server revoked: a readable tool error, the server not connected with why, no 500', async () => {
    // The tools were listed (a chat turn began, a gateway client listed them); then the sign-in lapses.
    const listed = await toolbox().forExternalServers(principal(w.viewer.id), { mode: 'live' })
    notes.as!.revokeAll('bob')
    w.t.clock.advance(3600_000)
    const run = await toolbox().run(principal(w.viewer.id), listed, { name: 'notes__whoami', arguments: {} })
    expect(run.outcome.ok).toBe(false)
    expect(run.outcome.ok === false && run.outcome.error.code).toBe('not_authenticated')
    expect(run.text).toBe(
      "MCP server 'notes' is not connected: The sign-in expired and the authorization server refused to renew it (invalid_grant): connect again on the MCP servers page of Agentbox",
    )
    const entry = await entryOf(w, w.viewer.token, 'notes')
    expect(entry).toMatchObject({ connected: false })
    expect(entry?.reason).toContain('refused to renew it (invalid_grant)')
    const set = await toolbox().forExternalServers(principal(w.viewer.id), { mode: 'live' })
    expect(set.tools.some((tool) => tool.name.startsWith('notes__'))).toBe(false)
    const tools = await w.t.request('GET', '/api/mcp-servers/notes/tools', { token: w.viewer.token })
    expect(tools.status).toBe(400)
    // Alice's connection is hers, and still works.
    expect((await call(w.owner.id, 'notes__whoami')).text).toBe('alice')
    // Connecting again clears the reason.
    await signIn(w, notes, 'notes', w.viewer.token, 'bob')
    expect(await entryOf(w, w.viewer.token, 'notes')).toMatchObject({ connected: true, reason: null })
  })

  test('a bearer token the server stops accepting: a readable tool error, not connected with why, left out of the next listing', async () => {
    const listed = await toolbox().forExternalServers(principal(w.viewer.id), { mode: 'live' })
    expect(listed.tool('tickets__whoami')).toBeDefined()
    delete ticketTokens['viewer-ticket-token']
    const run = await toolbox().run(principal(w.viewer.id), listed, { name: 'tickets__whoami', arguments: {} })
    expect(run.outcome.ok).toBe(false)
    expect(run.text).toBe("MCP server 'tickets' is not connected: The server refused the token: connect again on the MCP servers page of Agentbox")
    expect(await entryOf(w, w.viewer.token, 'tickets')).toMatchObject({ connected: false, reason: expect.stringContaining('refused the token') })
    const next = await toolbox().forExternalServers(principal(w.viewer.id), { mode: 'live' })
    expect(next.tools.some((tool) => tool.name.startsWith('tickets__'))).toBe(false)
    // A new token that the server refuses at once: its first listing finds out, and leaves the server out.
    await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.viewer.token, body: { token: 'never-valid' } })
    expect(await entryOf(w, w.viewer.token, 'tickets')).toMatchObject({ connected: true })
    const again = await toolbox().forExternalServers(principal(w.viewer.id), { mode: 'live' })
    expect(again.tools.some((tool) => tool.name.startsWith('tickets__'))).toBe(false)
    expect(await entryOf(w, w.viewer.token, 'tickets')).toMatchObject({ connected: false })
    // The owner's token still works.
    expect((await call(w.owner.id, 'tickets__whoami')).text).toBe('owner@tickets')
  })
})

describe('servers that cannot be used', () => {
  test('an unreachable server: its tools are left out with why, calling one is a readable error; GET …/tools is 502', async () => {
    const gone = new TestMcpServer({ auth: 'none' })
    const url = gone.url
    gone.stop()
    await registerServer(w, { name: 'gone', url, auth: 'none' })
    const set = await toolbox().forExternalServers(principal(w.owner.id), { mode: 'live' })
    expect(set.tools.some((tool) => tool.name.startsWith('gone__'))).toBe(false)
    expect(set.instructions).toContain('Unavailable just now: gone (The MCP server cannot be reached)')
    const tools = await w.t.request('GET', '/api/mcp-servers/gone/tools', { token: w.owner.token })
    expect(tools.status).toBe(502)
    expect(tools.body.detail).toBe('The MCP server cannot be reached')
    // A tool name the model remembered from an earlier listing: the set no longer has it.
    expect((await call(w.owner.id, 'gone__whoami')).text).toBe('Unknown tool: gone__whoami')
  })

  test("GET …/tools lists a connected server's tools with their gateway names", async () => {
    const res = await w.t.request('GET', '/api/mcp-servers/notes/tools', { token: w.owner.token })
    expect(res.status).toBe(200)
    expect(res.body.tools[3]).toEqual({
      name: 'notes__search_issues_by_label',
      tool: 'search.issues/by label',
      title: null,
      description: 'A name that MCP allows but model APIs do not',
    })
  })
})
