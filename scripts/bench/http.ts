// HTTP benchmark: bare Bun.serve vs the real agentbox server (health, /api/auth/me with a JWT and with a PAT), from
// source at log level warn and info and as the compiled binary (info), plus correctness checks under load and the
// binary's size, cold start and idle RSS.
//
//   bun scripts/bench/http.ts [--rounds 3] [--duration 5] [--warmup 2] [--connections 50] [--cold-starts 5]
//                             [--no-info] [--no-binary] [--rebuild] [--loadgen wrk|bun] [--json FILE]
//
// Method (docs/benchmarks.md): servers pinned to CPU 0, the load generator (and this script) to CPU 1; configurations
// interleaved and rotated each round, fresh server processes and data dirs per round; medians over rounds; every ratio is
// taken against the bare server measured in the same round. Loopback only, every run bounded in time.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Subprocess } from 'bun'
import { benchLicense, intOption } from './lib.ts'

const ROOT = join(import.meta.dir, '..', '..')
const BINARY = join(ROOT, 'dist', 'agentbox')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery staple' }
const MEMBER = { email: 'member@example.com', name: 'Max Member', password: 'another long passphrase' }

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    'cold-starts': { type: 'string', default: '5' },
    'no-info': { type: 'boolean', default: false },
    'no-binary': { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    loadgen: { type: 'string' },
    json: { type: 'string' },
  },
})
const ROUNDS = intOption(opts.rounds!, '--rounds')
const DURATION = intOption(opts.duration!, '--duration')
const WARMUP = intOption(opts.warmup!, '--warmup')
const CONNECTIONS = intOption(opts.connections!, '--connections')
const COLD_STARTS = intOption(opts['cold-starts']!, '--cold-starts')

// ---------------------------------------------------------------------------------------------------------------- tools

const which = (cmd: string): string | null => Bun.which(cmd)
const TASKSET = which('taskset')
const WRK = opts.loadgen === 'bun' ? null : which('wrk')
if (opts.loadgen === 'wrk' && !WRK) {
  console.error('wrk not found. Install it (Debian/Ubuntu: apt-get install -y wrk) or use --loadgen bun.')
  process.exit(2)
}
if (!WRK && opts.loadgen !== 'bun') {
  console.error('hint: wrk is not installed (Debian/Ubuntu: `apt-get install -y wrk`); falling back to the Bun fetch load generator,')
  console.error('      which is slower than the servers it measures: ratios will be compressed towards 1.')
}
const pinned = (cpu: number, cmd: string[]): string[] => (TASKSET ? [TASKSET, '-c', String(cpu), ...cmd] : cmd)

// This script only waits while the load runs; keep it (and the cold-start poller) off the server's CPU.
if (TASKSET) Bun.spawnSync([TASKSET, '-a', '-p', '-c', '1', String(process.pid)], { stdout: 'ignore', stderr: 'ignore' })

const CLK_TCK = Number(new TextDecoder().decode(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout).trim()) || 100

const median = (xs: number[]): number => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return NaN
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const children = new Set<Subprocess>()
function killAll(): void {
  for (const child of children) {
    try {
      child.kill('SIGKILL')
    } catch {}
  }
}
process.on('exit', killAll)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAll()
    process.exit(130)
  })
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  let last = ''
  while (performance.now() < deadline) {
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      if (response.status === 200) return
      last = `status ${response.status}`
    } catch (error) {
      last = (error as Error).message
    }
    await Bun.sleep(5)
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms (${last})`)
}

async function stop(child: Subprocess): Promise<void> {
  child.kill('SIGTERM')
  const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(3000).then(() => false)])
  if (!exited) {
    child.kill('SIGKILL')
    await child.exited
  }
  children.delete(child)
}

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12]) // utime + stime (fields 14, 15)
}

function procStatus(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${key}:`))
  return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN // MiB
}

// -------------------------------------------------------------------------------------------------------------- servers

interface Running {
  readonly proc: Subprocess
  readonly base: string
}

let benchRoot = ''

async function startBare(): Promise<Running> {
  const port = await freePort()
  const proc = Bun.spawn(pinned(0, [process.execPath, join(import.meta.dir, 'bare-server.ts'), String(port)]), { stdout: 'ignore', stderr: 'inherit' })
  children.add(proc)
  const base = `http://127.0.0.1:${port}`
  await waitFor(base + '/', 10_000)
  return { proc, base }
}

