// Agent toolbox benchmark (issue 27): the server time of calling one API operation through each door, in process.
//   execute   POST /api/applications/{api_name}/operations/{operation_id}/execute (recorded as api_action)
//   mcp       tools/call of the same operation through /agent/{name}/mcp as raw JSON-RPC (2025-11-25), recorded as
//             mcp_tool
//   record    POST /api/interaction/record-mcp-tool with a 360-byte record (the masking of the write path, nothing else)
//   upstream  a direct fetch of the upstream from this process: the floor the two calls stand on
// The upstream is a separate process on 127.0.0.1 (its work is not counted here), answering a small JSON that echoes the
// request's query and API-key header, as echoing test APIs do. Server time = from handing the request to server.fetch
// to having read the body; figures are medians of every sample, cases interleaved per round.
//
// --baseline DIR also starts the server of another checkout (DIR/scripts/bench/lib.ts, e.g. the commit before the
// toolbox) in this same process and interleaves every call between the two, so that both see the same noise: the
// ratios new/baseline are the figure docs/benchmarks.md reports.
//
// Then, when the server has the dynamic mode (mcp_operation_tool_limit in /api/org/settings), an agent over GitHub's
// REST description (@octokit/openapi, ≈1,200 operations): the size of its tools/list in the dynamic mode, the first
// find_operations (which builds the index) and later ones, and how often find_operations puts an operation in its top
// 1 and top 3 for a query that is the operation's own summary.
//
//   bun scripts/bench/toolbox.ts [--rounds 5] [--iterations 200] [--baseline DIR] [--json FILE]
//
// Target: either call's server time stays within 10 % of the baseline's. Correctness is checked on every call (exit 1).
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { type BenchServer, intOption, median, startBenchServer, spawnUpstream, keyedItemsSpec } from './lib.ts'

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
  options: {
    rounds: { type: 'string', default: '5' },
    iterations: { type: 'string', default: '200' },
    baseline: { type: 'string' },
    json: { type: 'string' },
  },
})
const ROUNDS = intOption(opts.rounds!, '--rounds')
const ITERATIONS = intOption(opts.iterations!, '--iterations')

const UPSTREAM = await spawnUpstream(import.meta.path)

const SECRET = 'bench-secret-key-0123456789'
const spec = keyedItemsSpec(UPSTREAM)

async function uploadJson(bench: BenchServer, document: unknown, apiName: string) {
  const form = new FormData()
  form.append('file', new File([JSON.stringify(document)], `${apiName}.json`, { type: 'application/json' }))
  form.append('api_name', apiName)
  form.append('global_spec', 'true')
  const encoded = new Response(form)
  const contentType = encoded.headers.get('content-type')! // read before the body: Bun forgets it once consumed
  const bytes = new Uint8Array(await encoded.arrayBuffer())
  return bench.call('POST', '/api/spec_from_file/', bench.token, undefined, bytes, { 'content-type': contentType, 'content-length': String(bytes.byteLength) })
}

