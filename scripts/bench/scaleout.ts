// Scale-out benchmark (issue 32): throughput over real HTTP of one instance on SQLite, one on PostgreSQL, and two on
// one PostgreSQL database behind a load balancer (this process: round robin per request unless --balance says
// otherwise), for three requests:
//   me       GET /api/auth/me (the cheapest authenticated request)
//   record   POST /api/interaction/record-mcp-tool (a write: the group commit, the rollups)
//   mcp      POST /agent/small-bot/mcp, a raw JSON-RPC tools/call of load_skill (2025-11-25 headers), which is recorded too
// Servers run from source as separate processes (`bun src/main.ts serve`); the two PostgreSQL instances have their own
// data directories holding the same secrets (copied, as shared storage would give them). The load comes from this
// process: C fetch loops for D seconds per run, configurations rotated per round, R rounds, medians. Every answer must
// be 2xx (exit 1 otherwise).
//
//   bun scripts/bench/scaleout.ts --postgres URL [--rounds 3] [--duration 5] [--concurrency 16] [--workloads me,record,mcp]
//                                 [--instance-cpu CORES] [--cpu-period-ms MS] [--balance request|connection|least] [--json FILE]
//
// URL: an empty PostgreSQL database (the instances migrate it). Target: two instances ≥ 1.6× one on record. Read the
// figures with the machine in mind: on 2 cores the load generator, PostgreSQL and the instances share them, so a second
// instance can only use what the first leaves idle.
//
// --instance-cpu 0.4 puts each instance in its own cgroup capped at 0.4 CPU (as a container's CPU limit does; needs a
// writable cgroup hierarchy: root; refused otherwise) and runs every configuration twice in each round, without and
// with the caps (the quota is changed between runs), so the uncapped figures come from the same sitting. Each run also
// reports the CPU the instances, PostgreSQL (when it runs on this machine) and this load generator used, in cores, the
// machine's idle cores, and how often the capped instances were throttled: a capped instance at its cap, with
// PostgreSQL and the load generator not short of CPU, is what makes "two ÷ one" a measure of what an instance adds.
// When the server has pg_stat_statements loaded (shared_preload_libraries), each `record` run also reports the group
// commit's batches: how many, rows per batch, and PostgreSQL's planning and execution time per batch.
//
// --cpu-period-ms sets the CFS period the cap is counted over (default 100, what container runtimes use): at 100 ms a
// 0.25 cap runs an instance for 25 ms and stops it for 75, which closed loops balanced per request feel as a stall
// of one instance in turn; a shorter period spreads the same share over time, closer to a slower CPU.
// --balance says how the load generator spreads requests: `request` (default) sends each request to the next instance
// in turn, as an HTTP load balancer does per request (nginx, HAProxy in HTTP mode); `connection` keeps each loop on
// one instance, as a balancer of TCP connections does (Kubernetes Services, a network load balancer, HAProxy in TCP
// mode) with keep-alive clients; `least` sends each request to the instance with the fewest requests in flight (ties
// in turn), as nginx `least_conn`, HAProxy `leastconn`, Envoy `LEAST_REQUEST` and AWS ALB "least outstanding
// requests" do.
import type { Subprocess } from 'bun'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { CpuLimit } from './cpu-limit.ts'
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
    'instance-cpu': { type: 'string' },
    'cpu-period-ms': { type: 'string', default: '100' },
    balance: { type: 'string', default: 'request' },
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
const INSTANCE_CPU = opts['instance-cpu'] === undefined ? null : Number(opts['instance-cpu'])
if (INSTANCE_CPU !== null && !(INSTANCE_CPU >= 0.01 && INSTANCE_CPU <= cpus().length)) {
  console.error(`--instance-cpu must be a number of cores from 0.01 to ${cpus().length}`)
  process.exit(2)
}
const CPU_PERIOD_MS = Number(opts['cpu-period-ms'])
if (!(CPU_PERIOD_MS >= 1 && CPU_PERIOD_MS <= 1000)) {
  console.error('--cpu-period-ms must be a number of milliseconds from 1 to 1000')
  process.exit(2)
}
if (opts.balance !== 'request' && opts.balance !== 'connection' && opts.balance !== 'least') {
  console.error('--balance must be request, connection or least')
  process.exit(2)
}
const BALANCE: 'request' | 'connection' | 'least' = opts.balance
const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'
const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-scaleout-'))
const children = new Set<Subprocess>()
const limits: CpuLimit[] = []
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
  for (const limit of limits) limit.remove()
  rmSync(dir, { recursive: true, force: true })
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130))