interface Agentbox extends Running {
  readonly jwt: string
  readonly pat: string
  readonly patId: string
  readonly adminId: string
}

async function call(base: string, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await response.text()
  let json: unknown = text
  try {
    json = JSON.parse(text)
  } catch {}
  return { status: response.status, json }
}

async function expectOk(base: string, method: string, path: string, token: string | undefined, body: unknown, want = 200): Promise<any> {
  const { status, json } = await call(base, method, path, token, body)
  if (status !== want) throw new Error(`${method} ${path}: expected ${want}, got ${status} ${JSON.stringify(json)}`)
  return json
}

const FROM_SOURCE = [process.execPath, join(ROOT, 'src', 'main.ts')]

async function startAgentbox(logLevel: 'warn' | 'info', tag: string, command = FROM_SOURCE): Promise<Agentbox> {
  const port = await freePort()
  const dir = join(benchRoot, tag)
  mkdirSync(dir, { recursive: true })
  // Logs go to a file, as with a shell redirect: the cost of formatting and writing each line is in, no terminal or journald.
  const proc = Bun.spawn(pinned(0, [...command, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, 'data')]), {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: logLevel },
    stdout: Bun.file(join(dir, 'stdout.log')),
    stderr: 'inherit',
  })
  children.add(proc)
  const base = `http://127.0.0.1:${port}`
  await waitFor(base + '/api/health/live', 20_000)

  await expectOk(base, 'POST', '/api/tenant/setup', SETUP_TOKEN, {
    license_token: benchLicense({ org: 'Bench', seats: 10 }),
    admin_email: ADMIN.email,
    admin_name: ADMIN.name,
    admin_password: ADMIN.password,
  })
  const { access_token: jwt } = await expectOk(base, 'POST', '/api/auth/login', undefined, { email: ADMIN.email, password: ADMIN.password })
  const created = await expectOk(base, 'POST', '/api/auth/tokens', jwt, { name: 'bench' }, 201)
  const me = await expectOk(base, 'GET', '/api/auth/me', jwt, undefined)
  return { proc, base, jwt, pat: created.token, patId: created.id, adminId: me.id }
}

// -------------------------------------------------------------------------------------------------------------- load

interface LoadResult {
  rps: number
  p50: number | null // ms
  p99: number | null // ms
  non2xx: number
  socketErrors: number
  requests: number
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim())
  if (!m) return NaN
  const n = Number(m[1])
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000
}

function parseWrk(out: string): LoadResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN)
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN)
  const p50 = /^\s+50%\s+(\S+)/m.exec(out)?.[1]
  const p99 = /^\s+99%\s+(\S+)/m.exec(out)?.[1]
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const socketErrors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0
  return { rps, requests, p50: p50 ? toMs(p50) : null, p99: p99 ? toMs(p99) : null, non2xx, socketErrors }
}

async function bounded(cmd: string[], seconds: number): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
  children.add(proc)
  const killer = setTimeout(() => proc.kill('SIGKILL'), (seconds + 15) * 1000)
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  const code = await proc.exited
  clearTimeout(killer)
  children.delete(proc)
  if (code !== 0) throw new Error(`${cmd.join(' ')} exited ${code}: ${err || out}`)
  return out
}

