// Agent toolbox benchmark (issue 27): the server time of calling one API operation through each transport, in process.
//   execute   POST /api/applications/{api_name}/operations/{operation_id}/execute (recorded as api_action)
//   mcp       tools/call of the same operation through /agent/{name}/mcp as raw JSON-RPC (2025-11-25), recorded as
//             mcp_tool
//   record    POST /api/interaction/record-mcp-tool with a 360-byte record (the masking of the write path, nothing else)
//   upstream  a direct fetch of the upstream from this process: the floor the two calls stand on
// Then, when the server has the dynamic mode (mcp_operation_tool_limit in /api/org/settings), an agent over GitHub's
// REST description (@octokit/openapi, ≈1,100 operations): the size of its tools/list in the dynamic mode, the first
// find_operations (which builds the index) and later ones, and how often find_operations puts an operation in its top
// 1 and top 3 for a query that is the operation's own summary.
// The upstream is a separate process on 127.0.0.1 (so its work is not counted in this process's time), answering a
// small JSON that echoes the request's query and API-key header, as echoing test APIs do. Cases interleaved per round;
// figures are medians of every sample. Server time = from handing the request to server.fetch to having read the body.
//
//   bun scripts/bench/toolbox.ts [--rounds 5] [--iterations 200] [--json FILE]
//
// Run it against an older checkout (copy this file there) to get the figures it is compared with.
//
// Target: the added server time of either call (its median minus the upstream's) stays within 10 % of the figure
// measured before the toolbox (docs/benchmarks.md). Correctness is checked every round (exit 1).
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { intOption, median, startBenchServer } from './lib.ts'

if (process.argv[2] === '--upstream') {
  Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.argv[3]),
    fetch: (request) => {
      const url = new URL(request.url)
      return Response.json({ id: url.pathname.split('/').pop(), query: url.search, key: request.headers.get('x-api-key'), ok: true })
    },
  })
  await new Promise(() => {})
}

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: { rounds: { type: 'string', default: '5' }, iterations: { type: 'string', default: '200' }, json: { type: 'string' } },
})
const ROUNDS = intOption(opts.rounds!, '--rounds')
const ITERATIONS = intOption(opts.iterations!, '--iterations')

const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
const upstreamPort = probe.port!
probe.stop(true)
const upstream = Bun.spawn([process.execPath, import.meta.path, '--upstream', String(upstreamPort)], { stdout: 'ignore', stderr: 'inherit' })
process.on('exit', () => upstream.kill('SIGKILL'))
const UPSTREAM = `http://127.0.0.1:${upstreamPort}`
for (let i = 0; i < 400; i++) {
  if (
    await fetch(`${UPSTREAM}/ready`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break
  await Bun.sleep(10)
}

const { server, token, call } = await startBenchServer('toolbox', { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' })

const spec = {
  openapi: '3.1.0',
  info: { title: 'Bench upstream', version: '1' },
  servers: [{ url: UPSTREAM }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        summary: 'Read an item',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'expand', in: 'query', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
}
const form = new FormData()
form.append('file', new File([JSON.stringify(spec)], 'upstream.json', { type: 'application/json' }))
form.append('api_name', 'upstream')
form.append('global_spec', 'true')
const encoded = new Response(form)
const contentType = encoded.headers.get('content-type')! // read before the body: Bun forgets it once consumed
const bytes = new Uint8Array(await encoded.arrayBuffer())
await call('POST', '/api/spec_from_file/', token, undefined, bytes, { 'content-type': contentType, 'content-length': String(bytes.byteLength) })
await call('PUT', '/api/applications/upstream/credentials', token, { scheme: 'key', api_key: 'bench-secret-key-0123456789' })
await call('POST', '/api/agents', token, { name: 'ops-bot', description: 'd', instructions: 'i' })
await call('PATCH', '/api/agents/ops-bot', token, { applications: [{ api_name: 'upstream' }] })
await call('POST', '/api/agents/ops-bot/publish', token, {})

let samples: number[] | null = null
async function timed(request: Request): Promise<Response> {
  const started = performance.now()
  const response = await server.fetch(request)
  const body = await response.arrayBuffer()
  samples?.push(performance.now() - started)
  return new Response(body, { status: response.status, headers: response.headers })
}
const auth = { authorization: `Bearer ${token}` }
const ARGUMENTS = { id: 'item-1', expand: 'owner' }

const execute = async () => {
  const response = await timed(
    new Request('http://localhost/api/applications/upstream/operations/getItem/execute', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: ARGUMENTS }),
    }),
  )
  const body = (await response.json()) as { status?: number }
  if (response.status !== 200 || body.status !== 200) throw new Error(`execute: ${response.status} ${JSON.stringify(body)}`)
}
const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getItem', arguments: ARGUMENTS } })
const mcp = async () => {
  const response = await timed(
    new Request('http://localhost/agent/ops-bot/mcp', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: mcpBody,
    }),
  )
  const body = (await response.json()) as { result?: { isError?: boolean; content?: unknown } }
  if (response.status !== 200 || !body.result || body.result.isError) throw new Error(`mcp: ${response.status} ${JSON.stringify(body)}`)
}
const recordBody = JSON.stringify({
  tool_name: 'search_tickets',
  mcp_server_name: 'helpdesk',
  arguments: { query: 'printer on floor 3 is jammed again', limit: 10, include_closed: false },
  result: { isError: false, content: [{ type: 'text', text: 'Found 3 tickets: #101 printer jam, #97 toner, #88 paper tray' }] },
  duration_seconds: 0.42,
  user_input: 'Is anyone already working on the printer on floor 3?',
  conversation_id: 'conv-1234567890',
  client_source: 'agentbox-copilot',
})
const record = async () => {
  const response = await timed(
    new Request('http://localhost/api/interaction/record-mcp-tool', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: recordBody,
    }),
  )
  if (response.status !== 200) throw new Error(`record: ${response.status}`)
}
const direct = async () => {
  const started = performance.now()
  const response = await fetch(`${UPSTREAM}/items/item-1?expand=owner`, { headers: { 'x-api-key': 'bench-secret-key-0123456789' } })
  await response.arrayBuffer()
  samples?.push(performance.now() - started)
  if (response.status !== 200) throw new Error('upstream')
}

