// Scale-out benchmark (issue 32): throughput over real HTTP of one instance on SQLite, one on PostgreSQL, and two on
// one PostgreSQL database behind a round-robin client (what a load balancer does), for three requests:
//   me       GET /api/auth/me (the cheapest authenticated request)
//   record   POST /api/interaction/record-mcp-tool (a write: the group commit, the rollups)
//   mcp      POST /agent/small-bot/mcp, a raw JSON-RPC tools/call of load_skill (2025-11-25 headers), which is recorded too
// Servers run from source as separate processes (`bun src/main.ts serve`); the two PostgreSQL instances have their own
// data directories holding the same secrets (copied, as shared storage would give them). The load comes from this
// process: C fetch loops for D seconds per run, configurations rotated per round, R rounds, medians. Every answer must
// be 2xx (exit 1 otherwise).
//
//   bun scripts/bench/scaleout.ts --postgres URL [--rounds 3] [--duration 5] [--concurrency 16] [--workloads me,record,mcp] [--json FILE]
//
// URL: an empty PostgreSQL database (the instances migrate it). Target: two instances ≥ 1.6× one on record. Read the
// figures with the machine in mind: on 2 cores the load generator, PostgreSQL and the instances share them, so a second
// instance can only use what the first leaves idle.
import type { Subprocess } from 'bun'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { benchLicense, intOption, median } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    postgres: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    json: { type: 'string' },
    workloads: { type: 'string', default: 'me,record,mcp' },
  },
})
if (!opts.postgres) {
  console.error('usage: scaleout.ts --postgres postgres://user@host:5432/empty_database [--rounds 3] [--duration 5] [--concurrency 16]')
  process.exit(2)
}
const POSTGRES = opts.postgres
const ROUNDS = intOption(opts.rounds!, '--rounds')
const DURATION = intOption(opts.duration!, '--duration')
const CONCURRENCY = intOption(opts.concurrency!, '--concurrency')
const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'
const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-scaleout-'))
const children = new Set<Subprocess>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

interface Instance {
  readonly base: string
  readonly proc: Subprocess
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function launch(dataDir: string, databaseUrl: string): Promise<Instance> {
  const port = await freePort()
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir], {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn', AGENTBOX_DATABASE_URL: databaseUrl },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  children.add(proc)
  const base = `http://127.0.0.1:${port}`
  for (const deadline = performance.now() + 30_000; performance.now() < deadline; await Bun.sleep(20))
    if (
      await fetch(`${base}/api/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { base, proc }
  throw new Error(`${dataDir}: the server did not start`)
}

async function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`)
  return json
}

const SKILL = '---\nname: tiny\ndescription: A tiny skill for the benchmark.\n---\nSay hello, then answer the question in one line.\n'

/** Provisions the instance's database (once per database) and answers the admin's access token. */
async function provision(instance: Instance): Promise<string> {
  await call(instance.base, 'POST', '/api/tenant/setup', SETUP_TOKEN, {
    license_token: benchLicense(),
    admin_email: 'admin@example.com',
    admin_name: 'Ada Admin',
    admin_password: PASSWORD,
  })
  const { access_token } = await call(instance.base, 'POST', '/api/auth/login', '', { email: 'admin@example.com', password: PASSWORD })
  await call(instance.base, 'POST', '/api/agents', access_token, { name: 'small-bot', description: 'd', instructions: 'Be brief.' })
  await call(instance.base, 'POST', '/api/agents/small-bot/skills', access_token, { content: SKILL })
  await call(instance.base, 'POST', '/api/agents/small-bot/publish', access_token, {})
  return access_token
}

// ------------------------------------------------------------------------------------------------------------ set-up

const sqliteDir = join(dir, 'sqlite')
const pgDirs = [join(dir, 'pg-1'), join(dir, 'pg-2')]
const sqlite = await launch(sqliteDir, '')
const sqliteToken = await provision(sqlite)
const pg1 = await launch(pgDirs[0]!, POSTGRES)
const pgToken = await provision(pg1)
// The second instance reads the same keys (sign-in tokens, sealed secrets) as the first: shared storage in production.
cpSync(join(pgDirs[0]!, 'secrets'), join(pgDirs[1]!, 'secrets'), { recursive: true })
const pg2 = await launch(pgDirs[1]!, POSTGRES)
const me = await call(pg2.base, 'GET', '/api/auth/me', pgToken)
if (me.email !== 'admin@example.com') throw new Error('the second instance does not accept the first one’s token')

type Workload = 'me' | 'record' | 'mcp'
const WORKLOADS = opts.workloads!.split(',') as Workload[]
if (WORKLOADS.length === 0 || WORKLOADS.some((w) => !['me', 'record', 'mcp'].includes(w))) {
  console.error('--workloads: a comma-separated list of me, record, mcp')
  process.exit(2)
}
const CONFIGS = [
  { name: 'sqlite ×1', bases: [sqlite.base], token: sqliteToken },
  { name: 'postgres ×1', bases: [pg1.base], token: pgToken },
  { name: 'postgres ×2', bases: [pg1.base, pg2.base], token: pgToken },
] as const

function request(workload: Workload, base: string, token: string): Request {
  const auth = { authorization: `Bearer ${token}` }
  switch (workload) {
    case 'me':
      return new Request(`${base}/api/auth/me`, { headers: auth })
    case 'record':
      return new Request(`${base}/api/interaction/record-mcp-tool`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ mcp_server_name: 'Bench', tool_name: 'search', arguments: { q: 'x' }, duration_seconds: 0.01 }),
      })
    case 'mcp':
      return new Request(`${base}/agent/small-bot/mcp`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'load_skill', arguments: { name: 'tiny' } } }),
      })
  }
}

