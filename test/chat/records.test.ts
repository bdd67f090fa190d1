// A chat turn's tool calls leave the same interaction as the same calls through the agent's MCP endpoint and through
// the HTTP API (one record, built by the toolbox for every transport): the same user, kind, server, action, arguments,
// result and error flag; only who asked differs (client_source, and chat's conversation and user input).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { AGENT, type ChatWorld, startChatWorld } from './world.ts'

let w: ChatWorld

beforeAll(async () => {
  w = await startChatWorld()
})
afterAll(() => w.stop())

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

async function rowsAfter(mark: number) {
  await w.settle()
  const rows = await w.t.server.database.db
    .selectFrom('interactions')
    .select(['user_id', 'kind', 'api_title', 'action', 'is_error', 'arguments', 'result', 'client_source', 'conversation_id', 'user_input', 'duration_seconds'])
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.slice(mark).map((row) => ({ ...row, is_error: Boolean(row.is_error) }))
}

/** A recorded result with what differs from call to call (the upstream's time, a new run's id) named, not valued. */
function steadyResult(result: string | null) {
  const recorded = JSON.parse(result!) as { isError: boolean; text: string; status?: number }
  let text: unknown = recorded.text
  try {
    text = JSON.parse(recorded.text, (key, value) => (key === 'duration_ms' || key === 'run_id' ? `<${key}>` : value))
  } catch {
    // A plain-text answer (an error's words, a skill) is compared as it is.
  }
  return { ...recorded, text }
}

/** What must be the same whichever door the call came through. */
const sameFor = ({ user_id, kind, api_title, action, is_error, arguments: args, result }: Awaited<ReturnType<typeof rowsAfter>>[number]) => ({
  user_id,
  kind,
  api_title,
  action,
  is_error,
  arguments: args,
  result: steadyResult(result),
})

const CALLS: [string, Record<string, unknown>][] = [
  ['getTicket', { id: '42' }],
  ['getTicket', {}],
  ['run_workflow', { workflow: 'echo', input: { text: 'same' } }],
  ['load_skill', { name: 'triage' }],
]

test.each(CALLS)('%p %p: the chat records the call as the MCP endpoint does', async (name, args) => {
  let mark = (await rowsAfter(0)).length
  const message = `${name} ${JSON.stringify(args)}`
  const chat = await w.t.request('POST', '/api/chat', { token: w.viewer.token, body: { agent_name: AGENT, message } })
  expect(chat.status).toBe(200)
  expect(chat.body.tool_calls.map((call: any) => call.name)).toEqual([name])
  const [fromChat, ...moreFromChat] = await rowsAfter(mark)
  expect(moreFromChat).toEqual([])
  mark += 1

  const mcp = await w.t.request('POST', `/agent/${AGENT}/mcp`, {
    token: w.viewer.token,
    headers: MCP_HEADERS,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  })
  expect(mcp.status).toBe(200)
  expect(mcp.body.result.isError ?? false).toBe(chat.body.tool_calls[0].is_error)
  const [fromMcp, ...moreFromMcp] = await rowsAfter(mark)
  expect(moreFromMcp).toEqual([])

  expect(sameFor(fromChat!)).toEqual(sameFor(fromMcp!))
  expect(fromChat).toMatchObject({
    kind: 'mcp_tool',
    api_title: AGENT,
    action: name,
    client_source: 'agentbox-copilot',
    conversation_id: chat.body.thread_id,
    user_input: message,
    duration_seconds: expect.any(Number),
  })
  expect(fromMcp).toMatchObject({ conversation_id: null, user_input: null, duration_seconds: expect.any(Number) })
  expect(fromMcp!.client_source).not.toBe('agentbox-copilot')
})

test('an operation called in the chat and through POST …/execute: the same arguments and result', async () => {
  let mark = (await rowsAfter(0)).length
  const chat = await w.t.request('POST', '/api/chat', { token: w.viewer.token, body: { agent_name: AGENT, message: 'getTicket {"id": "7"}' } })
  expect(chat.status).toBe(200)
  const [fromChat] = await rowsAfter(mark)
  mark += 1
  const execute = await w.t.request('POST', '/api/applications/tickets/operations/getTicket/execute', {
    token: w.viewer.token,
    body: { arguments: { id: '7' } },
  })
  expect(execute.status).toBe(200)
  const [fromExecute, ...more] = await rowsAfter(mark)
  expect(more).toEqual([])
  // The HTTP door records an API action under the application; the agent's tool a tool call under the agent.
  expect(fromExecute).toMatchObject({ kind: 'api_action', action: 'getTicket', client_source: 'agentbox-api' })
  expect(fromChat).toMatchObject({ kind: 'mcp_tool', api_title: AGENT, action: 'getTicket' })
  expect({ arguments: fromChat!.arguments, result: steadyResult(fromChat!.result), is_error: fromChat!.is_error, user_id: fromChat!.user_id }).toEqual({
    arguments: fromExecute!.arguments,
    result: steadyResult(fromExecute!.result),
    is_error: fromExecute!.is_error,
    user_id: fromExecute!.user_id,
  })
})
