// Execute benchmark (issue 27, "Measured"): the server CPU one `POST …/execute` costs at 16 concurrent clients against
// a loopback upstream, against a bare Bun proxy of the same upstream, measured in the same run.
//
//   bun scripts/bench/execute.ts [--rounds 5] [--duration 5] [--log-level info] [--binary dist/agentbox]
//                                [--profile DIR] [--json FILE]
//
// Processes: the upstream and the bare proxy (scripts/bench/loopback.ts), agentbox (`bun src/main.ts`, or --binary),
// and for every measured run a load generator (scripts/bench/loadgen.ts, 16 fetch loops) of its own. With taskset the
// two servers under test share CPU 0, the upstream and the load generators CPU 1. Each round runs the proxy and execute
// for --duration seconds each (order rotated); the figure is each serving process's CPU time (utime + stime from
// /proc) divided by the calls it answered, and the ratio execute ÷ proxy per round; medians over rounds. Latency at
// concurrency 1 (p50 of 2 s) is reported beside it.
//
// Correctness (exit 1): every call answered 2xx with no socket error, and the organisation's interaction count grew
// by exactly the number of execute calls made (every call recorded once).
//
// --profile DIR runs the sources under `bun --cpu-prof-md`: one extra execute load of --duration seconds, then the
// server is stopped so that the profile lands in DIR. The log level is the shipped default (info: one access-log line
// per request, here into a file) unless --log-level says otherwise.
import type { Subprocess } from 'bun'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { benchLicense, intOption, median } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    'log-level': { type: 'string', default: 'info' },
    binary: { type: 'string' },
    profile: { type: 'string' },
    json: { type: 'string' },
  },
})
const ROUNDS = intOption(opts.rounds!, '--rounds')
const DURATION = intOption(opts.duration!, '--duration')
const CONCURRENCY = 16
const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'
const TASKSET = Bun.which('taskset')
const pinned = (cpu: number, cmd: string[]) => (TASKSET ? [TASKSET, '-c', String(cpu), ...cmd] : cmd)
if (TASKSET) Bun.spawnSync([TASKSET, '-a', '-p', '-c', '1', String(process.pid)], { stdout: 'ignore', stderr: 'ignore' })

const children = new Set<Subprocess>()
const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-execute-'))
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

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
async function call(method: string, url: string, token: string, body?: unknown, raw?: BodyInit): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  })
  const json = await res.json()
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`)
  return json
}
const CLK_TCK = Number(new TextDecoder().decode(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout).trim()) || 100
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

const upstreamPort = await freePort()
const upstream = Bun.spawn(pinned(1, [process.execPath, join(import.meta.dir, 'loopback.ts'), 'upstream', String(upstreamPort)]), { stderr: 'inherit' })
children.add(upstream)
const UPSTREAM = `http://127.0.0.1:${upstreamPort}`
const proxyPort = await freePort()
const proxy = Bun.spawn(pinned(0, [process.execPath, join(import.meta.dir, 'loopback.ts'), 'proxy', String(proxyPort), UPSTREAM]), { stderr: 'inherit' })
children.add(proxy)
const PROXY = `http://127.0.0.1:${proxyPort}`

const port = await freePort()
const profileFlags = opts.profile ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${opts.profile}`] : []
const command = opts.binary ? [opts.binary] : [process.execPath, ...profileFlags, join(ROOT, 'src', 'main.ts')]
const server = Bun.spawn(pinned(0, [...command, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, 'data')]), {
  cwd: ROOT,
  env: {
    ...process.env,
    AGENTBOX_LICENSE_MODE: 'test',
    AGENTBOX_SETUP_TOKEN: SETUP_TOKEN,
    AGENTBOX_LOG_LEVEL: opts['log-level']!,
    AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1',
  },
  stdout: Bun.file(join(dir, 'server.log')),
  stderr: 'inherit',
})
children.add(server)
// With taskset in front, the pid spawned is taskset's until it execs: the same pid, so /proc/<pid> is the server's.
const BASE = `http://127.0.0.1:${port}`
await Promise.all([waitFor(`${BASE}/api/health/live`), waitFor(UPSTREAM), waitFor(PROXY)])
await call('POST', `${BASE}/api/tenant/setup`, SETUP_TOKEN, {
  license_token: benchLicense(),
  admin_email: 'admin@example.com',
  admin_name: 'Ada Admin',
  admin_password: PASSWORD,
})
const { access_token: TOKEN } = await call('POST', `${BASE}/api/auth/login`, '', { email: 'admin@example.com', password: PASSWORD })