// One cgroup per instance, made before anything starts so that a machine where they cannot be made is refused at once.
if (INSTANCE_CPU !== null)
  for (const name of ['sqlite', 'pg-1', 'pg-2']) {
    const limit = CpuLimit.create(`agentbox-bench-scaleout-${process.pid}-${name}`, Math.round(CPU_PERIOD_MS * 1000))
    if (limit instanceof Error) {
      console.error(`--instance-cpu: ${limit.message}`)
      process.exit(2)
    }
    limits.push(limit)
  }

interface Instance {
  readonly base: string
  readonly proc: Subprocess
  readonly limit: CpuLimit | null
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function launch(dataDir: string, databaseUrl: string, limit: CpuLimit | null): Promise<Instance> {
  const port = await freePort()
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir], {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn', AGENTBOX_DATABASE_URL: databaseUrl },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  children.add(proc)
  limit?.add(proc.pid)
  const base = `http://127.0.0.1:${port}`
  for (const deadline = performance.now() + 30_000; performance.now() < deadline; await Bun.sleep(20))
    if (
      await fetch(`${base}/api/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { base, proc, limit }
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
const sqlite = await launch(sqliteDir, '', limits[0] ?? null)
const sqliteToken = await provision(sqlite)
const pg1 = await launch(pgDirs[0]!, POSTGRES, limits[1] ?? null)
const pgToken = await provision(pg1)
// The second instance reads the same keys (sign-in tokens, sealed secrets) as the first: shared storage in production.
cpSync(join(pgDirs[0]!, 'secrets'), join(pgDirs[1]!, 'secrets'), { recursive: true })
const pg2 = await launch(pgDirs[1]!, POSTGRES, limits[2] ?? null)
const me = await call(pg2.base, 'GET', '/api/auth/me', pgToken)
if (me.email !== 'admin@example.com') throw new Error('the second instance does not accept the first one’s token')

type Workload = 'me' | 'record' | 'mcp'
const WORKLOADS = opts.workloads!.split(',') as Workload[]
if (WORKLOADS.length === 0 || WORKLOADS.some((w) => !['me', 'record', 'mcp'].includes(w))) {
  console.error('--workloads: a comma-separated list of me, record, mcp')
  process.exit(2)
}
interface Config {
  readonly name: string
  readonly instances: readonly Instance[]
  readonly token: string
  /** Each instance's CPU cap for this configuration's runs, or null. */
  readonly cap: number | null
}
const UNCAPPED: Config[] = [
  { name: 'sqlite ×1', instances: [sqlite], token: sqliteToken, cap: null },
  { name: 'postgres ×1', instances: [pg1], token: pgToken, cap: null },
  { name: 'postgres ×2', instances: [pg1, pg2], token: pgToken, cap: null },
]
const CONFIGS: Config[] = INSTANCE_CPU === null ? UNCAPPED : [...UNCAPPED, ...UNCAPPED.map((c) => ({ ...c, name: `${c.name} capped`, cap: INSTANCE_CPU }))]

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

/** CPU seconds of PostgreSQL's processes (the postmaster and its children), or null if it does not run on this machine. */
async function postgresProcesses(): Promise<(() => number) | null> {
  const client = new pg.Client({ connectionString: POSTGRES })
  await client.connect()
  const backend = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid
  let postmaster: number
  try {
    postmaster = Number(readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
  } catch {
    return null
  } finally {
    await client.end()
  }
  return () => {
    let total = 0
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      try {
        const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')
        if (Number(entry) === postmaster || Number(fields[1]) === postmaster) total += (Number(fields[11]) + Number(fields[12])) / 100
      } catch {
        // exited in between
      }
    }
    return total
  }
}

/** The group commit's batch statements so far (pg_stat_statements), or null when the server does not collect them. */
interface BatchStats {
  readonly calls: number
  readonly rows: number
  readonly planMs: number
  readonly execMs: number
}
const statsClient = new pg.Client({ connectionString: POSTGRES })
await statsClient.connect()
const collectsStatements = await statsClient.query('create extension if not exists pg_stat_statements').then(
  () =>
    statsClient.query('select 1 from pg_stat_statements limit 1').then(
      () => true,
      () => false,
    ),
  () => false,
)
async function batchStats(): Promise<BatchStats | null> {
  if (!collectsStatements) return null
  const { rows } = await statsClient.query<{ calls: string; rows: string; plan: number; exec: number }>(
    `select coalesce(sum(calls), 0) as calls, coalesce(sum(rows), 0) as rows, coalesce(sum(total_plan_time), 0) as plan,
       coalesce(sum(total_exec_time), 0) as exec
     from pg_stat_statements where query like 'with inserted as (%insert into interactions%'`,
  )
  const row = rows[0]!
  return { calls: Number(row.calls), rows: Number(row.rows), planMs: Number(row.plan), execMs: Number(row.exec) }
}

/** The machine's idle CPU seconds (idle + iowait, all cores), from /proc/stat. */
function idleSeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/)
  return (Number(fields[4]) + Number(fields[5])) / 100
}

/** This process's CPU seconds (the load generator). */
const ownSeconds = () => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}

/** C loops for D seconds, spread over `bases` as --balance says; answers requests per second. */
async function load(workload: Workload, bases: readonly string[], token: string): Promise<number> {
  let done = 0
  let next = 0
  const inFlight = bases.map(() => 0)
  /** The instance with the fewest requests in flight; ties go to the next in turn. */
  const leastBusy = () => {
    let best = next++ % bases.length
    for (let i = 0; i < bases.length; i++) if (inFlight[i]! < inFlight[best]!) best = i
    return best
  }
  let failed: string | null = null
  const end = performance.now() + DURATION * 1000
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, loop) => {
      while (performance.now() < end && failed === null) {
        const index = BALANCE === 'connection' ? loop % bases.length : BALANCE === 'request' ? next++ % bases.length : leastBusy()
        const base = bases[index]!
        inFlight[index]!++
        const response = await fetch(request(workload, base, token))
        const text = await response.text()
        inFlight[index]!--
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
for (const config of UNCAPPED)
  for (const workload of WORKLOADS) for (const { base } of config.instances) for (let i = 0; i < 200; i++) await fetch(request(workload, base, config.token))

const postgresSeconds = await postgresProcesses()
/** Per workload and configuration, one entry per round. */
interface Run {
  readonly rps: number
  /** Instance CPU (all its instances) per request, µs. */
  readonly cpuPerRequest: number
  /** CPU each instance used, in cores (CPU seconds per second). */
  readonly instanceCores: number[]
  /** Share of the cgroup periods in which the instances were throttled (capped runs), 0–1. */
  readonly throttled: number | null
  readonly postgresCores: number | null
  readonly loadGeneratorCores: number
  readonly idleCores: number
  /** What is left of the machine's cores: other processes (other users of a shared machine, the kernel). */
  readonly otherCores: number | null
  /** PostgreSQL runs of record: batches, and per batch its rows and the server's planning and execution ms. */
  readonly batches: { count: number; rows: number; planMs: number; execMs: number } | null
}
const runs = new Map<string, Run[]>()
const round2 = (x: number) => Math.round(x * 100) / 100
const loadBefore = loadavg()[0]!
for (let round = 0; round < ROUNDS; round++) {
  for (const workload of WORKLOADS) {
    const order = CONFIGS.map((_, i) => CONFIGS[(i + round) % CONFIGS.length]!)
    for (const config of order) {
      for (const instance of config.instances) instance.limit?.set(config.cap)
      const procs = config.instances.map((i) => i.proc)
      const cpuBefore = procs.map((p) => cpuSeconds(p.pid))
      const throttledBefore = config.instances.map((i) => i.limit?.throttling() ?? { periods: 0, throttled: 0 })
      const batchesBefore = workload === 'record' && config.name.startsWith('postgres') ? await batchStats() : null
      const [pgBefore, ownBefore, idleBefore] = [postgresSeconds?.() ?? 0, ownSeconds(), idleSeconds()]
      const rps = await load(
        workload,
        config.instances.map((i) => i.base),
        config.token,
      )
      const instanceCores = procs.map((p, i) => (cpuSeconds(p.pid) - cpuBefore[i]!) / DURATION)
      const throttledAfter = config.instances.map((i) => i.limit?.throttling() ?? { periods: 0, throttled: 0 })
      const periods = throttledAfter.reduce((sum, t, i) => sum + t.periods - throttledBefore[i]!.periods, 0)
      const throttled = throttledAfter.reduce((sum, t, i) => sum + t.throttled - throttledBefore[i]!.throttled, 0)
      const run: Run = {
        rps,
        cpuPerRequest: (instanceCores.reduce((a, b) => a + b, 0) / rps) * 1e6,
        instanceCores,
        throttled: config.cap === null || periods === 0 ? null : throttled / periods,
        postgresCores: postgresSeconds === null ? null : (postgresSeconds() - pgBefore) / DURATION,
        loadGeneratorCores: (ownSeconds() - ownBefore) / DURATION,
        idleCores: (idleSeconds() - idleBefore) / DURATION,
        otherCores: null,
        batches: null,
      }
      const batchesAfter = batchesBefore === null ? null : await batchStats()
      if (batchesBefore !== null && batchesAfter !== null && batchesAfter.calls > batchesBefore.calls) {
        const count = batchesAfter.calls - batchesBefore.calls
        Object.assign(run, {
          batches: {
            count,
            rows: (rps * DURATION) / count,
            planMs: (batchesAfter.planMs - batchesBefore.planMs) / count,
            execMs: (batchesAfter.execMs - batchesBefore.execMs) / count,
          },
        })
      }
      if (run.postgresCores !== null)
        Object.assign(run, {
          otherCores: Math.max(0, cpus().length - run.idleCores - run.postgresCores - run.loadGeneratorCores - instanceCores.reduce((a, b) => a + b, 0)),
        })
      const key = `${workload} ${config.name}`
      runs.set(key, [...(runs.get(key) ?? []), run])
      console.log(
        `round ${round + 1} ${key}: ${Math.round(rps)} req/s, ${Math.round(run.cpuPerRequest)} µs instance CPU per request; cores: instances ${instanceCores.map(round2).join(' + ')}` +
          `${run.throttled === null ? '' : ` (cap ${config.cap}, throttled in ${Math.round(run.throttled * 100)} % of periods)`}, PostgreSQL ${run.postgresCores === null ? '?' : round2(run.postgresCores)}, load generator ${round2(run.loadGeneratorCores)}, other processes ${run.otherCores === null ? '?' : round2(run.otherCores)}, idle ${round2(run.idleCores)}` +
          (run.batches === null
            ? ''
            : `; ${run.batches.count} batches of ${Math.round(run.batches.rows)} rows, ${round2(run.batches.planMs)} ms planning + ${round2(run.batches.execMs)} ms execution each`),
      )
    }
  }
  for (const limit of limits) limit.set(null)
}

const result: Record<string, unknown> = {
  machine: `${process.platform} ${process.arch}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'})`,
  date: new Date().toISOString(),
  load_average_before: Math.round(loadBefore * 100) / 100,
  rounds: ROUNDS,
  duration_s: DURATION,
  concurrency: CONCURRENCY,
  instance_cpu: INSTANCE_CPU,
  cpu_period_ms: CPU_PERIOD_MS,
  balance: BALANCE,
}
const rows: string[] = [
  '| request | configuration | req/s | instance CPU µs/req | instance cores | throttled | PostgreSQL cores | load generator cores | other processes’ cores | idle cores | rows per batch | batch plan + exec ms |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
]
const ratios: string[] = []
for (const workload of WORKLOADS) {
  const configs: Record<string, unknown> = {}
  const rpsOf = (config: string) => median(runs.get(`${workload} ${config}`)!.map((r) => r.rps))
  for (const config of CONFIGS) {
    const list = runs.get(`${workload} ${config.name}`)!
    const m = (f: (r: Run) => number | null) => (list.some((r) => f(r) === null) ? null : round2(median(list.map((r) => f(r)!))))
    const entry = {
      rps: Math.round(rpsOf(config.name)),
      instance_cpu_us_per_request: Math.round(m((r) => r.cpuPerRequest)!),
      instance_cores: config.instances.map((_, i) => m((r) => r.instanceCores[i]!)),
      throttled: m((r) => r.throttled),
      postgres_cores: m((r) => r.postgresCores),
      load_generator_cores: m((r) => r.loadGeneratorCores),
      other_cores: m((r) => r.otherCores),
      idle_cores: m((r) => r.idleCores),
      rows_per_batch: m((r) => r.batches?.rows ?? null),
      batch_plan_ms: m((r) => r.batches?.planMs ?? null),
      batch_exec_ms: m((r) => r.batches?.execMs ?? null),
    }
    configs[config.name] = entry
    rows.push(
      `| ${workload} | ${config.name} | ${entry.rps} | ${entry.instance_cpu_us_per_request} | ${entry.instance_cores.join(' + ')} | ${entry.throttled === null ? '' : `${Math.round(entry.throttled * 100)} %`} | ${entry.postgres_cores ?? '?'} | ${entry.load_generator_cores} | ${entry.other_cores ?? '?'} | ${entry.idle_cores} | ${entry.rows_per_batch === null ? '' : Math.round(entry.rows_per_batch)} | ${entry.batch_plan_ms === null ? '' : `${entry.batch_plan_ms} + ${entry.batch_exec_ms}`} |`,
    )
  }
  const ratio = (a: string, b: string) => round2(rpsOf(a) / rpsOf(b))
  const entryRatios: Record<string, number> = {
    postgres_vs_sqlite: ratio('postgres ×1', 'sqlite ×1'),
    two_vs_one: ratio('postgres ×2', 'postgres ×1'),
  }
  if (INSTANCE_CPU !== null) {
    entryRatios.postgres_vs_sqlite_capped = ratio('postgres ×1 capped', 'sqlite ×1 capped')
    entryRatios.two_vs_one_capped = ratio('postgres ×2 capped', 'postgres ×1 capped')
  }
  ratios.push(
    `${workload}: ${Object.entries(entryRatios)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  )
  result[workload] = { ...configs, ratios: entryRatios }
}
console.log(rows.join('\n'))
console.log(ratios.join('\n'))
console.log(JSON.stringify(result, null, 2))
if (opts.json) writeFileSync(opts.json, JSON.stringify(result, null, 2))
await statsClient.end()
// Stop the instances and wait for them, so that their cgroups are empty when the exit handler removes them.
for (const child of children) child.kill('SIGKILL')
await Promise.all([...children].map((child) => child.exited))
process.exit(0)
