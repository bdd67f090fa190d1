// Chat benchmark (issue 30), with the built-in mock model, in one run:
//   first byte   POST /api/chat asking for events (Accept: text/event-stream), a new thread each time: the time from
//                handing the request to the server to the first byte of the stream, and to the first `delta` event;
//                the plain copilot, and an agent offering its tools (5). Target: under 20 ms.
//   tool turn    one JSON chat turn with one tool call (the mock calls getItem, an API operation on a loopback upstream,
//                then answers quoting its result): two model calls, one tool call, a thread with four messages
//   execute      the same operation called directly: POST /api/applications/{api_name}/operations/{operation_id}/execute
//   upstream     a direct fetch of the upstream from this process: the floor both stand on
// Sequential medians (server time, cases interleaved call by call), then throughput with --concurrency requests in
// flight: chat turns per second against execute calls per second. The upstream is a separate process on 127.0.0.1.
//
//   bun scripts/bench/chat.ts [--rounds 5] [--iterations 100] [--concurrency 8] [--seconds 3] [--json FILE]
//
// Correctness is checked on every call (exit 1 on a wrong answer).
import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { type BenchServer, intOption, median, startBenchServer, spawnUpstream, throughput } from './lib.ts'

if (process.argv[2] === '--upstream') {
  Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.argv[3]),
    fetch: (request) => Response.json({ id: new URL(request.url).pathname.split('/').pop(), state: 'open' }),
  })
  await new Promise(() => {})
}

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    rounds: { type: 'string', default: '5' },
    iterations: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '3' },
    json: { type: 'string' },
  },
})
const ROUNDS = intOption(opts.rounds!, '--rounds')
const ITERATIONS = intOption(opts.iterations!, '--iterations')
const CONCURRENCY = intOption(opts.concurrency!, '--concurrency', 1, 256)
const SECONDS = intOption(opts.seconds!, '--seconds', 1, 600)

const UPSTREAM = await spawnUpstream(import.meta.path)

const spec = {
  openapi: '3.1.0',
  info: { title: 'Bench upstream', version: '1' },
  servers: [{ url: UPSTREAM }],
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        summary: 'Read an item',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
}

const bench: BenchServer = await startBenchServer('chat', { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' })
{
  const form = new FormData()
  form.append('file', new File([JSON.stringify(spec)], 'upstream.json', { type: 'application/json' }))
  form.append('api_name', 'upstream')
  form.append('global_spec', 'true')
  const encoded = new Response(form)
  const contentType = encoded.headers.get('content-type')!
  const bytes = new Uint8Array(await encoded.arrayBuffer())
  await bench.call('POST', '/api/spec_from_file/', bench.token, undefined, bytes, { 'content-type': contentType, 'content-length': String(bytes.byteLength) })
  await bench.call('POST', '/api/agents', bench.token, { name: 'ops-bot', description: 'd', instructions: 'Answer about items.' })
  await bench.call('PATCH', '/api/agents/ops-bot', bench.token, { applications: [{ api_name: 'upstream' }] })
  await bench.call('POST', '/api/agents/ops-bot/publish', bench.token, {})
}
const auth = { authorization: `Bearer ${bench.token}` }
// The same server listening on loopback, for the first byte as an HTTP client sees it (its own work included).
const listener = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request, server) => bench.server.fetch(request, server as never) })
const LISTENING = `http://127.0.0.1:${listener.port}`

let samples: number[] | null = null
const record = (ms: number) => samples?.push(ms)

/** The stream's first byte and first delta event, then the rest read to its end (a turn is never left running). */
async function firstByte(body: Record<string, unknown>, firstDelta: number[], overHttp = false) {
  const started = performance.now()
  const init = {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  }
  const response = overHttp ? await fetch(`${LISTENING}/api/chat`, init) : await bench.server.fetch(new Request('http://localhost/api/chat', init))
  const reader = response.body!.getReader()
  let text = ''
  let first = true
  let sawDelta = false
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    if (first) {
      record(performance.now() - started)
      first = false
    }
    text += new TextDecoder().decode(chunk.value)
    if (!sawDelta && text.includes('event: delta')) {
      sawDelta = true
      if (samples) firstDelta.push(performance.now() - started)
    }
  }
  if (response.status !== 200 || !text.includes('event: done')) throw new Error(`chat stream: ${response.status} ${text.slice(0, 300)}`)
}

const turnBody = JSON.stringify({ agent_name: 'ops-bot', message: 'getItem {"id": "item-1"}' })
async function toolTurn() {
  const started = performance.now()
  const response = await bench.server.fetch(
    new Request('http://localhost/api/chat', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: turnBody }),
  )
  const body = (await response.json()) as { tool_calls?: { is_error: boolean; content: string }[]; message?: { content: string } }
  record(performance.now() - started)
  const call = body.tool_calls?.[0]
  if (response.status !== 200 || body.tool_calls?.length !== 1 || call!.is_error || !call!.content.includes('"state":"open"'))
    throw new Error(`chat turn: ${response.status} ${JSON.stringify(body).slice(0, 300)}`)
}

