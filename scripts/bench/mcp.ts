// MCP endpoint benchmark (issue 17), in process, server time only:
//   call      tools/call of a trivial tool (load_skill of a 200-byte skill) through /agent/{name}/mcp, from the SDK's v1
//             client (2025-11-25) and v2 client (2026-07-28)
//   raw       the same tools/call as raw JSON-RPC of either era (what the clients send) with no client in the process
//   http      the same work through the HTTP API: GET /api/agents/{name}/skills/{skill}
//   list      tools/list on an agent whose application has 1,000 operations (1,002 tools: run_workflow, resume_workflow and one per operation), v1 and v2 clients;
//             every page (1,000 tools a page: two requests since issue 27, timed together)
//   auth/me   GET /api/auth/me: the cheapest authenticated request
// The clients run in this process with a fetch that hands each request to server.fetch (request id, access log, auth,
// the SDK, the tool, the recorded interaction); only the time from the request to its read body is counted, so the
// client's own work is not. Cases are interleaved per round; figures are medians of every sample.
//
//   bun scripts/bench/mcp.ts [--operations 1000] [--rounds 5] [--iterations 200] [--json FILE]
//
// Targets: MCP adds < 100 µs of server time per call over the HTTP API; tools/list with 1,000 tools < 5 ms.
// Correctness is checked every round (exit 1): every call succeeds and lists have every tool.
import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { intOption, median, startBenchServer } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    operations: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    iterations: { type: 'string', default: '200' },
    json: { type: 'string' },
  },
})
const OPERATIONS = intOption(opts.operations!, '--operations')
const ROUNDS = intOption(opts.rounds!, '--rounds')
const ITERATIONS = intOption(opts.iterations!, '--iterations')

// ------------------------------------------------------------------------------------------------------------ set-up

const { server, token, call } = await startBenchServer('mcp')
// One tool per operation for the 1,000-operation agent (above the default limit of 64 it would be offered through
// find_operations and call_operation; scripts/bench/toolbox.ts measures that mode). Servers without the setting ignore it.
await call('PUT', '/api/org/settings', token, { mcp_operation_tool_limit: 1000 })

/** Server time of one request: from handing it over to having read the whole answer. */
async function timed(request: Request): Promise<{ response: Response; ms: number }> {
  const started = performance.now()
  const response = await server.fetch(request)
  const body = await response.arrayBuffer()
  const ms = performance.now() - started
  return { response: new Response(body, { status: response.status, headers: response.headers }), ms }
}

const SKILL = '---\nname: tiny\ndescription: A tiny skill for the benchmark.\n---\nSay hello, then answer the question in one line.\n'
await call('POST', '/api/agents', token, { name: 'small-bot', description: 'd', instructions: 'Be brief.' })
await call('POST', '/api/agents/small-bot/skills', token, { content: SKILL })
await call('POST', '/api/agents/small-bot/publish', token, {})

// An application with OPERATIONS operations, each with a path parameter and a query parameter: 1,000 tools to list.
const paths: Record<string, unknown> = {}
for (let i = 0; i < OPERATIONS; i++) {
  paths[`/things-${i}/{id}`] = {
    get: {
      operationId: `getThing${i}`,
      summary: `Read thing ${i}`,
      description: `Returns thing ${i} by id, with its owner and history.`,
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'expand', in: 'query', schema: { type: 'array', items: { type: 'string', enum: ['owner', 'history'] } } },
      ],
      responses: { '200': { description: 'ok' } },
    },
  }
}
const spec = { openapi: '3.1.0', info: { title: 'Big API', version: '1' }, servers: [{ url: 'https://big.example.com' }], paths }
const form = new FormData()
form.append('file', new File([JSON.stringify(spec)], 'big.json', { type: 'application/json' }))
form.append('api_name', 'big')
const encoded = new Response(form)
const contentType = encoded.headers.get('content-type')! // read before the body: Bun forgets it once consumed
const bytes = new Uint8Array(await encoded.arrayBuffer())
await call('POST', '/api/spec_from_file/', token, undefined, bytes, { 'content-type': contentType, 'content-length': String(bytes.byteLength) })
await call('POST', '/api/agents', token, { name: 'big-bot', description: 'd', instructions: 'i' })
await call('PATCH', '/api/agents/big-bot', token, { applications: [{ api_name: 'big' }] })
await call('POST', '/api/agents/big-bot/publish', token, {})