const description = {
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
const form = new FormData()
form.append('file', new File([JSON.stringify(description)], 'upstream.json'))
form.append('api_name', 'upstream')
await call('POST', `${BASE}/api/spec_from_file/`, TOKEN, undefined, form)
const EXECUTE = `${BASE}/api/applications/upstream/operations/getItem/execute`
const BODY = '{"arguments":{"id":7}}'

interface Load {
  requests: number
  seconds: number
  non2xx: number
  errors: number
  p50_ms: number | null
  p99_ms: number | null
}
const failures: string[] = []
let executeCalls = 0
/** One load generator process against `url`; the serving process's CPU per call. */
async function load(target: 'proxy' | 'execute', concurrency: number, seconds: number): Promise<Load & { cpu_us: number }> {
  const [url, pid, auth] = target === 'proxy' ? [PROXY, proxy.pid, [] as string[]] : [EXECUTE, server.pid, ['authorization', `Bearer ${TOKEN}`]]
  const cpuBefore = cpuSeconds(pid)
  const gen = Bun.spawn(
    pinned(1, [process.execPath, join(import.meta.dir, 'loadgen.ts'), url, String(concurrency), String(seconds), ...auth, '--post', BODY]),
    { stdout: 'pipe', stderr: 'inherit' },
  )
  children.add(gen)
  const killer = setTimeout(() => gen.kill('SIGKILL'), (seconds + 15) * 1000)
  const out = await new Response(gen.stdout).text()
  await gen.exited
  clearTimeout(killer)
  children.delete(gen)
  const cpu = cpuSeconds(pid) - cpuBefore
  const result = JSON.parse(out) as Load
  if (result.non2xx > 0 || result.errors > 0) failures.push(`${target}: ${result.non2xx} non-2xx, ${result.errors} socket errors`)
  if (target === 'execute') executeCalls += result.requests + result.errors
  return { ...result, cpu_us: (cpu / Math.max(1, result.requests)) * 1e6 }
}

async function interactionCount(): Promise<number> {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
  const counts = (await call('POST', `${BASE}/api/interaction/summary`, TOKEN, {
    summary_type: 'total',
    time_frame: 'daily',
    start_date: day(-1),
    end_date: day(1),
  })) as Record<string, number>
  return Object.values(counts).reduce((sum, n) => sum + n, 0)
}

const recordedBefore = await interactionCount()
// Warm-up: JIT, caches, the connection pools of both servers.
await load('proxy', CONCURRENCY, 2)
await load('execute', CONCURRENCY, 2)

const rounds: {
  proxy_cpu_us: number
  execute_cpu_us: number
  ratio: number
  proxy_rps: number
  execute_rps: number
  proxy_cpu_share: number
  execute_cpu_share: number
}[] = []
for (let round = 0; round < ROUNDS; round++) {
  const order: ('proxy' | 'execute')[] = round % 2 === 0 ? ['proxy', 'execute'] : ['execute', 'proxy']
  const got: Record<string, Load & { cpu_us: number }> = {}
  for (const target of order) got[target] = await load(target, CONCURRENCY, DURATION)
  const p = got.proxy!
  const e = got.execute!
  rounds.push({
    proxy_cpu_us: p.cpu_us,
    execute_cpu_us: e.cpu_us,
    ratio: e.cpu_us / p.cpu_us,
    proxy_rps: p.requests / p.seconds,
    execute_rps: e.requests / e.seconds,
    proxy_cpu_share: (p.cpu_us * p.requests) / 1e6 / p.seconds,
    execute_cpu_share: (e.cpu_us * e.requests) / 1e6 / e.seconds,
  })
  console.error(
    `round ${round + 1}: proxy ${p.cpu_us.toFixed(1)} µs/call (${Math.round(p.requests / p.seconds)} req/s), execute ${e.cpu_us.toFixed(1)} µs/call (${Math.round(e.requests / e.seconds)} req/s): ${(e.cpu_us / p.cpu_us).toFixed(2)}×`,
  )
}
const c1 = { proxy: await load('proxy', 1, 2), execute: await load('execute', 1, 2) }

if (opts.profile) {
  await load('execute', CONCURRENCY, DURATION)
  server.kill('SIGTERM')
  await server.exited
  children.delete(server)
} else {
  const recorded = (await interactionCount()) - recordedBefore
  if (recorded !== executeCalls) failures.push(`${executeCalls} execute calls made, ${recorded} interactions recorded`)
}

const round1 = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits
const result = {
  machine: `${process.platform} ${process.arch}, ${navigator.hardwareConcurrency} cores`,
  server: opts.binary ? `compiled binary ${opts.binary}` : 'bun src/main.ts',
  log_level: opts['log-level'],
  pinning: TASKSET ? 'servers on CPU 0; upstream and load generators on CPU 1' : 'none (taskset not found)',
  date: new Date().toISOString(),
  rounds: ROUNDS,
  duration_s: DURATION,
  c16: {
    proxy_cpu_us_per_call: round1(median(rounds.map((r) => r.proxy_cpu_us))),
    execute_cpu_us_per_call: round1(median(rounds.map((r) => r.execute_cpu_us))),
    ratio_median: round1(median(rounds.map((r) => r.ratio)), 2),
    ratio_min: round1(Math.min(...rounds.map((r) => r.ratio)), 2),
    ratio_max: round1(Math.max(...rounds.map((r) => r.ratio)), 2),
    proxy_rps: Math.round(median(rounds.map((r) => r.proxy_rps))),
    execute_rps: Math.round(median(rounds.map((r) => r.execute_rps))),
    proxy_cpu_share: round1(median(rounds.map((r) => r.proxy_cpu_share)), 2),
    execute_cpu_share: round1(median(rounds.map((r) => r.execute_cpu_share)), 2),
  },
  c1_p50_ms: { proxy: c1.proxy.p50_ms, execute: c1.execute.p50_ms },
  correctness: failures.length === 0 ? 'PASS' : failures,
}
console.log(JSON.stringify(result, null, 2))
if (opts.json) writeFileSync(opts.json, JSON.stringify(result, null, 2))
process.exit(failures.length === 0 ? 0 : 1)
