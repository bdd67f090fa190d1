// External servers' tools in chat through the server's own wiring (the registry fills chat's externalTools port with
// the toolbox's external set; nothing plugged by the test): POST /api/chat with the mock model, which calls the tool a
// message names, reaches a real SDK MCP server on 127.0.0.1 with the caller's own token, and records the call under the
// server and the tool's own name in the thread. Someone who did not connect is not offered the tool; mock mode never
// reaches the server; a token the server refuses ends as a readable tool error in a saved turn, never a 500.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type McpWorld, registerServer, signIn, startServersWorld } from './helpers.ts'
import { TestMcpServer } from './upstream.ts'

let w: McpWorld
let notes: TestMcpServer
let tickets: TestMcpServer
const ticketTokens: Record<string, string> = { 'owner-ticket-token': 'owner@tickets' }

beforeAll(async () => {
  w = await startServersWorld()
  notes = new TestMcpServer({ auth: 'oauth' })
  tickets = new TestMcpServer({ auth: 'bearer', bearerTokens: ticketTokens })
  await registerServer(w, { name: 'notes', url: notes.url, auth: 'oauth' })
  await registerServer(w, { name: 'tickets', url: tickets.url, auth: 'bearer' })
  await signIn(w, notes, 'notes', w.owner.token, 'alice')
  await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: 'owner-ticket-token' } })
})
afterAll(async () => {
  notes.stop()
  tickets.stop()
  await w.stop()
})

const chat = (token: string, body: Record<string, unknown>) => w.t.request('POST', '/api/chat', { token, body })

async function recordedIn(threadId: string) {
  await w.t.server.modules.interactions.service.flush()
  return w.t.server.database.db
    .selectFrom('interactions')
    .select(['kind', 'api_title', 'action', 'is_error', 'client_source', 'user_id'])
    .where('conversation_id', '=', threadId)
    .orderBy('created_at')
    .execute()
}

describe('external MCP servers in chat (the registry wires the port)', () => {
  test("a connected member's turn calls the server's tool with their own token and records it in the thread", async () => {
    const res = await chat(w.owner.token, { message: 'notes__whoami {}' })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls).toMatchObject([{ name: 'notes__whoami', is_error: false, content: 'alice' }])
    expect(notes.callsOf('whoami')).toEqual([{ tool: 'whoami', arguments: {}, account: 'alice' }])
    const added = await chat(w.owner.token, { message: 'notes__add {"a": 2, "b": 40}', thread_id: res.body.thread_id })
    expect(added.body.tool_calls).toMatchObject([{ name: 'notes__add', is_error: false, content: '{"sum":42}' }])
    expect(await recordedIn(res.body.thread_id)).toEqual([
      { kind: 'mcp_tool', api_title: 'notes', action: 'whoami', is_error: 0, client_source: 'agentbox-copilot', user_id: w.owner.id },
      { kind: 'mcp_tool', api_title: 'notes', action: 'add', is_error: 0, client_source: 'agentbox-copilot', user_id: w.owner.id },
    ])
  })

  test('a member who connected nothing is not offered the tool: the model cannot call it, nothing reaches the server', async () => {
    const before = notes.calls.length
    const res = await chat(w.viewer.token, { message: 'notes__whoami {}' })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls).toEqual([])
    expect(notes.calls.length).toBe(before)
  })

  test('mock mode: the tool answers a simulation; the server is not called and nothing is recorded', async () => {
    const before = notes.calls.length
    const res = await chat(w.owner.token, { message: 'notes__whoami {}', mode: 'mock' })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls).toHaveLength(1)
    expect(res.body.tool_calls[0].content).toContain('Mock mode: the tool whoami of the MCP server notes was not called')
    expect(notes.calls.length).toBe(before)
    expect(await recordedIn(res.body.thread_id)).toEqual([])
  })

  test('a token the server stopped accepting: a readable tool error in a saved turn, and the server shows not connected with why', async () => {
    delete ticketTokens['owner-ticket-token']
    const res = await chat(w.owner.token, { message: 'tickets__whoami {}' })
    expect(res.status).toBe(200)
    expect(res.body.tool_calls).toMatchObject([
      {
        name: 'tickets__whoami',
        is_error: true,
        content: expect.stringContaining(
          "MCP server 'tickets' is not connected: The server refused the token: connect again on the MCP servers page of Agentbox",
        ),
      },
    ])
    const thread = await w.t.request('GET', `/api/threads/${res.body.thread_id}`, { token: w.owner.token })
    expect(thread.status).toBe(200)
    const server = await w.t.request('GET', '/api/mcp-servers/tickets', { token: w.owner.token })
    expect(server.body).toMatchObject({ connected: false, reason: 'The server refused the token: connect again on the MCP servers page of Agentbox' })
    // The next turn no longer offers the broken server's tools.
    expect((await chat(w.owner.token, { message: 'tickets__whoami {}' })).body.tool_calls).toEqual([])
  })
})