/** A server with the operation, its credential and an agent over it. */
async function prepare(start: typeof startBenchServer): Promise<BenchServer> {
  const bench = await start('toolbox', { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' })
  await uploadJson(bench, spec, 'upstream')
  await bench.call('PUT', '/api/applications/upstream/credentials', bench.token, { scheme: 'key', api_key: SECRET })
  await bench.call('POST', '/api/agents', bench.token, { name: 'ops-bot', description: 'd', instructions: 'i' })
  await bench.call('PATCH', '/api/agents/ops-bot', bench.token, { applications: [{ api_name: 'upstream' }] })
  await bench.call('POST', '/api/agents/ops-bot/publish', bench.token, {})
  return bench
}

const current = await prepare(startBenchServer)
const baselineLib = opts.baseline
  ? ((await import(resolve(opts.baseline, 'scripts', 'bench', 'lib.ts'))) as { startBenchServer: typeof startBenchServer })
  : null
const baseline = baselineLib ? await prepare(baselineLib.startBenchServer) : null

let samples: number[] | null = null
async function timed(bench: BenchServer, request: Request): Promise<Response> {
  const started = performance.now()
  const response = await bench.server.fetch(request)
  const body = await response.arrayBuffer()
  samples?.push(performance.now() - started)
  return new Response(body, { status: response.status, headers: response.headers })
}
const auth = (bench: BenchServer) => ({ authorization: `Bearer ${bench.token}` })
const ARGUMENTS = { id: 'item-1', expand: 'owner' }

const execute = (bench: BenchServer) => async () => {
  const response = await timed(
    bench,
    new Request('http://localhost/api/applications/upstream/operations/getItem/execute', {
      method: 'POST',
      headers: { ...auth(bench), 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: ARGUMENTS }),
    }),
  )
  const body = (await response.json()) as { status?: number }
  if (response.status !== 200 || body.status !== 200) throw new Error(`execute: ${response.status} ${JSON.stringify(body)}`)
}
const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getItem', arguments: ARGUMENTS } })
const mcp = (bench: BenchServer) => async () => {
  const response = await timed(
    bench,
    new Request('http://localhost/agent/ops-bot/mcp', {
      method: 'POST',
      headers: { ...auth(bench), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: mcpBody,
    }),
  )
  const body = (await response.json()) as { result?: { isError?: boolean } }
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
const record = (bench: BenchServer) => async () => {
  const response = await timed(
    bench,
    new Request('http://localhost/api/interaction/record-mcp-tool', {
      method: 'POST',
      headers: { ...auth(bench), 'content-type': 'application/json' },
      body: recordBody,
    }),
  )
  if (response.status !== 200) throw new Error(`record: ${response.status}`)
}
const direct = async () => {
  const started = performance.now()
  const response = await fetch(`${UPSTREAM}/items/item-1?expand=owner`, { headers: { 'x-api-key': SECRET } })
  await response.arrayBuffer()
  samples?.push(performance.now() - started)
  if (response.status !== 200) throw new Error('upstream')
}

const servers: [string, BenchServer][] = [['', current], ...(baseline ? ([['baseline ', baseline]] as [string, BenchServer][]) : [])]
const CASES = [
  { name: 'upstream direct fetch', run: direct },
  ...servers.flatMap(([label, bench]) => [
    { name: `${label}POST …/execute`, run: execute(bench) },
    { name: `${label}mcp tools/call (operation)`, run: mcp(bench) },
    { name: `${label}record-mcp-tool`, run: record(bench) },
  ]),
]
const results = new Map<string, number[]>(CASES.map((c) => [c.name, []]))
for (const c of CASES) for (let i = 0; i < 50; i++) await c.run()
for (let round = 0; round < ROUNDS; round++) {
  // Call by call rather than case by case, so that a busy moment of the machine falls on every case alike.
  for (let i = 0; i < ITERATIONS; i++) {
    for (const c of round % 2 === 0 ? CASES : [...CASES].reverse()) {
      samples = results.get(c.name)!
      await c.run()
      samples = null
    }
  }
}
for (const [, bench] of servers) await bench.server.modules.interactions.service.flush()

// ------------------------------------------------------------------------------------------------ the dynamic mode

async function dynamicMode(bench: BenchServer) {
  const settings = (await bench.call('GET', '/api/org/settings', bench.token)) as Record<string, unknown>
  if (!('mcp_operation_tool_limit' in settings)) return null
  const github = JSON.parse(readFileSync(join(import.meta.dir, '..', '..', 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json'), 'utf8'))
  const imported = await uploadJson(bench, github, 'github')
  await bench.call('POST', '/api/agents', bench.token, { name: 'github-bot', description: 'd', instructions: 'i' })
  await bench.call('PATCH', '/api/agents/github-bot', bench.token, { applications: [{ api_name: 'github' }] })
  await bench.call('POST', '/api/agents/github-bot/publish', bench.token, {})
  const rpc = async (method: string, params: unknown) => {
    const started = performance.now()
    const response = await bench.server.fetch(
      new Request('http://localhost/agent/github-bot/mcp', {
        method: 'POST',
        headers: { ...auth(bench), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
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
    const page = (await bench.call('GET', `/api/applications/github/operations?limit=500&offset=${offset}`, bench.token)) as typeof operations
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
const dynamic = await dynamicMode(current)

const us = (ms: number) => Math.round(ms * 1000)
const m = Object.fromEntries([...results].map(([name, xs]) => [name, median(xs)]))
const floor = m['upstream direct fetch']!
const ratio = (name: string) => (baseline ? Math.round((m[name]! / m[`baseline ${name}`]!) * 1000) / 1000 : null)
const summary = {
  machine: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  date: new Date().toISOString(),
  baseline: opts.baseline ?? null,
  rows: CASES.map((c) => ({ case: c.name, median_us: us(m[c.name]!), samples: results.get(c.name)!.length })),
  added_us: { execute: us(m['POST …/execute']! - floor), mcp: us(m['mcp tools/call (operation)']! - floor) },
  versus_baseline: { execute: ratio('POST …/execute'), mcp: ratio('mcp tools/call (operation)'), record: ratio('record-mcp-tool') },
  dynamic,
}
console.table(summary.rows)
console.log(`added over a direct fetch of the upstream: execute ${summary.added_us.execute} µs, MCP tools/call ${summary.added_us.mcp} µs`)
if (baseline)
  console.log(
    `against the baseline (target ≤ 1.10): execute ${summary.versus_baseline.execute}×, MCP tools/call ${summary.versus_baseline.mcp}×, record-mcp-tool ${summary.versus_baseline.record}×`,
  )
if (dynamic)
  console.log(
    `dynamic mode over ${dynamic.operations} operations: tools/list ${dynamic.tools_list_bytes} bytes in ${dynamic.tools_list_ms.toFixed(1)} ms; ` +
      `find_operations first ${dynamic.first_find_ms.toFixed(1)} ms (builds the index), then median ${dynamic.find_median_ms.toFixed(2)} ms; ` +
      `summary as query: top 1 ${(dynamic.top1 * 100).toFixed(1)} %, top 3 ${(dynamic.top3 * 100).toFixed(1)} % of ${dynamic.queries}`,
  )
if (opts.json) writeFileSync(opts.json, JSON.stringify(summary, null, 2))
for (const [, bench] of servers) await bench.server.stop()
process.exit(0)
