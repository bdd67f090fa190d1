// Applications benchmark (issue 16):
// 1. Import GitHub's public REST description (@octokit/openapi, ≈13 MB JSON, ≈1,200 operations) through
//    POST /api/spec_from_file/: wall time, the server's peak RSS (VmHWM) against its RSS before, and the longest wait
//    of a /api/health/live poll (every 5 ms) during the import: the import runs in a worker, so the server answers.
// 2. List its operations afterwards (GET …/operations, every operation with its input schema, in pages of 500): median
//    of 20.
// 3. Outbound call overhead: POST …/execute against a loopback upstream vs a direct fetch of the same upstream, in the
//    same run: median latency at concurrency 1, throughput at concurrency 16.
//
//   bun scripts/bench/applications.ts [--calls 2000] [--duration 5] [--binary dist/agentbox] [--json FILE]
//
// --binary runs that compiled executable (what admins run; its idle RSS is lower than `bun src/main.ts`) instead of
// the sources.
//
// Targets: import < 5 s and < 300 MB RSS; listing < 20 ms; execute adds ≤ 1 ms at c1 and keeps ≥ 50 % of the direct
// throughput at c16. Correctness is checked (exit 1): the import answers 201 with every operation, every call 200.
import type { Subprocess } from 'bun'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { benchLicense, intOption, throughput } from './lib.ts'

// --proxy PORT UPSTREAM: the floor for any proxy on this machine: a bare Bun.serve that forwards the call with fetch
// and returns the upstream's JSON in an envelope, with no auth, database or checks.
if (process.argv[2] === '--proxy') {
  const upstreamUrl = process.argv[4]!
  Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.argv[3]),
    async fetch(request) {
      if (request.method !== 'POST') return Response.json({ ready: true })
      const { arguments: args } = (await request.json()) as { arguments: { id: number } }
      const res = await fetch(`${upstreamUrl}/items/${args.id}`)
      return Response.json({ status: res.status, headers: {}, body: await res.json() })
    },
  })
  await new Promise(() => {})
}

// --upstream PORT: the API the operation calls; answers a small JSON, as a typical API read does.
if (process.argv[2] === '--upstream') {
  Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.argv[3]),
    fetch: (request) => Response.json({ id: new URL(request.url).pathname.split('/').pop(), ok: true }),
  })
  await new Promise(() => {})
}

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: { calls: { type: 'string', default: '2000' }, duration: { type: 'string', default: '5' }, binary: { type: 'string' }, json: { type: 'string' } },
})
const CALLS = intOption(opts.calls!, '--calls')
const DURATION = intOption(opts.duration!, '--duration')
const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'
const GITHUB = join(ROOT, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json')

const children = new Set<Subprocess>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})
const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-apps-'))
const statusKib = (pid: number, field: string): number => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))?.[1])
async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}
async function waitFor(url: string): Promise<void> {
  for (const deadline = performance.now() + 20_000; performance.now() < deadline; await Bun.sleep(10))
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return
  throw new Error(`${url} not ready`)
}
async function call(method: string, url: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`)
  return json
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const upstreamPort = await freePort()
const upstream = Bun.spawn([process.execPath, import.meta.path, '--upstream', String(upstreamPort)], { stdout: 'ignore', stderr: 'inherit' })
children.add(upstream)
const proxyPort = await freePort()
const proxy = Bun.spawn([process.execPath, import.meta.path, '--proxy', String(proxyPort), `http://127.0.0.1:${upstreamPort}`], {
  stdout: 'ignore',
  stderr: 'inherit',
})
children.add(proxy)
const port = await freePort()
const command = opts.binary ? [opts.binary] : [process.execPath, join(ROOT, 'src', 'main.ts')]
const server = Bun.spawn([...command, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, 'data')], {
  cwd: ROOT,
  env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn', AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' },
  stdout: 'ignore',
  stderr: 'inherit',
})
children.add(server)
const BASE = `http://127.0.0.1:${port}`
const UPSTREAM = `http://127.0.0.1:${upstreamPort}`
const PROXY = `http://127.0.0.1:${proxyPort}`
await Promise.all([waitFor(`${BASE}/api/health/live`), waitFor(UPSTREAM), waitFor(PROXY)])
await call('POST', `${BASE}/api/tenant/setup`, SETUP_TOKEN, {
  license_token: benchLicense(),
  admin_email: 'admin@example.com',
  admin_name: 'Ada Admin',
  admin_password: PASSWORD,
})
const { access_token: TOKEN } = await call('POST', `${BASE}/api/auth/login`, '', { email: 'admin@example.com', password: PASSWORD })

