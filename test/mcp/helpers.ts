// Shared setup for the MCP endpoint tests: a provisioned server listening on a real loopback port, an agent with a
// published workflow, and the official SDK clients (v1 and v2) connected to it with a bearer token.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { type People, startWithPeople } from '../helpers/people.ts'
import { node } from '../workflows/helpers.ts'

export interface McpWorld extends People {
  /** http://127.0.0.1:<port> */
  base: string
  stop(): Promise<void>
}

export async function startMcpWorld(options: Parameters<typeof startWithPeople>[0] = {}): Promise<McpWorld> {
  const people = await startWithPeople(options)
  const listener = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request, server) => people.t.server.fetch(request, server as never) })
  return {
    ...people,
    base: `http://127.0.0.1:${listener.port}`,
    async stop() {
      await listener.stop(true)
      await people.t.close()
    },
  }
}

/** A one-step workflow that answers its input back: `{echo: <input.text>}`. */
export const echoFlow = () => ({
  nodes: [node('out', 'output', { value: { echo: '{{ $json.text }}' } })],
  connections: [],
})

let agents = 0
/** A legacy (2025-era) initialize naming its client: stateless calls after it carry no clientInfo. */
export const legacyInitialize = (name: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name, version: '1' } },
})

/** A tools/call of the echo workflow (agentWithEcho) with `text`, to find its record by. */
export const echoCall = (text: string) => ({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'run_workflow', arguments: { workflow: 'echo', input: { text } } },
})

/** An agent owned by `owner`, shared with the viewer, with `echo` published; returns its name. */
export async function agentWithEcho(w: People, options: { instructions?: string } = {}): Promise<string> {
  const name = `mcp-bot-${++agents}`
  const created = await w.t.request('POST', '/api/agents', {
    token: w.owner.token,
    body: { name, description: 'Answers questions', instructions: options.instructions ?? 'Be brief.' },
  })
  if (created.status !== 201) throw new Error(`agent: ${created.status} ${JSON.stringify(created.body)}`)
  await w.t.request('POST', `/api/agents/${name}/members`, { token: w.owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })
  const flow = await w.t.request('POST', `/api/workflows/${name}`, { token: w.owner.token, body: { name: 'echo', definition: echoFlow() } })
  if (flow.status !== 201) throw new Error(`workflow: ${flow.status} ${JSON.stringify(flow.body)}`)
  const published = await w.t.request('POST', `/api/agents/${name}/publish`, { token: w.owner.token, body: {} })
  if (published.status !== 201) throw new Error(`publish: ${published.status} ${JSON.stringify(published.body)}`)
  return name
}

const headers = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

/** The SDK's v1 client (protocol 2025-11-25), connected. */
export async function connectV1(url: string, token: string, name = 'test-client-v1'): Promise<ClientV1> {
  const client = new ClientV1({ name, version: '1.0.0' })
  await client.connect(new TransportV1(new URL(url), { requestInit: headers(token) }))
  return client
}

/** The SDK's v2 client, negotiating the newest protocol both sides speak (2026-07-28 against this server). */
export async function connectV2(url: string, token: string, name = 'test-client-v2'): Promise<ClientV2> {
  const client = new ClientV2({ name, version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } })
  await client.connect(new TransportV2(new URL(url), { requestInit: headers(token) }))
  return client
}

/** One raw JSON-RPC POST, as a client library would send it (legacy era unless `modern`). */
export async function rpc(
  url: string,
  token: string | null,
  body: unknown,
  extra: { headers?: Record<string, string>; method?: string } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, {
    method: extra.method ?? 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token && { authorization: `Bearer ${token}` }),
      ...extra.headers,
    },
    body: extra.method && extra.method !== 'POST' ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    // SSE or plain text: keep it
  }
  return { status: response.status, headers: response.headers, body: parsed }
}

/** The `mcp_tool` interactions recorded so far, oldest first (there is no list endpoint; summaries aggregate them). */
export async function recordedCalls(w: People) {
  // Calls are recorded after they answer (group commit): wait for every record queued so far.
  await w.t.server.modules.interactions.service.flush()
  return w.t.server.database.db
    .selectFrom('interactions')
    .select(['user_id', 'api_title', 'action', 'is_error', 'client_source', 'arguments', 'result'])
    .where('kind', '=', 'mcp_tool')
    .orderBy('created_at')
    .execute()
}
