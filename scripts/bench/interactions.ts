// Interactions benchmark: POST /api/interaction/record-mcp-tool against a bare Bun.serve + bun:sqlite insert of the same
// row, POST /api/interaction/summary over 1,000,000 interactions against the naive GROUP BY over the raw rows, and
// GET /api/interactions (the history) over the same rows against the naive sorted scan (interaction-history.ts).
//
//   bun scripts/bench/interactions.ts [--rounds 3] [--duration 5] [--warmup 2] [--connections 50]
//                                     [--rows 1000000] [--users 50] [--titles 20] [--reps 15] [--naive-reps 5]
//                                     [--skip-record] [--skip-summary] [--skip-history] [--json FILE]
//
// Method (docs/benchmarks.md, "Common method"): servers pinned to CPU 0, the load generator and this script to CPU 1;
// record configurations interleaved and rotated per round, fresh processes and data dirs per round, medians; every ratio
// is taken against a baseline measured in the same run. The naive summaries run in this process on the same database file.
import type { SqliteHandle } from '../../src/platform/db/database.ts'
import { Database as Sqlite } from 'bun:sqlite'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Subprocess } from 'bun'
import { Kysely, type CompiledQuery } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import { pruneInteractions } from '../../src/modules/interactions/retention.ts'
import { SummaryService } from '../../src/modules/interactions/summary.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { openDatabase } from '../../src/platform/db/database.ts'
import { rollUpInteractions } from '../../src/platform/db/insights-rollups.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import type { Database } from '../../src/platform/db/schema.ts'
import { queryPlan } from '../../src/platform/db/query-plan.ts'
import { historyBench } from './interaction-history.ts'
import { benchLicense, intOption } from './lib.ts'

const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery staple' }
const MEMBER_PASSWORD = 'a member passphrase'
const DAY_MS = 86_400_000
const CLIENT_SOURCES = ['agentbox-copilot', 'claude-code', 'cursor', 'agentbox-api'] as const

/** The record every load request sends: the spec's fields, about 330 bytes. */
const RECORD_BODY = JSON.stringify({
  tool_name: 'search_issues',
  mcp_server_name: 'Jira',
  result: { content: [{ type: 'text', text: 'Found 3 open issues: ABC-1, ABC-2, ABC-3' }], isError: false },
  user_input: 'Which issues are open in ABC?',
  arguments: { jql: 'project = ABC AND status = Open', limit: 20 },
  duration_seconds: 0.42,
  conversation_id: 'thread-0192',
  client_source: 'agentbox-copilot',
})

// ------------------------------------------------------------------------------------------------ child process modes