async function upload(bytes: Uint8Array, name: string, apiName: string): Promise<any> {
  const form = new FormData()
  form.append('file', new File([bytes as Uint8Array<ArrayBuffer>], name))
  form.append('api_name', apiName)
  const res = await fetch(`${BASE}/api/spec_from_file/`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: form })
  const json = await res.json()
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`)
  return json
}

// ------------------------------------------------------------------------------------------------ 1. import

const github = readFileSync(GITHUB)
const rssBefore = statusKib(server.pid, 'VmRSS')
let polling = true
let worstPoll = 0
const poller = (async () => {
  while (polling) {
    const started = performance.now()
    await fetch(`${BASE}/api/health/live`).then((r) => r.arrayBuffer())
    worstPoll = Math.max(worstPoll, performance.now() - started)
    await Bun.sleep(5)
  }
})()
const importStarted = performance.now()
const imported = await upload(github, 'api.github.com.json', 'github')
const importMs = performance.now() - importStarted
polling = false
await poller
const peakKib = statusKib(server.pid, 'VmHWM')
const expectedOperations = Object.values(JSON.parse(github.toString()).paths as Record<string, object>).reduce(
  (sum: number, item) => sum + Object.keys(item).filter((key) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(key)).length,
  0,
)
if (imported.operations_count !== expectedOperations)
  throw new Error(`imported ${imported.operations_count} operations, the document has ${expectedOperations}`)

// ------------------------------------------------------------------------------------------------ 2. listing

const listTimes: number[] = []
let listed = 0
let listedBytes = 0
for (let i = 0; i < 20; i++) {
  const started = performance.now()
  const pages: string[] = []
  // A page shorter than 500 is the last; an empty one answers `[]`. Counting items is left until after the timing.
  for (let offset = 0; offset === 0 || pages.at(-1)!.length > 2; offset += 500) {
    const res = await fetch(`${BASE}/api/applications/github/operations?limit=500&offset=${offset}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    pages.push(await res.text())
  }
  listTimes.push(performance.now() - started)
  listed = pages.reduce((n, text) => n + JSON.parse(text).length, 0)
  listedBytes = pages.reduce((n, text) => n + text.length, 0)
}
if (listed !== expectedOperations) throw new Error(`listed ${listed} operations`)

// ------------------------------------------------------------------------------------------------ 3. execute overhead

const tiny = {
  openapi: '3.1.0',
  info: { title: 'Bench upstream', version: '1' },
  servers: [{ url: UPSTREAM }],
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
}
await upload(new TextEncoder().encode(JSON.stringify(tiny)), 'tiny.json', 'upstream')
const EXECUTE = `${BASE}/api/applications/upstream/operations/getItem/execute`
const executeOnce = async () => {
  const res = await fetch(EXECUTE, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{"arguments":{"id":7}}',
  })
  const body = (await res.json()) as { status?: number }
  if (res.status !== 200 || body.status !== 200) throw new Error(`execute: ${res.status} ${JSON.stringify(body)}`)
}
const directOnce = async () => {
  const res = await fetch(`${UPSTREAM}/items/7`)
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`direct: ${res.status}`)
}
const proxyOnce = async () => {
  const res = await fetch(PROXY, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"arguments":{"id":7}}' })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`proxy: ${res.status}`)
}
const healthOnce = async () => {
  const res = await fetch(`${BASE}/api/auth/me`, { headers: { authorization: `Bearer ${TOKEN}` } })
  await res.arrayBuffer()
}