/** Server CPU seconds (utime + stime) of a process, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** C loops for D seconds, spread round robin over `bases`; answers requests per second. */
async function load(workload: Workload, bases: readonly string[], token: string): Promise<number> {
  let done = 0
  let next = 0
  let failed: string | null = null
  const end = performance.now() + DURATION * 1000
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end && failed === null) {
        const base = bases[next++ % bases.length]!
        const response = await fetch(request(workload, base, token))
        const text = await response.text()
        if (response.status >= 300 || (workload === 'mcp' && !text.includes('"result"')))
          failed = `${workload} on ${base}: ${response.status} ${text.slice(0, 200)}`
        else done++
      }
    }),
  )
  if (failed) {
    console.error(failed)
    process.exit(1)
  }
  return done / DURATION
}

// Warm every instance up on every workload (JIT, compiled statements, connection pools).
for (const config of CONFIGS)
  for (const workload of WORKLOADS) for (const base of config.bases) for (let i = 0; i < 200; i++) await fetch(request(workload, base, config.token))

const samples = new Map<string, number[]>()
const cpu = new Map<string, number[]>()
const processes = new Map<string, Subprocess[]>([
  ['sqlite ×1', [sqlite.proc]],
  ['postgres ×1', [pg1.proc]],
  ['postgres ×2', [pg1.proc, pg2.proc]],
])
const loadBefore = loadavg()[0]!
for (let round = 0; round < ROUNDS; round++) {
  for (const workload of WORKLOADS) {
    const order = CONFIGS.map((_, i) => CONFIGS[(i + round) % CONFIGS.length]!)
    for (const config of order) {
      const procs = processes.get(config.name)!
      const cpuBefore = procs.reduce((sum, p) => sum + cpuSeconds(p.pid), 0)
      const rps = await load(workload, config.bases, config.token)
      const cpuUsed = procs.reduce((sum, p) => sum + cpuSeconds(p.pid), 0) - cpuBefore
      const key = `${workload} ${config.name}`
      samples.set(key, [...(samples.get(key) ?? []), rps])
      cpu.set(key, [...(cpu.get(key) ?? []), (cpuUsed / (rps * DURATION)) * 1e6])
      console.log(`round ${round + 1} ${key}: ${Math.round(rps)} req/s, ${Math.round((cpuUsed / (rps * DURATION)) * 1e6)} µs instance CPU per request`)
    }
  }
}

const result: Record<string, unknown> = {
  machine: `${process.platform} ${process.arch}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`,
  date: new Date().toISOString(),
  load_average_before: Math.round(loadBefore * 100) / 100,
  rounds: ROUNDS,
  duration_s: DURATION,
  concurrency: CONCURRENCY,
}
const rows: string[] = [
  '| request | SQLite ×1 req/s | PostgreSQL ×1 req/s | PostgreSQL ×2 req/s | PG ×1 ÷ SQLite ×1 | PG ×2 ÷ PG ×1 |',
  '|---|---|---|---|---|---|',
]
for (const workload of WORKLOADS) {
  const m = (config: string) => median(samples.get(`${workload} ${config}`)!)
  const c = (config: string) => Math.round(median(cpu.get(`${workload} ${config}`)!))
  const entry = {
    sqlite_rps: Math.round(m('sqlite ×1')),
    postgres_rps: Math.round(m('postgres ×1')),
    postgres_two_rps: Math.round(m('postgres ×2')),
    postgres_vs_sqlite: Math.round((m('postgres ×1') / m('sqlite ×1')) * 100) / 100,
    two_vs_one: Math.round((m('postgres ×2') / m('postgres ×1')) * 100) / 100,
    instance_cpu_us_per_request: { sqlite: c('sqlite ×1'), postgres: c('postgres ×1'), postgres_two: c('postgres ×2') },
  }
  result[workload] = entry
  rows.push(
    `| ${workload} | ${entry.sqlite_rps} | ${entry.postgres_rps} | ${entry.postgres_two_rps} | **${entry.postgres_vs_sqlite}** | **${entry.two_vs_one}** |`,
  )
}
console.log(rows.join('\n'))
console.log(JSON.stringify(result, null, 2))
if (opts.json) writeFileSync(opts.json, JSON.stringify(result, null, 2))
process.exit(0)