/** `--bare-server PORT DB USER_ID`: the baseline. Same file layout, pragmas and table, no framework, auth or rollup. */
async function bareServer(port: number, dbPath: string, userId: string): Promise<void> {
  const handle = openDatabase({ kind: 'sqlite', path: dbPath }) as SqliteHandle
  const insert = handle.writer.query(
    `INSERT INTO interactions (id, user_id, kind, api_title, action, is_error, duration_seconds, conversation_id, client_source, user_input, arguments, result, created_at)
     VALUES (?, ?, 'mcp_tool', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(request) {
      const body = (await request.json()) as Record<string, any>
      const id = Bun.randomUUIDv7()
      const isError = typeof body.result === 'object' && body.result !== null && body.result.isError === true
      insert.run(
        id,
        userId,
        body.mcp_server_name,
        body.tool_name,
        isError ? 1 : 0,
        body.duration_seconds ?? null,
        body.conversation_id ?? null,
        body.client_source ?? null,
        body.user_input ?? null,
        body.arguments === undefined ? null : JSON.stringify(body.arguments),
        body.result === undefined ? null : JSON.stringify(body.result),
        new Date().toISOString(),
      )
      return Response.json({ id, recorded: true })
    },
  })
}

/** `--post-load URL CONCURRENCY SECONDS AUTH`: closed-loop POST load when wrk is missing; one JSON line out. */
async function postLoad(url: string, concurrency: number, seconds: number, authorization: string): Promise<void> {
  const latencies: number[] = []
  let non2xx = 0
  let errors = 0
  const started = performance.now()
  const end = started + seconds * 1000
  const headers = { 'content-type': 'application/json', authorization }
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now()
      try {
        const response = await fetch(url, { method: 'POST', headers, body: RECORD_BODY, signal: AbortSignal.timeout(5000) })
        await response.arrayBuffer()
        if (response.status < 200 || response.status > 299) non2xx++
        latencies.push(performance.now() - t0)
      } catch {
        errors++
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, loop))
  latencies.sort((a, b) => a - b)
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? null
  console.log(
    JSON.stringify({ requests: latencies.length, seconds: (performance.now() - started) / 1000, non2xx, errors, p50_ms: pick(0.5), p99_ms: pick(0.99) }),
  )
}

if (process.argv[2] === '--bare-server') {
  await bareServer(Number(process.argv[3]), process.argv[4]!, process.argv[5]!)
} else if (process.argv[2] === '--post-load') {
  await postLoad(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]), process.argv[6]!)
  process.exit(0)
} else {
  await main()
}

// ------------------------------------------------------------------------------------------------------------ driver

async function main(): Promise<void> {
  const { values: opts } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      rows: { type: 'string', default: '1000000' },
      users: { type: 'string', default: '50' },
      titles: { type: 'string', default: '20' },
      reps: { type: 'string', default: '15' },
      'naive-reps': { type: 'string', default: '5' },
      'skip-record': { type: 'boolean', default: false },
      'skip-summary': { type: 'boolean', default: false },
      'skip-history': { type: 'boolean', default: false },
      json: { type: 'string' },
    },
  })
  const ROUNDS = intOption(opts.rounds!, '--rounds')
  const DURATION = intOption(opts.duration!, '--duration')
  const WARMUP = intOption(opts.warmup!, '--warmup')
  const CONNECTIONS = intOption(opts.connections!, '--connections')
  const ROWS = intOption(opts.rows!, '--rows')
  const USERS = intOption(opts.users!, '--users')
  const TITLES = intOption(opts.titles!, '--titles')
  const REPS = intOption(opts.reps!, '--reps')
  const NAIVE_REPS = intOption(opts['naive-reps']!, '--naive-reps')

  const TASKSET = Bun.which('taskset')
  const WRK = Bun.which('wrk')
  if (!WRK) console.error('hint: wrk is not installed (apt-get install -y wrk); using a Bun fetch loop, which compresses ratios towards 1.')
  const pinned = (cpu: number, cmd: string[]) => (TASKSET ? [TASKSET, '-c', String(cpu), ...cmd] : cmd)
  if (TASKSET) Bun.spawnSync([TASKSET, '-a', '-p', '-c', '1', String(process.pid)], { stdout: 'ignore', stderr: 'ignore' })
  const CLK_TCK = Number(new TextDecoder().decode(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout).trim()) || 100

  const median = (xs: number[]) => {
    const s = xs.filter(Number.isFinite).sort((a, b) => a - b)
    if (s.length === 0) return NaN
    const mid = Math.floor(s.length / 2)
    return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
  }
  const fmt = (n: number, digits = 0) =>
    Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–'

  const children = new Set<Subprocess>()
  const killAll = () => {
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

  const freePort = () => {
    const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
    const port = probe.port!
    probe.stop(true)
    return port
  }
  const waitFor = async (url: string, timeoutMs: number, init?: RequestInit) => {
    const deadline = performance.now() + timeoutMs
    while (performance.now() < deadline) {
      try {
        const response = await fetch(url, init)
        await response.arrayBuffer()
        if (response.status < 500) return
      } catch {}
      await Bun.sleep(5)
    }
    throw new Error(`${url} not ready after ${timeoutMs} ms`)
  }
  const stop = async (child: Subprocess) => {
    child.kill('SIGTERM')
    if (!(await Promise.race([child.exited.then(() => true), Bun.sleep(12_000).then(() => false)]))) {
      child.kill('SIGKILL')
      await child.exited
    }
    children.delete(child)
  }
  const cpuTicks = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12])
  }
  const procStatus = (pid: number, key: 'VmRSS' | 'VmHWM') => {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${key}:`))
    return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN
  }
  const call = async (base: string, method: string, path: string, token?: string, body?: unknown) => {
    const headers: Record<string, string> = {}
    if (token) headers.authorization = `Bearer ${token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    })
    const text = await response.text()
    return { status: response.status, json: text ? JSON.parse(text) : null, bytes: text.length }
  }
  const expectOk = async (base: string, method: string, path: string, token: string | undefined, body: unknown, want = 200) => {
    const res = await call(base, method, path, token, body)
    if (res.status !== want) throw new Error(`${method} ${path}: expected ${want}, got ${res.status} ${JSON.stringify(res.json)}`)
    return res.json
  }

  const benchRoot = mkdtempSync(join(tmpdir(), 'agentbox-bench-interactions-'))
  const checks: { name: string; pass: boolean; detail: string }[] = []
  const check = (name: string, pass: boolean, detail = '') => {
    checks.push({ name, pass, detail })
    console.log(`  ${pass ? 'PASS' : 'FAIL'} ${name}${detail ? ` (${detail})` : ''}`)
  }

  interface Agentbox {
    proc: Subprocess
    base: string
    dir: string
    adminJwt: string
  }

  /** A fresh (or existing, if `provisioned`) data dir served by `bun src/main.ts serve` on CPU 0. */
  const startAgentbox = async (dir: string, logLevel: 'warn' | 'info', provisioned = false): Promise<Agentbox> => {
    const port = freePort()
    mkdirSync(dir, { recursive: true })
    const proc = Bun.spawn(
      pinned(0, [process.execPath, join(ROOT, 'src', 'main.ts'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, 'data')]),
      {
        cwd: ROOT,
        env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: logLevel },
        stdout: Bun.file(join(dir, `stdout-${Date.now()}.log`)),
        stderr: 'inherit',
      },
    )
    children.add(proc)
    const base = `http://127.0.0.1:${port}`
    await waitFor(base + '/api/health/live', 30_000)
    if (!provisioned) {
      await expectOk(base, 'POST', '/api/tenant/setup', SETUP_TOKEN, {
        license_token: benchLicense({ org: 'Bench', seats: USERS + 10 }),
        admin_email: ADMIN.email,
        admin_name: ADMIN.name,
        admin_password: ADMIN.password,
      })
    }
    const { access_token: adminJwt } = await expectOk(base, 'POST', '/api/auth/login', undefined, { email: ADMIN.email, password: ADMIN.password })
    return { proc, base, dir, adminJwt }
  }

  const machine = () => {
    const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
    const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0)
    return {
      date: new Date().toISOString(),
      nproc: String(availableParallelism()),
      cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown',
      memory: `${(memKb / 1024 / 1024).toFixed(1)} GiB`,
      kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(),
      bun: Bun.version,
      sqlite: (new Sqlite(':memory:').query('SELECT sqlite_version() AS v').get() as { v: string }).v,
      loadgen: WRK
        ? new TextDecoder()
            .decode(Bun.spawnSync([WRK, '--version']).stdout)
            .split('\n')[0]!
            .split(' Copyright')[0]!
        : 'Bun fetch loop',
      pinning: TASKSET ? 'servers on CPU 0, load generator and bench driver on CPU 1 (taskset)' : 'none (taskset not found)',
    }
  }

  const report: string[] = []
  const jsonOut: Record<string, unknown> = { machine: machine() }

  // ---------------------------------------------------------------------------------------------- record throughput

  interface LoadResult {
    rps: number
    requests: number
    p50: number
    p99: number
    bad: number
  }

  const bounded = async (cmd: string[], seconds: number) => {
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
  const toMs = (value: string) => {
    const m = /^([\d.]+)(us|ms|s)$/.exec(value.trim())
    return m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : NaN
  }
  const load = async (url: string, authorization: string, seconds: number): Promise<LoadResult> => {
    if (WRK) {
      const script = join(benchRoot, 'post.lua')
      writeFileSync(
        script,
        `wrk.method = "POST"\nwrk.body = ${JSON.stringify(RECORD_BODY)}\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = ${JSON.stringify(authorization)}\n`,
      )
      const out = await bounded(pinned(1, [WRK, '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '5s', '--latency', '-s', script, url]), seconds)
      const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
      return {
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
        requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN),
        p50: toMs(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? ''),
        p99: toMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ''),
        bad: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) + (sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
      }
    }
    const out = await bounded(pinned(1, [process.execPath, import.meta.path, '--post-load', url, String(CONNECTIONS), String(seconds), authorization]), seconds)
    const r = JSON.parse(out.trim().split('\n').at(-1)!)
    return { rps: r.requests / r.seconds, requests: r.requests, p50: r.p50_ms, p99: r.p99_ms, bad: r.non2xx + r.errors }
  }

  type RecordKey = 'bare' | 'agentbox' | 'agentbox-info' | 'agentbox-no-history'
  const RECORD_CONFIGS: { key: RecordKey; label: string }[] = [
    { key: 'bare', label: 'bare `Bun.serve`: `request.json()` + one prepared INSERT (bun:sqlite), same table, indexes and pragmas, no rollup' },
    { key: 'agentbox', label: 'agentbox, JWT, log level warn' },
    { key: 'agentbox-info', label: 'agentbox, JWT, log level info (default: one access-log line per request)' },
    { key: 'agentbox-no-history', label: "agentbox, JWT, warn, migration 0013's indexes undone (the history indexes' write cost)" },
  ]
  interface RecordSample extends LoadResult {
    round: number
    cpuShare: number
  }
  const recordSamples = new Map<RecordKey, RecordSample[]>(RECORD_CONFIGS.map((c) => [c.key, []]))

  /** Rows and rollup agree after a load run: every 2xx is one row, and the triggers counted each one. */
  const checkStore = (dbPath: string, label: string, requests: number, withRollup: boolean) => {
    const db = new Sqlite(dbPath, { readonly: true })
    const rows = (db.query('SELECT count(*) AS n FROM interactions').get() as { n: number }).n
    const rollup = (db.query('SELECT coalesce(sum(n), 0) AS n FROM interaction_daily_usage').get() as { n: number }).n
    db.close()
    check(`[${label}] one row per answered request`, rows >= requests, `${rows} rows, ${requests} requests counted by the load generator`)
    if (withRollup) check(`[${label}] rollup equals the row count after concurrent inserts`, rollup === rows, `rollup ${rollup}, rows ${rows}`)
  }

  const recordRound = async (round: number) => {
    const servers = new Map<RecordKey, { proc: Subprocess; url: string; auth: string; dbPath: string }>()
    // Bare: a database made by our own migrations, one user for the FK, and no rollups (the bare server counts none).
    const bareDir = join(benchRoot, `r${round}-bare`)
    mkdirSync(bareDir, { recursive: true })
    const bareDb = join(bareDir, 'bare.db')
    const handle = openDatabase({ kind: 'sqlite', path: bareDb }) as SqliteHandle
    await migrateToLatest(handle, bareDir, Date.now())
    const userId = Bun.randomUUIDv7()
    handle.writer.run(
      "INSERT INTO users (id, kind, email, name, role, active, session_version, created_at, updated_at) VALUES (?, 'person', 'b@example.com', 'b', 'admin', 1, 0, '', '')",
      [userId],
    )
    await handle.close()
    const barePort = freePort()
    const bare = Bun.spawn(pinned(0, [process.execPath, import.meta.path, '--bare-server', String(barePort), bareDb, userId]), {
      stdout: 'ignore',
      stderr: 'inherit',
    })
    children.add(bare)
    const bareUrl = `http://127.0.0.1:${barePort}/api/interaction/record-mcp-tool`
    await waitFor(bareUrl, 10_000, { method: 'POST', body: RECORD_BODY })

    // (Since migration 0028 the summary's rollups are counted by the group commit with the insights', not by triggers: the
    // variant that dropped the triggers to price the rollup is gone; scripts/bench/execute.ts prices the record.)
    for (const key of ['agentbox', 'agentbox-info', 'agentbox-no-history'] as const) {
      const server = await startAgentbox(join(benchRoot, `r${round}-${key}`), key === 'agentbox-info' ? 'info' : 'warn')
      const dbPath = join(server.dir, 'data', 'agentbox.db')
      if (key === 'agentbox-no-history') {
        const db = new Sqlite(dbPath)
        db.run('PRAGMA busy_timeout = 5000')
        for (const index of ['interactions_time', 'interactions_conversation', 'interactions_user_time']) db.run(`DROP INDEX ${index}`)
        db.run('CREATE INDEX interactions_user_time ON interactions (user_id, created_at, api_title)')
        db.close()
      }
      servers.set(key, { proc: server.proc, url: server.base + '/api/interaction/record-mcp-tool', auth: `Bearer ${server.adminJwt}`, dbPath })
    }
    // The bare server ignores the header; it is sent anyway so the request bytes match.
    servers.set('bare', { proc: bare, url: bareUrl, auth: servers.get('agentbox')!.auth, dbPath: bareDb })

    const order = RECORD_CONFIGS.map((_, i) => RECORD_CONFIGS[(i + round) % RECORD_CONFIGS.length]!)
    for (const config of order) {
      const s = servers.get(config.key)!
      const sanity = await fetch(s.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: s.auth }, body: RECORD_BODY })
      const sanityBody = (await sanity.json()) as { recorded?: boolean }
      if (sanity.status !== 200 || sanityBody.recorded !== true) throw new Error(`${config.key}: sanity request answered ${sanity.status}`)
      await load(s.url, s.auth, WARMUP)
      const t0 = performance.now()
      const ticks0 = cpuTicks(s.proc.pid)
      const result = await load(s.url, s.auth, DURATION)
      const cpuShare = (cpuTicks(s.proc.pid) - ticks0) / CLK_TCK / ((performance.now() - t0) / 1000)
      recordSamples.get(config.key)!.push({ ...result, round, cpuShare })
      console.log(
        `  r${round} ${config.key.padEnd(19)} ${fmt(result.rps).padStart(7)} req/s  p50 ${fmt(result.p50, 2)} ms  p99 ${fmt(result.p99, 2)} ms  server CPU ${fmt(cpuShare * 100)}%  bad ${result.bad}`,
      )
    }
    for (const [key, s] of servers) {
      await stop(s.proc)
      const requests = recordSamples.get(key)!.at(-1)!.requests
      checkStore(s.dbPath, `${key} r${round}`, requests, key === 'agentbox' || key === 'agentbox-info' || key === 'agentbox-no-history')
    }
  }

  const recordReport = () => {
    const bareByRound = new Map(recordSamples.get('bare')!.map((s) => [s.round, s]))
    const lines = [
      `### record-mcp-tool throughput (${ROUNDS} rounds × ${DURATION} s after ${WARMUP} s warm-up, ${CONNECTIONS} connections, ${RECORD_BODY.length}-byte body; medians)`,
      '',
      '| config | req/s | ratio vs bare (same round) | CPU-normalised ratio | server CPU µs/req | server CPU % | p50 ms | p99 ms | non-2xx + socket errors |',
      '|---|---|---|---|---|---|---|---|---|',
    ]
    const summary: Record<string, unknown> = {}
    for (const config of RECORD_CONFIGS) {
      const list = recordSamples.get(config.key)!
      const ratios = list.map((s) => s.rps / (bareByRound.get(s.round)?.rps ?? NaN))
      const cpuRatios = list.map((s) => s.rps / s.cpuShare / ((bareByRound.get(s.round)?.rps ?? NaN) / (bareByRound.get(s.round)?.cpuShare ?? NaN)))
      summary[config.key] = { rps: median(list.map((s) => s.rps)), ratio: median(ratios), cpuRatio: median(cpuRatios) }
      lines.push(
        `| ${config.label} | ${fmt(median(list.map((s) => s.rps)))} | **${fmt(median(ratios), 2)}** | ${fmt(median(cpuRatios), 2)} | ${fmt(median(list.map((s) => (1e6 * s.cpuShare) / s.rps)), 1)} | ` +
          `${fmt(median(list.map((s) => s.cpuShare * 100)))} | ${fmt(median(list.map((s) => s.p50)), 2)} | ${fmt(median(list.map((s) => s.p99)), 2)} | ${list.reduce((a, s) => a + s.bad, 0)} |`,
      )
    }
    const withAll = recordSamples.get('agentbox')!
    /** What `key` (agentbox warn with one thing undone) saves, per round, median: the share of req/s and the server CPU µs per request. */
    const costAgainst = (key: RecordKey) => {
      const without = new Map(recordSamples.get(key)!.map((s) => [s.round, s]))
      return {
        share: median(withAll.map((s) => 1 - s.rps / (without.get(s.round)?.rps ?? NaN))),
        cpuUs: median(withAll.map((s) => (1e6 * s.cpuShare) / s.rps - (1e6 * (without.get(s.round)?.cpuShare ?? NaN)) / (without.get(s.round)?.rps ?? NaN))),
      }
    }
    const { share: historyCost, cpuUs: historyCpu } = costAgainst('agentbox-no-history')
    lines.push(
      '',
      `History indexes' write cost (agentbox warn vs the same with migration 0013 undone): ${fmt(historyCost * 100, 1)} % of req/s, ${fmt(historyCpu, 1)} µs of server CPU per request.`,
    )
    jsonOut.record = { summary, samples: Object.fromEntries(recordSamples), historyCost, historyCpuUs: historyCpu }
    return lines
  }

  // ------------------------------------------------------------------------------------------------------ summaries

  const summaryBench = async () => {
    console.log(`summary: provisioning ${USERS} members, then loading ${ROWS.toLocaleString('en-US')} interactions`)
    const dir = join(benchRoot, 'summary')
    let server = await startAgentbox(dir, 'warn')
    const members: { id: string; email: string }[] = []
    for (let i = 0; i < USERS; i++) {
      const email = `member${i}@example.com`
      const user = await expectOk(
        server.base,
        'POST',
        '/api/users',
        server.adminJwt,
        { email, name: `Member ${i}`, password: MEMBER_PASSWORD, role: 'member' },
        201,
      )
      members.push({ id: user.id, email })
    }
    const adminId = (await expectOk(server.base, 'GET', '/api/auth/me', server.adminJwt, undefined)).id as string
    await stop(server.proc)

    // Load through bun:sqlite, in time order, each chunk's rows counted into every rollup as the group commit counts a batch.
    const dbPath = join(dir, 'data', 'agentbox.db')
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
    const firstDay = today - 365 * DAY_MS
    const loadStarted = performance.now()
    {
      const db = new Sqlite(dbPath)
      db.run('PRAGMA synchronous = OFF')
      const insert = db.query(
        `INSERT INTO interactions (id, user_id, kind, api_title, action, is_error, duration_seconds, conversation_id, client_source, user_input, arguments, result, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 0.3, ?, ?, 'find it', '{"q":"x"}', '{"content":[]}', ?)`,
      )
      const chunk = 50_000
      const kysely = new Kysely<Database>({ dialect: new BunSqliteDialect({ database: db }) })
      const lastRowid = () => Number((db.query('SELECT coalesce(max(rowid), 0) AS id FROM interactions').get() as { id: number }).id)
      for (let from = 0; from < ROWS; from += chunk) {
        const first = lastRowid() + 1
        db.transaction(() => {
          for (let i = from; i < Math.min(ROWS, from + chunk); i++) {
            const at = firstDay + Math.floor((i / ROWS) * 365 * DAY_MS)
            const user = members[(i * 7919 + (i >> 7)) % USERS]!.id
            insert.run(
              Bun.randomUUIDv7(),
              user,
              i % 5 === 0 ? 'api_action' : 'mcp_tool',
              `App ${String((i * 31 + (i >> 5)) % TITLES).padStart(2, '0')}`,
              `tool_${String((i * 13 + (i >> 3)) % 200).padStart(3, '0')}`,
              i % 50 === 0 ? 1 : 0,
              // The history's filters: conversations of a few calls (one user's), four client sources.
              `thread-${user.slice(-6)}-${i >> 10}`,
              CLIENT_SOURCES[(i >> 2) % CLIENT_SOURCES.length]!,
              new Date(at).toISOString(),
            )
          }
        })()
        await kysely.transaction().execute((trx) => rollUpInteractions(trx, { kind: 'sqlite', first, last: lastRowid() }))
      }
      db.run('PRAGMA optimize')
      db.close()
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000
    console.log(`  loaded in ${fmt(loadSeconds, 1)} s`)

    server = await startAgentbox(dir, 'warn', true)
    const member = members[0]!
    const { access_token: memberJwt } = await expectOk(server.base, 'POST', '/api/auth/login', undefined, { email: member.email, password: MEMBER_PASSWORD })
    const reader = new Sqlite(dbPath, { readonly: true })
    const rollupRows = (reader.query('SELECT count(*) AS n FROM interaction_daily_usage').get() as { n: number }).n
    const rows = (reader.query('SELECT count(*) AS n FROM interactions').get() as { n: number }).n
    const memberRows = (reader.query('SELECT count(*) AS n FROM interactions WHERE user_id = ?').get(member.id) as { n: number }).n

    // The SQL the service runs, captured through Kysely's log on a read-only connection, and its query plan.
    const captured: CompiledQuery[] = []
    const kysely = new Kysely<Database>({ dialect: new BunSqliteDialect({ database: reader }), log: (event) => void captured.push(event.query) })
    const service = new SummaryService(kysely, { now: () => today })
    const planOf = async (principal: Principal) => {
      captured.length = 0
      await service.summarise(principal, { time_frame: 'weekly', start_date: new Date(firstDay).toISOString(), end_date: new Date(today - 1).toISOString() })
      const query = captured.at(-1)!
      return queryPlan(reader, query.sql, query.parameters)
    }
    const principal = (userId: string, role: 'admin' | 'member'): Principal => ({
      userId,
      role,
      email: '',
      name: '',
      kind: 'person',
      via: 'access_token',
      tokenId: null,
    })
    const adminPlan = await planOf(principal(adminId, 'admin'))
    const memberPlan = await planOf(principal(member.id, 'member'))
    check(
      'admin summary reads the rollup by its primary key, not the raw rows',
      adminPlan.some((p) => /interaction_daily_usage USING PRIMARY KEY/.test(p)) && !adminPlan.some((p) => / interactions /.test(` ${p} `)),
      adminPlan.join(' | '),
    )
    check(
      "member summary reads the member's rollup by its primary key, not the raw rows",
      memberPlan.some((p) => /interaction_user_daily_usage USING PRIMARY KEY \(user_id=\?/.test(p)) && !memberPlan.some((p) => / interactions /.test(` ${p} `)),
      memberPlan.join(' | '),
    )

    const fullYear = { start_date: new Date(firstDay).toISOString(), end_date: new Date(today - 1).toISOString() }
    const last30 = { start_date: new Date(today - 30 * DAY_MS).toISOString(), end_date: new Date(today - 1).toISOString() }
    const BUCKET_SQL = { daily: 'substr(created_at, 1, 10)', weekly: "strftime('%G-W%V', created_at)", monthly: 'substr(created_at, 1, 7)' } as const
    type Frame = keyof typeof BUCKET_SQL
    interface SummaryConfig {
      key: string
      who: 'admin' | 'member'
      frame: Frame
      range: { start_date: string; end_date: string }
      label: string
    }
    const configs: SummaryConfig[] = [
      ...(['daily', 'weekly', 'monthly'] as const).map(
        (frame): SummaryConfig => ({ key: `admin-${frame}`, who: 'admin', frame, range: fullYear, label: `admin, full year, ${frame}` }),
      ),
      ...(['daily', 'weekly', 'monthly'] as const).map(
        (frame): SummaryConfig => ({ key: `member-${frame}`, who: 'member', frame, range: fullYear, label: `member, full year, ${frame}` }),
      ),
      { key: 'admin-30d', who: 'admin', frame: 'daily', range: last30, label: 'admin, last 30 days, daily' },
    ]

    /** The naive answer: GROUP BY over the raw rows, NOT INDEXED (no rollup, no per-user index), on the same file. */
    const naive = (config: SummaryConfig) => {
      const scope = config.who === 'member' ? 'AND user_id = ?' : ''
      const sql = `SELECT ${BUCKET_SQL[config.frame]} AS b, api_title, count(*) AS n FROM interactions NOT INDEXED
                   WHERE created_at >= ? AND created_at < ? ${scope} GROUP BY 1, 2`
      const from = new Date(Date.parse(config.range.start_date)).toISOString().slice(0, 10) + 'T00:00:00.000Z'
      const until = new Date(Math.floor(Date.parse(config.range.end_date) / DAY_MS) * DAY_MS + DAY_MS).toISOString()
      const params = config.who === 'member' ? [from, until, member.id] : [from, until]
      return reader.query(sql).all(...params) as { b: string; api_title: string; n: number }[]
    }

    const samplesHwm: number[] = []
    const rssSamples: number[] = []
    const hwmBefore = procStatus(server.proc.pid, 'VmHWM')
    const rssBefore = procStatus(server.proc.pid, 'VmRSS')
    const sampler = setInterval(() => rssSamples.push(procStatus(server.proc.pid, 'VmRSS')), 20)
    const results: { config: SummaryConfig; oursMs: number; naiveMs: number; bytes: number; exact: boolean }[] = []
    for (const config of configs) {
      const token = config.who === 'admin' ? server.adminJwt : memberJwt
      const body = { summary_type: 'api_usage', time_frame: config.frame, ...config.range }
      let last = await call(server.base, 'POST', '/api/interaction/summary', token, body)
      for (let i = 0; i < 2; i++) last = await call(server.base, 'POST', '/api/interaction/summary', token, body)
      const times: number[] = []
      for (let i = 0; i < REPS; i++) {
        const t0 = performance.now()
        last = await call(server.base, 'POST', '/api/interaction/summary', token, body)
        times.push(performance.now() - t0)
      }
      naive(config)
      const naiveTimes: number[] = []
      let naiveRows: ReturnType<typeof naive> = []
      for (let i = 0; i < NAIVE_REPS; i++) {
        const t0 = performance.now()
        naiveRows = naive(config)
        naiveTimes.push(performance.now() - t0)
      }
      // Exact: every naive (bucket, title) count equals ours, and every bucket we return that the naive query lacks is empty.
      const ours = last.json as Record<string, Record<string, number>>
      const expected: Record<string, Record<string, number>> = Object.fromEntries(Object.keys(ours).map((k) => [k, {}]))
      let exact = last.status === 200
      for (const row of naiveRows) {
        if (!expected[row.b]) exact = false
        else expected[row.b]![row.api_title] = row.n
      }
      exact &&= JSON.stringify(expected) === JSON.stringify(ours)
      check(`[${config.key}] exact counts, every bucket present`, exact, `${Object.keys(ours).length} buckets`)
      results.push({ config, oursMs: median(times), naiveMs: median(naiveTimes), bytes: last.bytes, exact })
      console.log(
        `  ${config.key.padEnd(15)} ours ${fmt(median(times), 2)} ms  naive ${fmt(median(naiveTimes), 1)} ms  ×${fmt(median(naiveTimes) / median(times), 0)}`,
      )
    }
    clearInterval(sampler)
    const hwmAfter = procStatus(server.proc.pid, 'VmHWM')
    const history = opts['skip-history']
      ? null
      : await historyBench({
          base: server.base,
          adminJwt: server.adminJwt,
          adminId,
          member: { id: member.id, jwt: memberJwt },
          reader,
          reps: REPS,
          naiveReps: NAIVE_REPS,
          check,
        })
    samplesHwm.push(hwmBefore, hwmAfter)
    const adminYear = results.find((r) => r.config.key === 'admin-daily')!
    // The target is stated for a year of 1,000,000 rows; smaller runs only report the ratio.
    if (ROWS >= 1_000_000)
      check(
        'admin full-year summary ≥ 100× faster than the naive GROUP BY',
        adminYear.naiveMs / adminYear.oursMs >= 100,
        `×${fmt(adminYear.naiveMs / adminYear.oursMs, 0)}`,
      )
    check('peak server memory flat during the summaries (VmHWM grows < 16 MiB)', hwmAfter - hwmBefore < 16, `${fmt(hwmBefore, 1)} → ${fmt(hwmAfter, 1)} MiB`)
    await stop(server.proc)
    reader.close()

    // Retention on the same file: a day later with 365 days kept, the oldest whole day goes, in batches of 500.
    const pruneHandle = openDatabase({ kind: 'sqlite', path: dbPath }) as SqliteHandle
    const pruneStarted = performance.now()
    const pruned = await pruneInteractions(pruneHandle.db, { now: () => today + DAY_MS }, 365)
    const pruneMs = performance.now() - pruneStarted
    const afterRows = (pruneHandle.writer.query('SELECT count(*) AS n FROM interactions').get() as { n: number }).n
    const afterRollup = (pruneHandle.writer.query('SELECT sum(n) AS n FROM interaction_daily_usage').get() as { n: number }).n
    await pruneHandle.close()
    check(
      'retention prune keeps the rollup exact',
      afterRollup === afterRows && pruned.deleted === rows - afterRows && pruned.deleted > 0,
      `${pruned.deleted} rows of days before ${pruned.cutoffDay} deleted in ${fmt(pruneMs)} ms; rollup ${afterRollup} = rows ${afterRows}`,
    )

    const lines = [
      `### Summaries over ${ROWS.toLocaleString('en-US')} interactions (365 days, ${TITLES} titles, ${USERS} members; the member has ${memberRows.toLocaleString('en-US')})`,
      '',
      `Load: ${fmt(loadSeconds, 1)} s through bun:sqlite with the triggers live (rollup: ${rollupRows.toLocaleString('en-US')} rows for ${rows.toLocaleString('en-US')} interactions).`,
      `Ours: HTTP round trip of POST /api/interaction/summary (api_usage, JWT), median of ${REPS} after 3 warm-ups. Naive: the GROUP BY over the raw rows`,
      `(\`FROM interactions NOT INDEXED\`, same bucket expressions, same day range, member filtered by user_id) in the bench process on the same file, median of ${NAIVE_REPS}.`,
      '',
      '| summary | ours ms | naive ms | naive ÷ ours | response bytes | exact |',
      '|---|---|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.config.label} | ${fmt(r.oursMs, 2)} | ${fmt(r.naiveMs, 1)} | **${fmt(r.naiveMs / r.oursMs, 0)}×** | ${fmt(r.bytes)} | ${r.exact ? 'yes' : 'NO'} |`,
      ),
      '',
      `Server memory: VmHWM ${fmt(hwmBefore, 1)} MiB before the summaries, ${fmt(hwmAfter, 1)} MiB after; VmRSS ${fmt(rssBefore, 1)} MiB before, max ${fmt(Math.max(...rssSamples), 1)} MiB while they ran (sampled every 20 ms).`,
      '',
      `Plans — admin: ${adminPlan.join(' → ')}; member: ${memberPlan.join(' → ')}.`,
      '',
      `Retention: pruning the oldest day (${pruned.deleted.toLocaleString('en-US')} rows, ${USERS} users' index ranges, batches of 500) took ${fmt(pruneMs)} ms; rollup still equal to the row count.`,
      ...(history ? ['', ...history.lines] : []),
    ]
    jsonOut.summary = {
      loadSeconds,
      rollupRows,
      rows,
      memberRows,
      results: results.map((r) => ({ key: r.config.key, oursMs: r.oursMs, naiveMs: r.naiveMs, bytes: r.bytes, exact: r.exact })),
      hwmBefore,
      hwmAfter,
      rssBefore,
      rssMax: Math.max(...rssSamples),
      adminPlan,
      memberPlan,
      prune: { ...pruned, ms: pruneMs },
      history: history?.json,
    }
    return lines
  }

  let failed = false
  try {
    if (!opts['skip-record']) {
      console.log(`record-mcp-tool: ${ROUNDS} rounds, ${RECORD_CONFIGS.length} configs, ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections`)
      for (let r = 1; r <= ROUNDS; r++) {
        console.log(`round ${r}/${ROUNDS}`)
        await recordRound(r)
      }
      report.push(...recordReport(), '')
    }
    if (!opts['skip-summary']) report.push(...(await summaryBench()), '')
    report.push('### Correctness', '', ...checks.map((c) => `- ${c.pass ? 'PASS' : 'FAIL'} ${c.name}${c.detail ? ` (${c.detail})` : ''}`), '')
    report.push('### Machine', '', ...Object.entries(machine()).map(([k, v]) => `- ${k}: ${v}`))
    console.log('\n' + report.join('\n'))
    jsonOut.checks = checks
    if (opts.json) writeFileSync(opts.json, JSON.stringify(jsonOut, null, 2))
    failed = checks.some((c) => !c.pass)
  } catch (error) {
    console.error(error)
    failed = true
  } finally {
    killAll()
    rmSync(benchRoot, { recursive: true, force: true })
  }
  process.exit(failed ? 1 : 0)
}