const CASES = [
  { name: 'upstream direct fetch', run: direct },
  { name: 'POST …/execute', run: execute },
  { name: 'mcp tools/call (operation)', run: mcp },
  { name: 'record-mcp-tool', run: record },
]
const results = new Map<string, number[]>(CASES.map((c) => [c.name, []]))
for (const c of CASES) for (let i = 0; i < 50; i++) await c.run()
for (let round = 0; round < ROUNDS; round++) {
  for (const c of CASES) {
    samples = results.get(c.name)!
    for (let i = 0; i < ITERATIONS; i++) await c.run()
    samples = null
  }
}
await server.modules.interactions.service.flush()

// ------------------------------------------------------------------------------------------------ the dynamic mode

async function dynamicMode() {
  const settings = (await call('GET', '/api/org/settings', token)) as Record<string, unknown>
  if (!('mcp_operation_tool_limit' in settings)) return null
  const github = readFileSync(join(import.meta.dir, '..', '..', 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json'))
  const upload = new FormData()
  upload.append('file', new File([github], 'github.json', { type: 'application/json' }))
  upload.append('api_name', 'github')
  const body = new Response(upload)
  const type = body.headers.get('content-type')!
  const bytes = new Uint8Array(await body.arrayBuffer())
  const imported = await call('POST', '/api/spec_from_file/', token, undefined, bytes, { 'content-type': type, 'content-length': String(bytes.byteLength) })
  await call('POST', '/api/agents', token, { name: 'github-bot', description: 'd', instructions: 'i' })
  await call('PATCH', '/api/agents/github-bot', token, { applications: [{ api_name: 'github' }] })
  await call('POST', '/api/agents/github-bot/publish', token, {})
  const rpc = async (method: string, params: unknown) => {
    const started = performance.now()
    const response = await server.fetch(
      new Request('http://localhost/agent/github-bot/mcp', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }),
    )
    const text = await response.text()
    return { ms: performance.now() - started, text, body: JSON.parse(text) as { result: any } }
  }
  const list = await rpc('tools/list', {})
  const names = list.body.result.tools.map((tool: { name: string }) => tool.name)
  if (names.join() !== 'run_workflow,resume_workflow,find_operations,call_operation') throw new Error(`dynamic tools/list: ${names.join()}`)
  const operations: { operation_id: string; summary: string }[] = []
  for (let offset = 0; ; offset += 500) {
    const page = (await call('GET', `/api/applications/github/operations?limit=500&offset=${offset}`, token)) as { operation_id: string; summary: string }[]
    operations.push(...page)
    if (page.length < 500) break
  }
  const find = (query: string) => rpc('tools/call', { name: 'find_operations', arguments: { query, limit: 3 } })
  const first = await find(operations[0]!.summary)
  let top1 = 0
  let top3 = 0
  let asked = 0
  const times: number[] = []
  for (const op of operations) {
    if (!op.summary) continue
    const found = await find(op.summary)
    times.push(found.ms)
    const ids = (JSON.parse(found.body.result.content[0].text) as { operation_id: string }[]).map((hit) => hit.operation_id)
    asked++
    if (ids[0] === op.operation_id) top1++
    if (ids.includes(op.operation_id)) top3++
  }
  return {
    operations: imported.operations_count as number,
    tools_list_bytes: list.text.length,
    tools_list_ms: list.ms,
    first_find_ms: first.ms,
    find_median_ms: median(times),
    queries: asked,
    top1: top1 / asked,
    top3: top3 / asked,
  }
}
const dynamic = await dynamicMode()

const us = (ms: number) => Math.round(ms * 1000)
const m = Object.fromEntries([...results].map(([name, xs]) => [name, median(xs)]))
const floor = m['upstream direct fetch']!
const summary = {
  machine: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  date: new Date().toISOString(),
  rows: CASES.map((c) => ({ case: c.name, median_us: us(m[c.name]!), samples: results.get(c.name)!.length })),
  added_us: { execute: us(m['POST …/execute']! - floor), mcp: us(m['mcp tools/call (operation)']! - floor) },
  record_us: us(m['record-mcp-tool']!),
  dynamic,
}
console.table(summary.rows)
console.log(`added over a direct fetch of the upstream: execute ${summary.added_us.execute} µs, MCP tools/call ${summary.added_us.mcp} µs`)
if (dynamic)
  console.log(
    `dynamic mode over ${dynamic.operations} operations: tools/list ${dynamic.tools_list_bytes} bytes in ${dynamic.tools_list_ms.toFixed(1)} ms; ` +
      `find_operations first ${dynamic.first_find_ms.toFixed(1)} ms (builds the index), then median ${dynamic.find_median_ms.toFixed(2)} ms; ` +
      `summary as query: top 1 ${(dynamic.top1 * 100).toFixed(1)} %, top 3 ${(dynamic.top3 * 100).toFixed(1)} % of ${dynamic.queries}`,
  )
if (opts.json) writeFileSync(opts.json, JSON.stringify(summary, null, 2))
await server.stop()
process.exit(0)