async function latencies(fn: () => Promise<void>, count: number): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    await fn()
    times.push(performance.now() - started)
  }
  return median(times)
}
for (const fn of [executeOnce, directOnce, proxyOnce, healthOnce]) await latencies(fn, 200) // warm-up
const c1 = { direct_ms: 0, proxy_ms: 0, execute_ms: 0, me_ms: 0 }
// Interleaved rounds, so a noisy neighbour hits both sides alike.
const rounds = 4
for (let round = 0; round < rounds; round++) {
  c1.direct_ms += (await latencies(directOnce, CALLS / rounds)) / rounds
  c1.proxy_ms += (await latencies(proxyOnce, CALLS / rounds)) / rounds
  c1.execute_ms += (await latencies(executeOnce, CALLS / rounds)) / rounds
  c1.me_ms += (await latencies(healthOnce, CALLS / rounds)) / rounds
}
const CLK_TCK = Number(new TextDecoder().decode(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout).trim()) || 100
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}
/** Throughput, and CPU time per call of the process serving it (load-independent on a busy host). */
async function measured(fn: () => Promise<void>, pid: number | null): Promise<{ rps: number; cpu_us: number | null }> {
  const cpuBefore = pid ? cpuSeconds(pid) : 0
  let calls = 0
  const counted = async () => {
    await fn()
    calls++
  }
  const rps = await throughput(counted, 16, DURATION)
  return { rps, cpu_us: pid ? Math.round(((cpuSeconds(pid) - cpuBefore) / calls) * 1e6) : null }
}
const c16 = {
  direct: await measured(directOnce, null),
  proxy: await measured(proxyOnce, proxy.pid),
  execute: await measured(executeOnce, server.pid),
  me: await measured(healthOnce, server.pid),
}

const result = {
  machine: `${process.platform} ${process.arch}, ${navigator.hardwareConcurrency} cores`,
  server: opts.binary ? 'compiled binary' : 'bun src/main.ts',
  date: new Date().toISOString().slice(0, 10),
  import: {
    document_mb: Math.round((github.byteLength / 1e6) * 10) / 10,
    operations: imported.operations_count,
    warnings: imported.warnings.length,
    wall_ms: Math.round(importMs),
    rss_before_mb: Math.round(rssBefore / 1024),
    peak_rss_mb: Math.round(peakKib / 1024),
    worst_health_wait_ms: Math.round(worstPoll * 10) / 10,
  },
  list_operations: { operations: listed, response_mb: Math.round((listedBytes / 1e6) * 10) / 10, median_ms: Math.round(median(listTimes) * 10) / 10 },
  execute_c1: {
    direct_median_ms: Math.round(c1.direct_ms * 1000) / 1000,
    bare_proxy_median_ms: Math.round(c1.proxy_ms * 1000) / 1000,
    execute_median_ms: Math.round(c1.execute_ms * 1000) / 1000,
    auth_me_median_ms: Math.round(c1.me_ms * 1000) / 1000,
    added_ms: Math.round((c1.execute_ms - c1.direct_ms) * 1000) / 1000,
  },
  execute_c16: {
    direct_rps: Math.round(c16.direct.rps),
    bare_proxy_rps: Math.round(c16.proxy.rps),
    execute_rps: Math.round(c16.execute.rps),
    ratio_to_direct: Math.round((c16.execute.rps / c16.direct.rps) * 100) / 100,
    ratio_to_bare_proxy: Math.round((c16.execute.rps / c16.proxy.rps) * 100) / 100,
    bare_proxy_cpu_us_per_call: c16.proxy.cpu_us,
    execute_cpu_us_per_call: c16.execute.cpu_us,
    auth_me_rps: Math.round(c16.me.rps),
    auth_me_cpu_us_per_call: c16.me.cpu_us,
  },
}
console.log(JSON.stringify(result, null, 2))
if (opts.json) writeFileSync(opts.json, JSON.stringify(result, null, 2))
process.exit(0)