async function load(url: string, authorization: string | null, seconds: number): Promise<LoadResult> {
  if (WRK) {
    const header = authorization ? ['-H', `Authorization: ${authorization}`] : []
    const out = await bounded(pinned(1, [WRK, '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '5s', '--latency', ...header, url]), seconds)
    return parseWrk(out)
  }
  const header = authorization ? ['authorization', authorization] : []
  const out = await bounded(pinned(1, [process.execPath, join(import.meta.dir, 'loadgen.ts'), url, String(CONNECTIONS), String(seconds), ...header]), seconds)
  const r = JSON.parse(out.trim().split('\n').at(-1)!) as {
    requests: number
    seconds: number
    non2xx: number
    errors: number
    p50_ms: number | null
    p99_ms: number | null
  }
  return { rps: r.requests / r.seconds, requests: r.requests, p50: r.p50_ms, p99: r.p99_ms, non2xx: r.non2xx, socketErrors: r.errors }
}

// -------------------------------------------------------------------------------------------------------------- configs

/** warn and info: `bun src/main.ts` at that log level; binary: `dist/agentbox` as shipped (info, the default). */
type ServerKey = 'bare' | 'warn' | 'info' | 'binary'
interface BenchConfig {
  readonly key: string
  readonly label: string
  readonly server: ServerKey
  readonly path: string
  readonly auth: 'jwt' | 'pat'
}

const CONFIGS: BenchConfig[] = [
  { key: 'bare', label: 'bare `Bun.serve` + `Response.json`', server: 'bare', path: '/api/auth/me', auth: 'jwt' },
  ...(['warn', 'info'] as const)
    .filter((level) => level === 'warn' || !opts['no-info'])
    .flatMap((level): BenchConfig[] => [
      { key: `health-${level}`, label: 'agentbox GET /api/health', server: level, path: '/api/health', auth: 'jwt' },
      { key: `me-jwt-${level}`, label: 'agentbox GET /api/auth/me, JWT', server: level, path: '/api/auth/me', auth: 'jwt' },
      { key: `me-pat-${level}`, label: 'agentbox GET /api/auth/me, PAT (abx_pat_)', server: level, path: '/api/auth/me', auth: 'pat' },
    ]),
  ...(opts['no-binary']
    ? []
    : ([
        { key: 'me-jwt-binary', label: '`dist/agentbox` GET /api/auth/me, JWT', server: 'binary', path: '/api/auth/me', auth: 'jwt' },
        { key: 'me-pat-binary', label: '`dist/agentbox` GET /api/auth/me, PAT (abx_pat_)', server: 'binary', path: '/api/auth/me', auth: 'pat' },
      ] satisfies BenchConfig[])),
]

interface Sample extends LoadResult {
  round: number
  cpuShare: number // server CPU-seconds per wall-second during the measured run
  perCpuSecond: number // req/s ÷ cpuShare
}

const samples = new Map<string, Sample[]>(CONFIGS.map((c) => [c.key, []]))
const checks: { name: string; pass: boolean; detail: string }[] = []
const peakRss = new Map<ServerKey, number[]>()
const check = (name: string, pass: boolean, detail: string) => {
  checks.push({ name, pass, detail })
  console.log(`  ${pass ? 'PASS' : 'FAIL'} ${name}${detail ? ` (${detail})` : ''}`)
}

async function correctness(server: Agentbox, level: string, round: number): Promise<void> {
  // A revoked PAT is refused on the very next request.
  await expectOk(server.base, 'DELETE', `/api/auth/tokens/${server.patId}`, server.jwt, undefined)
  const afterRevoke = await call(server.base, 'GET', '/api/auth/me', server.pat)
  check(`[${level} r${round}] revoked PAT → next request 401`, afterRevoke.status === 401, `got ${afterRevoke.status}`)

  // A deactivated user is refused on the very next request, with their JWT and their PAT.
  const member = await expectOk(server.base, 'POST', '/api/users', server.jwt, { ...MEMBER, role: 'member' }, 201)
  const { access_token: memberJwt } = await expectOk(server.base, 'POST', '/api/auth/login', undefined, { email: MEMBER.email, password: MEMBER.password })
  const { token: memberPat } = await expectOk(server.base, 'POST', '/api/auth/tokens', memberJwt, { name: 'member-bench' }, 201)
  await expectOk(server.base, 'GET', '/api/auth/me', memberJwt, undefined)
  await expectOk(server.base, 'GET', '/api/auth/me', memberPat, undefined)
  await expectOk(server.base, 'DELETE', `/api/users/${member.id}`, server.jwt, undefined)
  const jwtAfter = await call(server.base, 'GET', '/api/auth/me', memberJwt)
  const patAfter = await call(server.base, 'GET', '/api/auth/me', memberPat)
  check(
    `[${level} r${round}] deactivated user → next request 401`,
    jwtAfter.status === 401 && patAfter.status === 401,
    `JWT ${jwtAfter.status}, PAT ${patAfter.status}`,
  )
}

async function round(r: number): Promise<void> {
  const servers = new Map<ServerKey, Running>()
  servers.set('bare', await startBare())
  servers.set('warn', await startAgentbox('warn', `r${r}-warn`))
  if (!opts['no-info']) servers.set('info', await startAgentbox('info', `r${r}-info`))
  if (!opts['no-binary']) servers.set('binary', await startAgentbox('info', `r${r}-binary`, [BINARY]))
  const admin = servers.get('warn') as Agentbox
  const tokenFor = (c: BenchConfig): string => {
    const s = servers.get(c.server)
    // The bare server ignores the header; it is sent anyway so that request bytes match the JWT configs.
    const source = s && 'jwt' in s ? (s as Agentbox) : admin
    return c.auth === 'pat' ? source.pat : source.jwt
  }

  // Sanity: every config answers 200 and /me names the admin, before any load.
  for (const c of CONFIGS) {
    const s = servers.get(c.server)!
    const res = await call(s.base, 'GET', c.path, tokenFor(c))
    const ok = res.status === 200 && (c.path !== '/api/auth/me' || res.json?.email === ADMIN.email)
    if (!ok) throw new Error(`sanity check failed for ${c.key}: ${res.status} ${JSON.stringify(res.json)}`)
  }

  const order = CONFIGS.map((_, i) => CONFIGS[(i + r) % CONFIGS.length]!)
  for (const c of order) {
    const s = servers.get(c.server)!
    const url = s.base + c.path
    const authorization = `Bearer ${tokenFor(c)}`
    await load(url, authorization, WARMUP)
    const t0 = performance.now()
    const ticks0 = cpuTicks(s.proc.pid)
    const result = await load(url, authorization, DURATION)
    const ticks1 = cpuTicks(s.proc.pid)
    const wall = (performance.now() - t0) / 1000
    const cpuShare = (ticks1 - ticks0) / CLK_TCK / wall
    const sample: Sample = { ...result, round: r, cpuShare, perCpuSecond: result.rps / cpuShare }
    samples.get(c.key)!.push(sample)
    console.log(
      `  r${r} ${c.key.padEnd(12)} ${Math.round(result.rps).toString().padStart(7)} req/s  p50 ${fmt(result.p50, 2)} ms  p99 ${fmt(result.p99, 2)} ms  ` +
        `server CPU ${Math.round(cpuShare * 100)}%  non-2xx ${result.non2xx}  socket errors ${result.socketErrors}`,
    )
  }

  for (const level of ['warn', 'info', 'binary'] as const) {
    const s = servers.get(level)
    if (s) await correctness(s as Agentbox, level, r)
  }
  for (const [key, s] of servers) {
    const list = peakRss.get(key) ?? []
    list.push(procStatus(s.proc.pid, 'VmHWM'))
    peakRss.set(key, list)
    await stop(s.proc)
  }
}

// -------------------------------------------------------------------------------------------------------------- binary

interface BinaryFacts {
  sizeBytes: number
  builtAt: string
  staleVsSrc: boolean
  coldStartMs: number[]
  idleRssMiB: number[]
  sourceColdStartMs: number[]
  sourceIdleRssMiB: number[]
}

function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

/** Spawn → first 200 from /api/health on a fresh data dir, then VmRSS 2 s after ready. */
async function coldStart(cmd: string[], tag: string): Promise<{ ms: number; rss: number }> {
  const port = await freePort()
  const dir = join(benchRoot, tag)
  const url = `http://127.0.0.1:${port}/api/health`
  const started = performance.now()
  const proc = Bun.spawn(pinned(0, [...cmd, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dir]), {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'info' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  children.add(proc)
  let ms = NaN
  const deadline = started + 20_000
  while (performance.now() < deadline) {
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      if (response.status === 200) {
        ms = performance.now() - started
        break
      }
    } catch {}
    await Bun.sleep(0.5)
  }
  if (!Number.isFinite(ms)) {
    await stop(proc)
    throw new Error(`${cmd.join(' ')}: no 200 from /api/health within 20 s`)
  }
  await Bun.sleep(2000)
  const rss = procStatus(proc.pid, 'VmRSS')
  await stop(proc)
  return { ms, rss }
}

/** The binary is served in the throughput rounds too, so it is rebuilt when src/ is newer: never measure old code. */
function ensureBinary(): void {
  const stale = existsSync(BINARY) && newestMtime(join(ROOT, 'src')) > statSync(BINARY).mtimeMs
  if (existsSync(BINARY) && !stale && !opts.rebuild) return
  console.log(`building ${BINARY}${stale ? ' (older than src/)' : ''} …`)
  const build = Bun.spawnSync([process.execPath, join(ROOT, 'scripts', 'build.ts')], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
  if (build.exitCode !== 0) throw new Error('build failed')
}

async function binaryFacts(): Promise<BinaryFacts> {
  const st = statSync(BINARY)
  const facts: BinaryFacts = {
    sizeBytes: st.size,
    builtAt: st.mtime.toISOString(),
    staleVsSrc: newestMtime(join(ROOT, 'src')) > st.mtimeMs,
    coldStartMs: [],
    idleRssMiB: [],
    sourceColdStartMs: [],
    sourceIdleRssMiB: [],
  }
  for (let i = 0; i < COLD_STARTS; i++) {
    const bin = await coldStart([BINARY], `cold-bin-${i}`)
    facts.coldStartMs.push(bin.ms)
    facts.idleRssMiB.push(bin.rss)
    const src = await coldStart([process.execPath, join(ROOT, 'src', 'main.ts')], `cold-src-${i}`)
    facts.sourceColdStartMs.push(src.ms)
    facts.sourceIdleRssMiB.push(src.rss)
    console.log(
      `  cold start ${i + 1}: binary ${bin.ms.toFixed(1)} ms, ${bin.rss.toFixed(1)} MiB; from source ${src.ms.toFixed(1)} ms, ${src.rss.toFixed(1)} MiB`,
    )
  }
  return facts
}

// -------------------------------------------------------------------------------------------------------------- report

function fmt(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

function machine(): Record<string, string> {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown'
  const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0)
  const wrkVersion = WRK
    ? new TextDecoder()
        .decode(Bun.spawnSync([WRK, '--version']).stdout)
        .split('\n')[0]!
        .split(' Copyright')[0]!
    : 'not installed (Bun fetch load generator)'
  return {
    date: new Date().toISOString(),
    nproc: String(availableParallelism()),
    cpu: model,
    memory: `${(memKb / 1024 / 1024).toFixed(1)} GiB`,
    kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(),
    bun: Bun.version,
    loadgen: WRK ? wrkVersion : 'Bun fetch loop (scripts/bench/loadgen.ts)',
    pinning: TASKSET ? 'server on CPU 0, load generator on CPU 1 (taskset)' : 'none (taskset not found)',
  }
}

function report(binary: BinaryFacts | null): string {
  const lines: string[] = []
  const bare = samples.get('bare')!
  const bareByRound = new Map(bare.map((s) => [s.round, s]))
  lines.push(`### HTTP throughput (${ROUNDS} rounds × ${DURATION} s after ${WARMUP} s warm-up, ${CONNECTIONS} connections; medians)`, '')
  lines.push(
    '| config | log level | req/s median | ratio vs bare | CPU-normalised ratio | server CPU µs/req | server CPU % | p50 ms | p99 ms | non-2xx + socket errors |',
  )
  lines.push('|---|---|---|---|---|---|---|---|---|---|')
  for (const c of CONFIGS) {
    const list = samples.get(c.key)!
    const ratios = list.map((s) => s.rps / (bareByRound.get(s.round)?.rps ?? NaN))
    const cpuRatios = list.map((s) => s.perCpuSecond / (bareByRound.get(s.round)?.perCpuSecond ?? NaN))
    const bad = list.reduce((a, s) => a + s.non2xx + s.socketErrors, 0)
    lines.push(
      `| ${c.label} | ${c.server === 'bare' ? '–' : c.server === 'binary' ? 'info' : c.server} | ${fmt(median(list.map((s) => s.rps)))} | **${fmt(median(ratios), 2)}** | ${fmt(median(cpuRatios), 2)} | ` +
        `${fmt(median(list.map((s) => 1e6 / s.perCpuSecond)), 1)} | ${fmt(median(list.map((s) => s.cpuShare * 100)))} | ${fmt(median(list.map((s) => s.p50 ?? NaN)), 2)} | ${fmt(median(list.map((s) => s.p99 ?? NaN)), 2)} | ${bad} |`,
    )
  }
  lines.push('', 'Ratios are medians of per-round ratios against the bare server of the same round. "CPU-normalised" divides req/s by the')
  lines.push("server process's own CPU share during the run (utime+stime from /proc), which is less sensitive to host noise.")
  const bareShare = median(bare.map((s) => s.cpuShare))
  if (bareShare < 0.85) {
    lines.push('', `**Warning**: the bare server used only ${Math.round(bareShare * 100)} % of its CPU, so the load generator (or the host) was the bottleneck`)
    lines.push('and the raw req/s ratios are compressed towards 1: read the CPU-normalised column instead.')
  }
  lines.push('')
  const rss = [...peakRss].map(([k, v]) => `${k} ${fmt(median(v), 1)} MiB`).join(', ')
  lines.push(`Peak RSS after the runs (VmHWM, median): ${rss}.`, '')

  lines.push('### Correctness', '')
  const allOk = CONFIGS.every((c) => samples.get(c.key)!.every((s) => s.non2xx === 0 && s.socketErrors === 0))
  lines.push(`- ${allOk ? 'PASS' : 'FAIL'} every response under load was 2xx, no socket errors`)
  const grouped = new Map<string, boolean[]>()
  for (const ch of checks) {
    const name = ch.name.replace(/^\[[^\]]+\] /, '')
    grouped.set(name, [...(grouped.get(name) ?? []), ch.pass])
  }
  for (const [name, results] of grouped)
    lines.push(`- ${results.every(Boolean) ? 'PASS' : 'FAIL'} ${name} (${results.filter(Boolean).length}/${results.length})`)
  lines.push('')

  if (binary) {
    lines.push(`### Binary (dist/agentbox, built ${binary.builtAt}${binary.staleVsSrc ? ', OLDER than src/: rebuild with --rebuild' : ''})`, '')
    lines.push('| how started | size | cold start median (min–max), spawn → first 200 of /api/health, fresh data dir | idle RSS 2 s after ready (median) |')
    lines.push('|---|---|---|---|')
    const range = (xs: number[]) => `${fmt(median(xs), 1)} ms (${fmt(Math.min(...xs), 1)}–${fmt(Math.max(...xs), 1)})`
    lines.push(`| \`dist/agentbox serve\` | ${fmt(binary.sizeBytes / 1e6, 1)} MB | ${range(binary.coldStartMs)} | ${fmt(median(binary.idleRssMiB), 1)} MiB |`)
    lines.push(`| \`bun src/main.ts serve\` (reference) | – | ${range(binary.sourceColdStartMs)} | ${fmt(median(binary.sourceIdleRssMiB), 1)} MiB |`)
    lines.push(`\n(${COLD_STARTS} runs each, interleaved.)`, '')
  }

  lines.push('### Machine', '')
  for (const [k, v] of Object.entries(machine())) lines.push(`- ${k}: ${v}`)
  return lines.join('\n')
}

// -------------------------------------------------------------------------------------------------------------- main

benchRoot = mkdtempSync(join(tmpdir(), 'agentbox-bench-'))
let failed = false
try {
  console.log(
    `HTTP bench: ${ROUNDS} rounds, ${CONFIGS.length} configs, ${DURATION} s runs (+${WARMUP} s warm-up), ${CONNECTIONS} connections, load: ${WRK ?? 'bun loadgen'}`,
  )
  if (!opts['no-binary']) ensureBinary()
  for (let r = 1; r <= ROUNDS; r++) {
    console.log(`round ${r}/${ROUNDS}`)
    await round(r)
  }
  let binary: BinaryFacts | null = null
  let binaryError: string | null = null
  if (!opts['no-binary']) {
    console.log('binary: size, cold start, idle RSS')
    try {
      binary = await binaryFacts()
    } catch (error) {
      // Keep the HTTP results: report the failure in the binary section and exit non-zero.
      binaryError = (error as Error).message
      console.error(error)
    }
  }
  let md = report(binary)
  if (binaryError) md = md.replace('### Machine', `### Binary\n\nFAIL: ${binaryError}\n\n### Machine`)
  console.log('\n' + md)
  if (opts.json)
    writeFileSync(
      opts.json,
      JSON.stringify(
        { machine: machine(), configs: CONFIGS, samples: Object.fromEntries(samples), checks, peakRss: Object.fromEntries(peakRss), binary },
        null,
        2,
      ),
    )
  failed = binaryError !== null || checks.some((c) => !c.pass) || [...samples.values()].flat().some((s) => s.non2xx > 0 || s.socketErrors > 0)
} catch (error) {
  console.error(error)
  failed = true
} finally {
  killAll()
  rmSync(benchRoot, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