const executeBody = JSON.stringify({ arguments: { id: 'item-1' } })
async function execute() {
  const started = performance.now()
  const response = await bench.server.fetch(
    new Request('http://localhost/api/applications/upstream/operations/getItem/execute', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: executeBody,
    }),
  )
  const body = (await response.json()) as { status?: number }
  record(performance.now() - started)
  if (response.status !== 200 || body.status !== 200) throw new Error(`execute: ${response.status} ${JSON.stringify(body)}`)
}

async function direct() {
  const started = performance.now()
  const response = await fetch(`${UPSTREAM}/items/item-1`)
  await response.arrayBuffer()
  record(performance.now() - started)
  if (response.status !== 200) throw new Error('upstream')
}

const deltas = { copilot: [] as number[], agent: [] as number[], http: [] as number[] }
const CASES = [
  { name: 'first byte, copilot, over HTTP', run: () => firstByte({ message: 'Hello there' }, deltas.http, true) },
  { name: 'first byte, copilot', run: () => firstByte({ message: 'Hello there' }, deltas.copilot) },
  { name: 'first byte, agent with tools', run: () => firstByte({ agent_name: 'ops-bot', message: 'Hello there' }, deltas.agent) },
  { name: 'chat turn, one tool call', run: toolTurn },
  { name: 'POST …/execute, same operation', run: execute },
  { name: 'upstream direct fetch', run: direct },
]
const results = new Map<string, number[]>(CASES.map((c) => [c.name, []]))
for (const c of CASES) for (let i = 0; i < 30; i++) await c.run()
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < ITERATIONS; i++) {
    for (const c of round % 2 === 0 ? CASES : [...CASES].reverse()) {
      samples = results.get(c.name)!
      await c.run()
      samples = null
    }
  }
}

await throughput(toolTurn, CONCURRENCY, SECONDS)
const turnsPerSecond = await throughput(toolTurn, CONCURRENCY, SECONDS)
const executesPerSecond = await throughput(execute, CONCURRENCY, SECONDS)
await bench.server.modules.interactions.service.flush()
const threads = (await bench.call('GET', '/api/threads?limit=1', bench.token)) as { id: string }[]
const thread = (await bench.call('GET', `/api/threads/${threads[0]!.id}`, bench.token)) as { messages: { role: string }[] }
if (thread.messages.map((m) => m.role).join() !== 'user,assistant,tool,assistant') throw new Error(`thread: ${JSON.stringify(thread.messages)}`)

const fmt = (ms: number) => `${ms.toFixed(3)} ms`
const medians = Object.fromEntries([...results].map(([name, xs]) => [name, median(xs)]))
console.log(`machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}; Bun ${Bun.version}; ${new Date().toISOString()}`)
console.log(`${ROUNDS} rounds × ${ITERATIONS} calls per case, interleaved; medians of server time`)
for (const [name, ms] of Object.entries(medians)) console.log(`  ${name.padEnd(36)} ${fmt(ms)}`)
console.log(`  ${'first delta, copilot'.padEnd(36)} ${fmt(median(deltas.copilot))}`)
console.log(`  ${'first delta, agent with tools'.padEnd(36)} ${fmt(median(deltas.agent))}`)
console.log(`  ${'first delta, copilot, over HTTP'.padEnd(36)} ${fmt(median(deltas.http))}`)
const turn = medians['chat turn, one tool call']!
const exec = medians['POST …/execute, same operation']!
console.log(
  `chat turn / execute: ${(turn / exec).toFixed(2)}x (a difference of ${(turn - exec).toFixed(3)} ms; execute waits for its record's commit to answer its id, a chat turn does not)`,
)
console.log(
  `throughput with ${CONCURRENCY} in flight, ${SECONDS} s each: ${turnsPerSecond.toFixed(0)} chat turns/s, ${executesPerSecond.toFixed(0)} executes/s (${(turnsPerSecond / executesPerSecond).toFixed(2)}x)`,
)
const worstFirstByte = Math.max(medians['first byte, copilot']!, medians['first byte, agent with tools']!, medians['first byte, copilot, over HTTP']!)
console.log(`target first byte < 20 ms: ${worstFirstByte < 20 ? 'met' : 'NOT met'} (${fmt(worstFirstByte)})`)
if (opts.json)
  writeFileSync(
    opts.json,
    JSON.stringify(
      { medians, deltas: { copilot: median(deltas.copilot), agent: median(deltas.agent), http: median(deltas.http) }, turnsPerSecond, executesPerSecond },
      null,
      2,
    ),
  )
listener.stop(true)
process.exit(0)
