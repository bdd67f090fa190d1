// GPT apps benchmark (issue 29): what a GPT's call of an operation costs over the same call through the HTTP API, in
// one server in this process, the two calls interleaved so that both see the same noise:
//   execute   POST /api/applications/{api_name}/operations/{operation_id}/execute with an admin's access token
//   gpt       POST /api/gpt_public/app_execute_action with the GPT's key (x-api-key): the key check, the GPT's
//             offering, the toolbox's run step, the same outbound call and record
//   apps_list GET /api/gpt_public/apps_list (kept per GPT: what a GPT asks at the start of every session)
//   upstream  a direct fetch of the upstream from this process: the floor both calls stand on
// The application uses the organisation's shared credential (what a GPT may call). The upstream is a separate process
// on 127.0.0.1 answering a small JSON. Server time = from handing the request to server.fetch to having read the body;
// figures are medians of every sample.
//
//   bun scripts/bench/gpt-apps.ts [--rounds 5] [--iterations 200] [--json FILE]
//
// Target: app_execute_action's server time at most 1.10 × that of POST …/execute. Correctness is checked on every call
// (exit 1).
import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { type BenchServer, intOption, median, startBenchServer, spawnUpstream, keyedItemsSpec } from './lib.ts'

if (process.argv[2] === '--upstream') {
  Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.argv[3]),
    fetch: (request) => {
      const url = new URL(request.url)
      return Response.json({ id: url.pathname.split('/').pop(), query: url.search, ok: true })
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
const TARGET = 1.1

const UPSTREAM = await spawnUpstream(import.meta.path)

const SECRET = 'bench-org-secret-0123456789'
const spec = keyedItemsSpec(UPSTREAM)

async function prepare(): Promise<{ bench: BenchServer; key: string }> {
  const bench = await startBenchServer('gpt-apps', { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' })
  const form = new FormData()
  form.append('file', new File([JSON.stringify(spec)], 'upstream.json', { type: 'application/json' }))
  for (const [name, value] of Object.entries({ api_name: 'upstream', global_spec: 'true', shared_security_info: 'true' })) form.append(name, value)
  const encoded = new Response(form)
  const contentType = encoded.headers.get('content-type')! // read before the body: Bun forgets it once consumed
  const bytes = new Uint8Array(await encoded.arrayBuffer())
  await bench.call('POST', '/api/spec_from_file/', bench.token, undefined, bytes, { 'content-type': contentType, 'content-length': String(bytes.byteLength) })
  await bench.call('PUT', '/api/applications/upstream/credentials', bench.token, { scheme: 'key', api_key: SECRET })
  const gpt = await bench.call('POST', '/api/gpts', bench.token, {
    name: 'bench-gpt',
    description: 'Benchmarks',
    instructions: 'Read items.',
    applications: ['upstream'],
    visibility: 'private',
  })
  return { bench, key: gpt.api_key as string }
}

const { bench, key } = await prepare()
let samples: number[] | null = null
async function timed(request: Request): Promise<{ status: number; body: any }> {
  const started = performance.now()
  const response = await bench.server.fetch(request)
  const text = await response.text()
  samples?.push(performance.now() - started)
  return { status: response.status, body: JSON.parse(text) }
}
const ARGUMENTS = { id: 'item-1', expand: 'owner' }
const json = { 'content-type': 'application/json' }

const execute = async () => {
  const { status, body } = await timed(
    new Request('http://localhost/api/applications/upstream/operations/getItem/execute', {
      method: 'POST',
      headers: { authorization: `Bearer ${bench.token}`, ...json },
      body: JSON.stringify({ arguments: ARGUMENTS }),
    }),
  )
  if (status !== 200 || body.status !== 200 || !body.interaction_id) throw new Error(`execute: ${status} ${JSON.stringify(body)}`)
}
const gptExecute = async () => {
  const { status, body } = await timed(
    new Request('http://localhost/api/gpt_public/app_execute_action', {
      method: 'POST',
      headers: { 'x-api-key': key, ...json },
      body: JSON.stringify({ api_name: 'upstream', operation_id: 'getItem', arguments: ARGUMENTS }),
    }),
  )
  if (status !== 200 || !body.ok || body.result.status !== 200 || !body.interaction_id) throw new Error(`app_execute_action: ${status} ${JSON.stringify(body)}`)
}
const appsList = async () => {
  const { status, body } = await timed(new Request('http://localhost/api/gpt_public/apps_list', { headers: { 'x-api-key': key } }))
  if (status !== 200 || body.operations_list.length !== 1) throw new Error(`apps_list: ${status} ${JSON.stringify(body)}`)
}
const direct = async () => {
  const started = performance.now()
  const response = await fetch(`${UPSTREAM}/items/item-1?expand=owner`, { headers: { 'x-api-key': SECRET } })
  await response.arrayBuffer()
  samples?.push(performance.now() - started)
  if (response.status !== 200) throw new Error('upstream')
}

const CASES = [
  { name: 'upstream direct fetch', run: direct },
  { name: 'POST …/execute', run: execute },
  { name: 'app_execute_action', run: gptExecute },
  { name: 'apps_list', run: appsList },
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
await bench.server.modules.interactions.service.flush()
const recorded = await bench.server.database.db.selectFrom('interactions').select(['client_source']).where('client_source', '=', 'bench-gpt').execute()
if (recorded.length < ROUNDS * ITERATIONS) throw new Error(`only ${recorded.length} GPT calls recorded`)

const us = (ms: number) => Math.round(ms * 1000)
const m = Object.fromEntries([...results].map(([name, xs]) => [name, median(xs)]))
const floor = m['upstream direct fetch']!
const ratio = Math.round((m.app_execute_action! / m['POST …/execute']!) * 1000) / 1000
const summary = {
  machine: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
  date: new Date().toISOString(),
  rows: CASES.map((c) => ({ case: c.name, median_us: us(m[c.name]!), samples: results.get(c.name)!.length })),
  added_over_upstream_us: { execute: us(m['POST …/execute']! - floor), app_execute_action: us(m.app_execute_action! - floor) },
  app_execute_action_versus_execute: ratio,
  target: TARGET,
}
console.table(summary.rows)
console.log(
  `app_execute_action / POST …/execute: ${ratio}× (target ≤ ${TARGET}) — added over a direct fetch: execute ${summary.added_over_upstream_us.execute} µs, ` +
    `app_execute_action ${summary.added_over_upstream_us.app_execute_action} µs`,
)
if (opts.json) writeFileSync(opts.json, JSON.stringify(summary, null, 2))
await bench.server.stop()
process.exit(0)