// ----------------------------------------------------------------------------------------------------------- clients

/** Samples of the case being measured; null while connecting (initialize is not a measured request). */
let samples: number[] | null = null
const inProcess = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const { response, ms } = await timed(new Request(input, init))
  samples?.push(ms)
  return response
}
const requestInit = { headers: { authorization: `Bearer ${token}` } }
async function connect(agent: string) {
  const url = new URL(`http://localhost/agent/${agent}/mcp`)
  const v1 = new ClientV1({ name: 'bench-v1', version: '1' })
  await v1.connect(new TransportV1(url, { requestInit, fetch: inProcess }))
  const v2 = new ClientV2({ name: 'bench-v2', version: '2' }, { versionNegotiation: { mode: 'auto' } })
  await v2.connect(new TransportV2(url, { requestInit, fetch: inProcess }))
  return { v1, v2 }
}
const small = await connect('small-bot')
const big = await connect('big-bot')

type Client = ClientV1 | ClientV2
const loadSkill = async (client: Client) => {
  const result = (await client.callTool({ name: 'load_skill', arguments: { name: 'tiny' } })) as { isError?: boolean }
  if (result.isError) throw new Error('load_skill failed')
}
/** Every page (1,000 tools a page since issue 27): one round trip below 1,000 tools, two for 1,002. */
const listAll = async (client: Client) => {
  // One sample per list: the server time of its pages added up.
  const outer = samples
  const pages: number[] = []
  samples = outer ? pages : null
  let count = 0
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor })
    count += page.tools.length
    cursor = page.nextCursor
  } while (cursor)
  samples = outer
  outer?.push(pages.reduce((sum, ms) => sum + ms, 0))
  if (count !== OPERATIONS + 2) throw new Error(`tools/list: ${count} tools`)
}
const direct = (path: string) => async () => {
  const { response, ms } = await timed(new Request(`http://localhost${path}`, requestInit))
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`)
  samples?.push(ms)
}

// The same call as a client library sends it (2025-11-25 headers), without a client in the process: what the server
// costs when nothing else allocates between requests.
const rawLegacy = {
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'load_skill', arguments: { name: 'tiny' } } }),
  headers: { 'mcp-protocol-version': '2025-11-25' },
}
// What the v2 client sends for the same call (captured): the protocol's _meta envelope and the routing headers.
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench-raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
}
const rawModern = {
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'load_skill', arguments: { name: 'tiny' }, _meta: META } }),
  headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'load_skill' },
}
const raw = (call: { body: string; headers: Record<string, string> }) => async () => {
  const { response, ms } = await timed(
    new Request('http://localhost/agent/small-bot/mcp', {
      method: 'POST',
      headers: { ...requestInit.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...call.headers },
      body: call.body,
    }),
  )
  const body = (await response.json()) as { result?: { isError?: boolean } }
  if (response.status !== 200 || !body.result || body.result.isError) throw new Error('raw tools/call failed')
  samples?.push(ms)
}

const CASES: { name: string; run: () => Promise<void> }[] = [
  { name: 'http GET skill', run: direct('/api/agents/small-bot/skills/tiny') },
  { name: 'mcp raw tools/call (2025-11-25)', run: raw(rawLegacy) },
  { name: 'mcp raw tools/call (2026-07-28)', run: raw(rawModern) },
  { name: 'mcp v1 tools/call', run: () => loadSkill(small.v1) },
  { name: 'mcp v2 tools/call', run: () => loadSkill(small.v2) },
  { name: 'GET /api/auth/me', run: direct('/api/auth/me') },
  { name: `mcp v1 tools/list (${OPERATIONS + 2} tools)`, run: () => listAll(big.v1) },
  { name: `mcp v2 tools/list (${OPERATIONS + 2} tools)`, run: () => listAll(big.v2) },
]

// --------------------------------------------------------------------------------------------------------- measuring

const results = new Map<string, number[]>(CASES.map((c) => [c.name, []]))
for (const c of CASES) for (let i = 0; i < 20; i++) await c.run() // warm-up: surfaces built, statements prepared
for (let round = 0; round < ROUNDS; round++) {
  for (const c of CASES) {
    samples = results.get(c.name)!
    for (let i = 0; i < ITERATIONS; i++) await c.run()
    samples = null
  }
}

// A write to any application drops every kept surface: the next list rebuilds the 1,002 tools (operations read and
// parsed, tools described). That rebuild runs on the request thread, so its time is the longest the server stalls.
const coldLists: number[] = []
for (let i = 0; i < 10; i++) {
  await call('PATCH', '/api/applications/big', token, { description: `Big API, edit ${i}` })
  samples = coldLists
  await listAll(big.v1)
  samples = null
}

const us = (ms: number) => Math.round(ms * 1000)
const m = Object.fromEntries([...results].map(([name, xs]) => [name, median(xs)]))
const httpSkill = m['http GET skill']!
const authMe = m['GET /api/auth/me']!
const rows = CASES.map((c) => ({ case: c.name, median_us: us(m[c.name]!), samples: results.get(c.name)!.length }))
const summary = {
  machine: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  date: new Date().toISOString(),
  operations: OPERATIONS,
  rows,
  mcp_added_us: {
    raw_2025: us(m['mcp raw tools/call (2025-11-25)']! - httpSkill),
    raw_2026: us(m['mcp raw tools/call (2026-07-28)']! - httpSkill),
    v1: us(m['mcp v1 tools/call']! - httpSkill),
    v2: us(m['mcp v2 tools/call']! - httpSkill),
  },
  list_ms: { v1: m[`mcp v1 tools/list (${OPERATIONS + 2} tools)`]!, v2: m[`mcp v2 tools/list (${OPERATIONS + 2} tools)`]! },
  cold_list_ms: { median: median(coldLists), max: Math.max(...coldLists) },
  list_vs_auth_me: { v1: m[`mcp v1 tools/list (${OPERATIONS + 2} tools)`]! / authMe, v2: m[`mcp v2 tools/list (${OPERATIONS + 2} tools)`]! / authMe },
}
console.table(rows)
console.log(
  `MCP adds ${summary.mcp_added_us.raw_2025} / ${summary.mcp_added_us.raw_2026} µs (raw 2025-11-25 / 2026-07-28) and ${summary.mcp_added_us.v1} / ${summary.mcp_added_us.v2} µs (v1 / v2 client in the process) of server time per call over the HTTP API (target < 100 µs)`,
)
console.log(
  `tools/list with ${OPERATIONS + 2} tools: ${summary.list_ms.v1.toFixed(2)} ms (v1) / ${summary.list_ms.v2.toFixed(2)} ms (v2) (target < 5 ms); ` +
    `${summary.list_vs_auth_me.v1.toFixed(1)}× / ${summary.list_vs_auth_me.v2.toFixed(1)}× GET /api/auth/me`,
)
console.log(
  `tools/list rebuilding the 1,002-tool surface after a write: median ${summary.cold_list_ms.median.toFixed(1)} ms, max ${summary.cold_list_ms.max.toFixed(1)} ms`,
)
if (opts.json) writeFileSync(opts.json, JSON.stringify(summary, null, 2))
for (const client of [small.v1, small.v2, big.v1, big.v2]) await client.close()
await server.stop()
process.exit(0)
