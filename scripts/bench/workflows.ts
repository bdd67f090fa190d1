// Workflows benchmark (issue 6): engine overhead per step of a linear workflow of agentbox.set steps and per item of a
// map over 1,000 items, each with recording `full` and `disabled`; peak memory during the map run; approval-gate round
// trips (run to waiting_human, resume to succeeded) per second, sequential and with concurrent clients.
//
//   bun scripts/bench/workflows.ts [--rounds 5] [--steps 20] [--items 1000] [--batch-s 2] [--gate-s 2] [--clients 8]
//                                  [--max-minutes 20] [--json FILE]
//
// Method (docs/benchmarks.md, "Common method"): the server is `bun src/main.ts serve` on a fresh data dir per round
// (real SQLite file, WAL, log level warn), pinned to CPU 0; this script, the HTTP client, on CPU 1. Everything goes
// through the real HTTP API over loopback. Per round the two recording modes run in rotated order (set with
// PUT /api/org/settings; runs pin it at start); within a mode, two pairs in rotated order: the 1-step and the N-step
// linear workflow, and the same map workflow over 1 item and over M items. The two shapes of a pair run in
// alternating blocks of ~150 ms (so both see the same host noise) for 2 × --batch-s, then
//
//   per step  = (median run of the N-step workflow − median run of the 1-step workflow) / (N − 1)
//   per item  = (median run of the map over M items − median run of the map over 1 item) / (M − 1)
//
// in the client's wall time and in the server's CPU time (summed over its threads from /proc/PID/task/*/schedstat,
// ns resolution, per block between two quiet points; much less sensitive to host noise). Baselines measured in the
// same rounds, so the figures read as ratios:
//   - the 1-step workflow's whole request (HTTP, auth, load the live version, run row, engine, response);
//   - engine only: WorkflowExecutor with a stub host in this process (no HTTP, no database), same definitions, CPU time;
//   - plain JS: the same transformations as a JS function (object copy + one computed field per step / item).
// Peak memory: the server's VmHWM is reset (`5` > /proc/PID/clear_refs) before the map pair and read after it;
// VmRSS is also sampled every 10 ms. Gate round trips: POST run (→ waiting_human) then POST resume approve
// (→ succeeded), 1 client and --clients clients, --gate-s each. Every loop is bounded in time and count; the whole
// run by --max-minutes. Correctness (exit 1 on failure): results of every shape, step rows recorded with `full` and
// nothing left with `disabled`, every gate run waiting then succeeded.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { Subprocess } from 'bun'
import type { WorkflowDefinition } from '../../src/modules/workflows/definition/types.ts'
import { validateDefinition } from '../../src/modules/workflows/definition/validate.ts'
import { WorkflowExecutor, type EngineHost } from '../../src/modules/workflows/engine/executor.ts'
import type { StepTrace } from '../../src/modules/workflows/engine/trace.ts'
import { benchLicense, intOption } from './lib.ts'

const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery staple' }
const OWNER = { email: 'owner@example.com', name: 'Olive Owner', password: 'a long enough bench password' }
const MODES = ['full', 'disabled'] as const
type Mode = (typeof MODES)[number]
const SHAPES = ['linear-1', 'linear-N', 'map-1', 'map-M'] as const
type Shape = (typeof SHAPES)[number]

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    rounds: { type: 'string', default: '5' },
    steps: { type: 'string', default: '20' },
    items: { type: 'string', default: '1000' },
    'batch-s': { type: 'string', default: '2' },
    'gate-s': { type: 'string', default: '2' },
    clients: { type: 'string', default: '8' },
    'max-minutes': { type: 'string', default: '20' },
    json: { type: 'string' },
  },
})
const ROUNDS = intOption(opts.rounds!, '--rounds')
const STEPS = intOption(opts.steps!, '--steps', 2, 400)
const ITEMS = intOption(opts.items!, '--items', 2, 10_000)
const BATCH_MS = intOption(opts['batch-s']!, '--batch-s', 1, 60) * 1000
const GATE_MS = intOption(opts['gate-s']!, '--gate-s', 1, 60) * 1000
const CLIENTS = intOption(opts.clients!, '--clients', 1, 64)
const MAX_MS = intOption(opts['max-minutes']!, '--max-minutes', 1, 240) * 60_000
/** Runs per batch at most, whatever --batch-s allows; and at least this many, whatever the clock says. */
const BATCH_MAX_RUNS = 2000
const BATCH_MIN_RUNS = 5
/** Runs of one shape in a row before switching to the other shape of the pair. */
const BLOCK_MS = 150
const GATE_MAX_TRIPS = 20_000

// ------------------------------------------------------------------------------------------------------- helpers

const TASKSET = Bun.which('taskset')
const pinned = (cpu: number, cmd: string[]) => (TASKSET ? [TASKSET, '-c', String(cpu), ...cmd] : cmd)
if (TASKSET) Bun.spawnSync([TASKSET, '-a', '-p', '-c', '1', String(process.pid)], { stdout: 'ignore', stderr: 'ignore' })

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b)
  if (s.length === 0) return NaN
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
const min = (xs: number[]) => Math.min(...xs.filter(Number.isFinite))
const max = (xs: number[]) => Math.max(...xs.filter(Number.isFinite))
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–')
const range = (xs: number[], digits = 1) => `${fmt(median(xs), digits)} (${fmt(min(xs), digits)}–${fmt(max(xs), digits)})`

const children = new Set<Subprocess>()
const killChildren = () => {
  for (const child of children) {
    try {
      child.kill('SIGKILL')
    } catch {}
  }
}
const benchRoot = mkdtempSync(join(tmpdir(), 'agentbox-bench-workflows-'))
// Whatever ends this process (a failed check, a thrown error, a signal), no server and no data dir is left behind.
process.on('exit', () => {
  killChildren()
  rmSync(benchRoot, { recursive: true, force: true })
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    process.exit(130)
  })
}
const watchdog = setTimeout(() => {
  console.error(`bench: still running after --max-minutes ${MAX_MS / 60_000}; giving up`)
  process.exit(1)
}, MAX_MS)

const freePort = () => {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}
/**
 * The server's CPU time so far, summed over its threads, and its main (JavaScript) thread's run-queue wait, in ms,
 * from /proc/PID/task/TID/schedstat (nanoseconds, so short blocks can be measured; /proc/PID/stat ticks are 10 ms).
 * The wait is time the main thread was ready to run but did not get the CPU: what a busy host adds to wall time.
 */
const serverCpu = (pid: number): { cpu: number; wait: number } => {
  let cpu = 0
  let wait = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const [run, queued] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')
      cpu += Number(run)
      if (tid === String(pid)) wait = Number(queued)
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return { cpu: cpu / 1e6, wait: wait / 1e6 }
}
const procStatusMiB = (pid: number, key: 'VmRSS' | 'VmHWM') => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${key}:`))
  return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN
}
const resetPeak = (pid: number): boolean => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

const checks: { name: string; pass: boolean; detail: string }[] = []
const check = (name: string, pass: boolean, detail = '') => {
  checks.push({ name, pass, detail })
  if (!pass) console.log(`  FAIL ${name}${detail ? ` (${detail})` : ''}`)
}

// --------------------------------------------------------------------------------------------------- definitions

const node = (id: string, type: string, params: Record<string, unknown>) => ({ id, type: `agentbox.${type}`, params })
const edge = (from: string, to: string, port?: string) => (port ? { from, port, to } : { from, to })

/** N set steps in a row, each adding one computed field (merge mode), then an output of the final $json. */
function linear(n: number): WorkflowDefinition {
  const nodes = Array.from({ length: n }, (_, i) => node(`s${i}`, 'set', { values: { [`f${i}`]: `{{ $json.n + ${i} }}` } }))
  const connections = nodes.slice(1).map((_, i) => edge(`s${i}`, `s${i + 1}`))
  return { nodes: [...nodes, node('out', 'output', { value: '{{ $json }}' })], connections: [...connections, edge(`s${n - 1}`, 'out')] } as WorkflowDefinition
}

/** A map whose body is one set step per item; the same definition serves 1 item and M items (the input decides). */
const MAP: WorkflowDefinition = {
  nodes: [
    node('each', 'map', { items: '{{ $json.xs }}' }),
    node('double', 'set', { values: { doubled: '{{ $item.v * 2 }}' } }),
    node('out', 'output', { value: '{{ $json }}' }),
  ],
  connections: [edge('each', 'double', 'loop'), edge('double', 'each'), edge('each', 'out', 'done')],
  settings: { max_steps: ITEMS + 10 },
} as WorkflowDefinition

/** set → approval gate → output: the smallest workflow with a gate. */
const GATE: WorkflowDefinition = {
  nodes: [
    node('prep', 'set', { values: { amount: '{{ $json.amount }}', note: 'refund' } }),
    node('gate', 'approval', { message: 'Refund {{ $json.amount }}?' }),
    node('out', 'output', { value: '{{ $json }}' }),
  ],
  connections: [edge('prep', 'gate'), edge('gate', 'out', 'approved')],
} as WorkflowDefinition

const itemsInput = (count: number) => ({ xs: Array.from({ length: count }, (_, i) => ({ v: i })) })
const DEFINITIONS: Record<Shape, WorkflowDefinition> = { 'linear-1': linear(1), 'linear-N': linear(STEPS), 'map-1': MAP, 'map-M': MAP }
const INPUTS: Record<Shape, unknown> = { 'linear-1': { n: 1 }, 'linear-N': { n: 1 }, 'map-1': itemsInput(1), 'map-M': itemsInput(ITEMS) }
/** Step rows a `full` run records: every set step, the map node, the output. */
const STEP_ROWS: Record<Shape, number> = { 'linear-1': 2, 'linear-N': STEPS + 1, 'map-1': 3, 'map-M': ITEMS + 2 }
for (const [name, definition] of Object.entries({ ...DEFINITIONS, gate: GATE })) {
  const problems = validateDefinition(definition)
  if (problems.length > 0) throw new Error(`${name}: invalid definition ${JSON.stringify(problems)}`)
}

function resultOk(shape: Shape, result: any): boolean {
  if (shape.startsWith('linear')) {
    const n = shape === 'linear-1' ? 1 : STEPS
    return result?.n === 1 && Array.from({ length: n }, (_, i) => result[`f${i}`] === 1 + i).every(Boolean) && Object.keys(result).length === n + 1
  }
  const m = shape === 'map-1' ? 1 : ITEMS
  return Array.isArray(result) && result.length === m && result.every((r: any, i: number) => r?.v === i && r?.doubled === 2 * i)
}

// ------------------------------------------------------------------------------------------- in-process baselines

/** The engine alone: the real executor, a host that only collects traces (as the server's does), no HTTP, no DB. */
async function engineOnce(shape: Shape): Promise<unknown> {
  const traces: StepTrace[] = []
  const host: EngineHost = {
    clock: { now: () => Date.now() },
    stepData: null,
    isCancelled: () => false,
    onTrace: (t) => void traces.push(t),
    sleep: async () => {},
    callLlm: async () => {
      throw new Error('no llm steps here')
    },
  }
  const info = {
    id: 'bench',
    input: INPUTS[shape],
    started_at: new Date().toISOString(),
    starter: 'u',
    dry_run: false,
    workflow: { id: 'w', name: 'w', version: 1, agent: 'a' },
  }
  const outcome = await new WorkflowExecutor(DEFINITIONS[shape], info, host).start()
  if (outcome.kind !== 'finished' || outcome.status !== 'succeeded') throw new Error(`engine-only ${shape}: ${JSON.stringify(outcome).slice(0, 300)}`)
  return outcome.result
}

/** The same transformations in plain JS: copy the object, add one computed field; per item, copy and add `doubled`. */
function plainLinear(input: { n: number }, steps: number): Record<string, number> {
  let json: Record<string, number> = input
  for (let i = 0; i < steps; i++) json = { ...json, [`f${i}`]: json.n! + i }
  return json
}
const plainMap = (xs: { v: number }[]) => xs.map((item) => ({ ...item, doubled: item.v * 2 }))

/**
 * CPU ms per call (this process's user+system time, so a busy host's descheduling is not counted) over at least
 * `minMs` of wall time, after a warm-up of a quarter of that; at most 1,000,000 calls.
 */
async function timeLoop(fn: () => unknown | Promise<unknown>, minMs: number): Promise<number> {
  const loop = async (ms: number) => {
    let calls = 0
    const started = performance.now()
    const cpu = process.cpuUsage()
    while ((performance.now() - started < ms || calls < 3) && calls < 1_000_000) {
      await fn()
      calls++
    }
    const used = process.cpuUsage(cpu)
    return (used.user + used.system) / 1000 / calls
  }
  await loop(minMs / 4)
  return loop(minMs)
}

// ------------------------------------------------------------------------------------------------------- server

interface Agentbox {
  proc: Subprocess
  pid: number
  base: string
  admin: string
  owner: string
  agent: string
  ids: Record<Shape | 'gate', string>
}

async function call(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}
async function expectOk(base: string, method: string, path: string, token: string | null, body?: unknown, want = 200): Promise<any> {
  const res = await call(base, method, path, token, body)
  if (res.status !== want) throw new Error(`${method} ${path}: expected ${want}, got ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`)
  return res.json
}

async function startAgentbox(round: number): Promise<Agentbox> {
  const dir = join(benchRoot, `round-${round}`)
  mkdirSync(dir, { recursive: true })
  const port = freePort()
  const proc = Bun.spawn(
    pinned(0, [process.execPath, join(ROOT, 'src', 'main.ts'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, 'data')]),
    {
      cwd: ROOT,
      env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' },
      stdout: Bun.file(join(dir, 'stdout.log')),
      stderr: 'inherit',
    },
  )
  children.add(proc)
  const base = `http://127.0.0.1:${port}`
  const deadline = performance.now() + 30_000
  for (;;) {
    try {
      const res = await fetch(base + '/api/health/live', { signal: AbortSignal.timeout(2_000) })
      await res.arrayBuffer()
      if (res.status === 200) break
    } catch {}
    if (performance.now() > deadline) throw new Error('server not ready after 30 s')
    await Bun.sleep(10)
  }
  await expectOk(base, 'POST', '/api/tenant/setup', SETUP_TOKEN, {
    license_token: benchLicense({ org: 'Bench', seats: 10 }),
    admin_email: ADMIN.email,
    admin_name: ADMIN.name,
    admin_password: ADMIN.password,
  })
  const admin = (await expectOk(base, 'POST', '/api/auth/login', null, { email: ADMIN.email, password: ADMIN.password })).access_token as string
  await expectOk(base, 'POST', '/api/users', admin, { ...OWNER, role: 'member' }, 201)
  const owner = (await expectOk(base, 'POST', '/api/auth/login', null, { email: OWNER.email, password: OWNER.password })).access_token as string
  const agent = 'flow-bench'
  await expectOk(base, 'POST', '/api/agents', owner, { name: agent, description: 'workflow benchmark', instructions: 'none' }, 201)
  const save = async (name: string, definition: WorkflowDefinition) =>
    (await expectOk(base, 'POST', `/api/workflows/${agent}`, owner, { name, definition }, 201)).id as string
  const linear1 = await save('linear-1', DEFINITIONS['linear-1'])
  const linearN = await save(`linear-${STEPS}`, DEFINITIONS['linear-N'])
  const map = await save('map', MAP)
  const gate = await save('gate', GATE)
  await expectOk(base, 'POST', `/api/agents/${agent}/publish`, owner, {}, 201)
  return { proc, pid: proc.pid, base, admin, owner, agent, ids: { 'linear-1': linear1, 'linear-N': linearN, 'map-1': map, 'map-M': map, gate } }
}

async function stopAgentbox(box: Agentbox): Promise<void> {
  box.proc.kill('SIGTERM')
  if (!(await Promise.race([box.proc.exited.then(() => true), Bun.sleep(12_000).then(() => false)]))) {
    box.proc.kill('SIGKILL')
    await box.proc.exited
  }
  children.delete(box.proc)
}

const setRecording = (box: Agentbox, mode: Mode) => expectOk(box.base, 'PUT', '/api/org/settings', box.admin, { workflow_recording: mode })
const runPath = (box: Agentbox, id: string) => `/api/workflows/${box.agent}/${id}/run`

// ------------------------------------------------------------------------------------------------------ measuring

/** Wall ms of each run as the client saw it; the server's CPU and run-queue wait over all of its blocks, in ms. */
interface Samples {
  wall: number[]
  cpuTotal: number
  waitTotal: number
}
interface PairResult {
  samples: Partial<Record<Shape, Samples>>
  /** Map pair only: the server's peak RSS during the batch (VmHWM), the peak of 10 ms VmRSS samples, RSS before. */
  peakMiB?: number
  sampledPeakMiB?: number
  beforeMiB?: number
}

async function checkShape(box: Agentbox, mode: Mode, shape: Shape, round: number): Promise<void> {
  const first = await call(box.base, 'POST', runPath(box, box.ids[shape]), box.owner, { input: INPUTS[shape] })
  check(
    `${mode} ${shape} round ${round}: succeeded with the expected result`,
    first.status === 200 && first.json.status === 'succeeded' && first.json.recording === mode && resultOk(shape, first.json.result),
    `HTTP ${first.status} ${first.json?.status} ${JSON.stringify(first.json?.error ?? null)}`,
  )
  const recorded = await call(box.base, 'GET', `/api/workflows/${box.agent}/runs/${first.json.run_id}?include_data=true`, box.owner)
  if (mode === 'full')
    check(
      `full ${shape} round ${round}: ${STEP_ROWS[shape]} step rows recorded`,
      recorded.status === 200 && recorded.json.steps?.length === STEP_ROWS[shape],
      `HTTP ${recorded.status}, ${recorded.json?.steps?.length} rows`,
    )
  else check(`disabled ${shape} round ${round}: nothing left after the run`, recorded.status === 404, `HTTP ${recorded.status}`)
}

/** Waits (at most 250 ms) until the server's threads stop using CPU, so work a run leaves behind (GC) is counted with it. */
async function settle(pid: number): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const a = serverCpu(pid).cpu
    await Bun.sleep(5)
    if (serverCpu(pid).cpu - a < 0.05) return
  }
}

/**
 * The small and the big shape of a pair in alternating blocks (small block, big block, …; each block ≥ BLOCK_MS of
 * runs), so both see the same host noise, for 2 × BATCH_MS in all (at least BATCH_MIN_RUNS runs each, at most
 * BATCH_MAX_RUNS). Server CPU is taken per block, between two quiet points, so a big run's leftover work never lands
 * on a small one. One warm-up run of each shape first, which is also its correctness check.
 */
async function runPair(box: Agentbox, mode: Mode, pair: readonly [Shape, Shape], round: number): Promise<PairResult> {
  for (const shape of pair) await checkShape(box, mode, shape, round)
  const memory = pair.includes('map-M')
  let sampledPeak = 0
  let sampler: ReturnType<typeof setInterval> | undefined
  const result: PairResult = { samples: {} }
  for (const shape of pair) result.samples[shape] = { wall: [], cpuTotal: 0, waitTotal: 0 }
  await settle(box.pid)
  if (memory) {
    result.beforeMiB = procStatusMiB(box.pid, 'VmRSS')
    result.peakMiB = resetPeak(box.pid) ? 0 : NaN
    sampledPeak = result.beforeMiB
    sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, procStatusMiB(box.pid, 'VmRSS'))
    }, 10)
  }
  const order = round % 2 === 0 ? pair : ([pair[1], pair[0]] as const)
  const started = performance.now()
  let failed = false
  for (let block = 0; !failed; block++) {
    const counts = pair.map((p) => result.samples[p]!.wall.length)
    if (block % 2 === 0 && ((performance.now() - started >= 2 * BATCH_MS && Math.min(...counts) >= BATCH_MIN_RUNS) || Math.min(...counts) >= BATCH_MAX_RUNS))
      break
    const shape = order[block % 2]!
    const s = result.samples[shape]!
    const before = serverCpu(box.pid)
    const blockStart = performance.now()
    while (!failed && performance.now() - blockStart < BLOCK_MS && s.wall.length < BATCH_MAX_RUNS) {
      const t0 = performance.now()
      const res = await call(box.base, 'POST', runPath(box, box.ids[shape]), box.owner, { input: INPUTS[shape] })
      s.wall.push(performance.now() - t0)
      if (res.status !== 200 || res.json.status !== 'succeeded') {
        check(`${mode} ${shape} round ${round}: every run succeeded`, false, `HTTP ${res.status} ${JSON.stringify(res.json).slice(0, 200)}`)
        failed = true
      }
    }
    await settle(box.pid)
    const after = serverCpu(box.pid)
    s.cpuTotal += after.cpu - before.cpu
    s.waitTotal += after.wait - before.wait
  }
  if (memory) {
    clearInterval(sampler)
    result.sampledPeakMiB = Math.max(sampledPeak, procStatusMiB(box.pid, 'VmRSS'))
    result.peakMiB = Number.isNaN(result.peakMiB) ? result.sampledPeakMiB : procStatusMiB(box.pid, 'VmHWM')
  }
  return result
}

interface GateResult {
  trips: number
  seconds: number
  perSecond: number
  /** Server CPU ms per round trip. */
  cpuMs: number
  failures: number
}

/** `clients` loops of run → waiting_human → resume approve → succeeded, until GATE_MS has passed (or GATE_MAX_TRIPS). */
async function gateLoad(box: Agentbox, clients: number): Promise<GateResult> {
  const path = runPath(box, box.ids.gate)
  let trips = 0
  let failures = 0
  let firstFailure = ''
  const cpuBefore = serverCpu(box.pid).cpu
  const started = performance.now()
  const deadline = started + GATE_MS
  const client = async () => {
    while (performance.now() < deadline && trips + failures < GATE_MAX_TRIPS) {
      const run = await call(box.base, 'POST', path, box.owner, { input: { amount: 5 } })
      if (run.status !== 200 || run.json.status !== 'waiting_human') {
        failures++
        firstFailure ||= `run: HTTP ${run.status} ${JSON.stringify(run.json).slice(0, 200)}`
        continue
      }
      const done = await call(box.base, 'POST', `/api/workflows/${box.agent}/runs/${run.json.run_id}/resume`, box.owner, { decision: 'approve' })
      if (done.status !== 200 || done.json.status !== 'succeeded' || done.json.result?._approval?.decision !== 'approve') {
        failures++
        firstFailure ||= `resume: HTTP ${done.status} ${JSON.stringify(done.json).slice(0, 200)}`
        continue
      }
      trips++
    }
  }
  await Promise.all(Array.from({ length: clients }, client))
  const seconds = (performance.now() - started) / 1000
  check(
    `gate round trips with ${clients} client(s): all waited, then succeeded`,
    failures === 0 && trips > 0,
    failures ? `${failures} failed; first: ${firstFailure}` : '',
  )
  return { trips, seconds, perSecond: trips / seconds, cpuMs: trips ? (serverCpu(box.pid).cpu - cpuBefore) / trips : NaN, failures }
}

// ----------------------------------------------------------------------------------------------------------- run

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0)
const machine = {
  date: new Date().toISOString(),
  nproc: availableParallelism(),
  cpu: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown',
  memory: `${(memKb / 1024 / 1024).toFixed(1)} GiB`,
  kernel: readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim(),
  bun: Bun.version,
  pinning: TASKSET ? 'server on CPU 0, this script (client) on CPU 1 (taskset)' : 'none (taskset not found)',
  load_before: loadAverage(),
  load_after: '',
}
console.log(`workflows benchmark — ${machine.date}`)
console.log(
  `${machine.cpu}, nproc ${machine.nproc}, ${machine.memory}, kernel ${machine.kernel}, Bun ${machine.bun}; ${machine.pinning}; load ${machine.load_before}`,
)
console.log(
  `${ROUNDS} rounds; linear ${STEPS} steps vs 1; map over ${ITEMS} items vs 1; pairs alternated for ≥ ${(2 * BATCH_MS) / 1000} s; gates ${GATE_MS / 1000} s × (1, ${CLIENTS} clients)\n`,
)

const PAIRS = [
  ['linear-1', 'linear-N'],
  ['map-1', 'map-M'],
] as const

interface RoundData {
  pairs: Record<Mode, Record<'linear' | 'map', PairResult>>
  gates: Record<Mode, { sequential: GateResult; concurrent: GateResult }>
  /** ms per run, engine only. */
  engine: Record<Shape, number>
  plain: { linearStepMs: number; mapItemMs: number }
}
const rounds: RoundData[] = []
const wallOf = (r: RoundData, m: Mode, s: Shape) => median(r.pairs[m][s.startsWith('linear') ? 'linear' : 'map'].samples[s]!.wall)
const samplesOf = (r: RoundData, m: Mode, s: Shape) => r.pairs[m][s.startsWith('linear') ? 'linear' : 'map'].samples[s]!
/** Server CPU ms per run: the shape's blocks in total ÷ its runs (a mean, as CPU time adds up). */
const cpuOf = (r: RoundData, m: Mode, s: Shape) => samplesOf(r, m, s).cpuTotal / samplesOf(r, m, s).wall.length
const waitOf = (r: RoundData, m: Mode, s: Shape) => samplesOf(r, m, s).waitTotal / samplesOf(r, m, s).wall.length
const runsOf = (r: RoundData, m: Mode, s: Shape) => r.pairs[m][s.startsWith('linear') ? 'linear' : 'map'].samples[s]!.wall.length
const stepUs = (r: RoundData, m: Mode, of: typeof wallOf) => ((of(r, m, 'linear-N') - of(r, m, 'linear-1')) / (STEPS - 1)) * 1000
const itemUs = (r: RoundData, m: Mode, of: typeof wallOf) => ((of(r, m, 'map-M') - of(r, m, 'map-1')) / (ITEMS - 1)) * 1000

for (let round = 0; round < ROUNDS; round++) {
  const box = await startAgentbox(round)
  const pairs = { full: {}, disabled: {} } as RoundData['pairs']
  const gates = {} as RoundData['gates']
  const modes = round % 2 === 0 ? MODES : ([...MODES].reverse() as unknown as typeof MODES)
  for (const mode of modes) {
    await setRecording(box, mode)
    const order = Math.floor(round / 2) % 2 === 0 ? PAIRS : ([PAIRS[1], PAIRS[0]] as const)
    for (const pair of order) pairs[mode][pair[0].startsWith('linear') ? 'linear' : 'map'] = await runPair(box, mode, pair, round)
    const sequential = await gateLoad(box, 1)
    const concurrent = await gateLoad(box, CLIENTS)
    gates[mode] = { sequential, concurrent }
  }
  await stopAgentbox(box)
  // The in-process baselines run after the server has stopped, on this script's CPU.
  const engine = {} as Record<Shape, number>
  for (const shape of SHAPES) {
    check(`engine-only ${shape} round ${round}: expected result`, resultOk(shape, await engineOnce(shape)))
    engine[shape] = await timeLoop(() => engineOnce(shape), shape === 'map-M' ? 1000 : 300)
  }
  const plainLinearN = await timeLoop(() => plainLinear({ n: 1 }, STEPS), 200)
  const plainLinear1 = await timeLoop(() => plainLinear({ n: 1 }, 1), 200)
  const xsM = itemsInput(ITEMS).xs
  const xs1 = itemsInput(1).xs
  const plainMapM = await timeLoop(() => plainMap(xsM), 200)
  const plainMap1 = await timeLoop(() => plainMap(xs1), 200)
  const plain = { linearStepMs: Math.max(0, plainLinearN - plainLinear1) / (STEPS - 1), mapItemMs: Math.max(0, plainMapM - plainMap1) / (ITEMS - 1) }
  const r: RoundData = { pairs, gates, engine, plain }
  rounds.push(r)
  console.log(
    `round ${round + 1}/${ROUNDS}: per step (wall/CPU µs) full ${fmt(stepUs(r, 'full', wallOf))}/${fmt(stepUs(r, 'full', cpuOf))}, disabled ${fmt(stepUs(r, 'disabled', wallOf))}/${fmt(stepUs(r, 'disabled', cpuOf))}; ` +
      `per item full ${fmt(itemUs(r, 'full', wallOf))}/${fmt(itemUs(r, 'full', cpuOf))}, disabled ${fmt(itemUs(r, 'disabled', wallOf))}/${fmt(itemUs(r, 'disabled', cpuOf))}; ` +
      `gates/s full ${fmt(gates.full.sequential.perSecond, 0)}/${fmt(gates.full.concurrent.perSecond, 0)}, disabled ${fmt(gates.disabled.sequential.perSecond, 0)}/${fmt(gates.disabled.concurrent.perSecond, 0)}; load ${loadAverage()}`,
  )
}
machine.load_after = loadAverage()

/** What one map run keeps alive at its end (result, state and the traces the host collects in every recording mode). */
async function liveHeapOfMapRun(): Promise<{ heapKiB: number; traces: number; tracesJsonKiB: number }> {
  const traces: StepTrace[] = []
  const host: EngineHost = {
    clock: { now: () => Date.now() },
    stepData: null,
    isCancelled: () => false,
    onTrace: (t) => void traces.push(t),
    sleep: async () => {},
    callLlm: async () => ({ text: '', provider: 'mock', model: 'mock' }),
  }
  const info = {
    id: 'heap',
    input: INPUTS['map-M'],
    started_at: new Date().toISOString(),
    starter: 'u',
    dry_run: false,
    workflow: { id: 'w', name: 'w', version: 1, agent: 'a' },
  }
  Bun.gc(true)
  const before = process.memoryUsage().heapUsed
  const outcome = await new WorkflowExecutor(MAP, info, host).start()
  Bun.gc(true)
  const heapKiB = (process.memoryUsage().heapUsed - before) / 1024
  if (outcome.kind !== 'finished') throw new Error('map run did not finish')
  return { heapKiB, traces: traces.length, tracesJsonKiB: JSON.stringify(traces).length / 1024 }
}
const liveHeap = await liveHeapOfMapRun()

// -------------------------------------------------------------------------------------------------------- report

const perRound = <T>(f: (r: RoundData) => T) => rounds.map(f)
const engineStepUs = perRound((r) => ((r.engine['linear-N'] - r.engine['linear-1']) / (STEPS - 1)) * 1000)
const engineItemUs = perRound((r) => ((r.engine['map-M'] - r.engine['map-1']) / (ITEMS - 1)) * 1000)
const plainStepUs = perRound((r) => r.plain.linearStepMs * 1000)
const plainItemUs = perRound((r) => r.plain.mapItemMs * 1000)
const ratioTo = (xs: number[], base: number[]) => xs.map((x, i) => x / base[i]!)
const verdict = (xs: number[]) => (max(xs) < 1000 ? 'met' : median(xs) < 1000 ? 'met (median)' : 'missed')

const out = (line = '') => console.log(line)
out()
out(`Machine: ${machine.cpu}, nproc ${machine.nproc}, ${machine.memory}, kernel ${machine.kernel}, Bun ${machine.bun}; ${machine.pinning}.`)
out(
  `Date: ${machine.date}. Load average before / after: ${machine.load_before} / ${machine.load_after}. ${ROUNDS} rounds; medians per round, then the median (min–max) over rounds.`,
)
out()
out(
  "**Whole runs** (POST …/run over loopback; per run: client wall ms (median); server CPU ms, all threads, and the server main thread's run-queue wait ms (means over the blocks)):",
)
out()
out('| shape | recording | wall ms | server CPU ms | server wait ms | runs per round |')
out('|---|---|---:|---:|---:|---:|')
const shapeName: Record<Shape, string> = {
  'linear-1': 'linear, 1 set step',
  'linear-N': `linear, ${STEPS} set steps`,
  'map-1': 'map over 1 item',
  'map-M': `map over ${ITEMS.toLocaleString('en-US')} items`,
}
for (const shape of SHAPES) {
  for (const mode of MODES)
    out(
      `| ${shapeName[shape]} | ${mode} | ${range(
        perRound((r) => wallOf(r, mode, shape)),
        2,
      )} | ${range(
        perRound((r) => cpuOf(r, mode, shape)),
        2,
      )} | ${range(
        perRound((r) => waitOf(r, mode, shape)),
        2,
      )} | ${fmt(median(perRound((r) => runsOf(r, mode, shape))), 0)} |`,
    )
}
out()
out('**Overhead per step / per item** (µs; (big − small) ÷ (N − 1) of the per-round medians; ratios use server CPU):')
out()
out('| what | recording | wall µs | server CPU µs | × engine only | × plain JS | target < 1,000 µs |')
out('|---|---|---:|---:|---:|---:|---|')
for (const mode of MODES) {
  const w = perRound((r) => stepUs(r, mode, wallOf))
  const c = perRound((r) => stepUs(r, mode, cpuOf))
  out(
    `| per step, linear ${STEPS} − 1 | ${mode} | **${range(w)}** | **${range(c)}** | ${fmt(median(ratioTo(c, engineStepUs)), 1)} | ${fmt(median(ratioTo(c, plainStepUs)), 0)} | ${verdict(w)} |`,
  )
}
for (const mode of MODES) {
  const w = perRound((r) => itemUs(r, mode, wallOf))
  const c = perRound((r) => itemUs(r, mode, cpuOf))
  out(
    `| per item, map ${ITEMS.toLocaleString('en-US')} − 1 | ${mode} | **${range(w)}** | **${range(c)}** | ${fmt(median(ratioTo(c, engineItemUs)), 1)} | ${fmt(median(ratioTo(c, plainItemUs)), 0)} | ${verdict(w)} |`,
  )
}
out(`| per step, engine only (in process, no HTTP/DB) | – | ${range(engineStepUs)} | | 1 | ${fmt(median(ratioTo(engineStepUs, plainStepUs)), 0)} | |`)
out(`| per item, engine only (in process, no HTTP/DB) | – | ${range(engineItemUs)} | | 1 | ${fmt(median(ratioTo(engineItemUs, plainItemUs)), 0)} | |`)
out(`| per step / per item, plain JS (copy + one field) | – | ${range(plainStepUs, 3)} / ${range(plainItemUs, 3)} | | | 1 | |`)
out()
const small = (m: Mode) => perRound((r) => wallOf(r, m, 'linear-1'))
out(
  `Baseline, the whole smallest run (linear, 1 step), wall: ${range(small('full'), 2)} ms with full, ${range(small('disabled'), 2)} ms with disabled. One step with full costs ${fmt(median(perRound((r) => stepUs(r, 'full', wallOf) / (wallOf(r, 'full', 'linear-1') * 1000))) * 100, 1)} % of that run; with disabled ${fmt(median(perRound((r) => stepUs(r, 'disabled', wallOf) / (wallOf(r, 'disabled', 'linear-1') * 1000))) * 100, 1)} %.`,
)
out()
out(
  `**Server memory during the map pair** (map over 1 and ${ITEMS.toLocaleString('en-US')} items alternated; MiB; VmHWM reset before the batch and read after; VmRSS just before):`,
)
out()
out('| recording | RSS before | peak (VmHWM) | peak − before | peak of 10 ms VmRSS samples |')
out('|---|---:|---:|---:|---:|')
for (const mode of MODES) {
  const b = perRound((r) => r.pairs[mode].map)
  out(
    `| ${mode} | ${range(b.map((x) => x.beforeMiB!))} | **${range(b.map((x) => x.peakMiB!))}** | ${range(b.map((x) => x.peakMiB! - x.beforeMiB!))} | ${range(b.map((x) => x.sampledPeakMiB!))} |`,
  )
}
out()
out(
  `Live heap one map run over ${ITEMS.toLocaleString('en-US')} items holds at its end (engine only, in process, after a forced GC): ${fmt(liveHeap.heapKiB, 0)} KiB, of which ${liveHeap.traces} step traces (${fmt(liveHeap.tracesJsonKiB, 0)} KiB as JSON), which the host collects in every recording mode.`,
)
out()
out(`**Gate round trips** (POST run → waiting_human, POST resume approve → succeeded; ${GATE_MS / 1000} s each):`)
out()
out('| recording | clients | round trips/s | server CPU ms per round trip | round trips per server CPU second | trips per round |')
out('|---|---:|---:|---:|---:|---:|')
for (const mode of MODES) {
  for (const kind of ['sequential', 'concurrent'] as const) {
    const g = perRound((r) => r.gates[mode][kind])
    out(
      `| ${mode} | ${kind === 'sequential' ? 1 : CLIENTS} | **${range(
        g.map((x) => x.perSecond),
        0,
      )}** | ${range(
        g.map((x) => x.cpuMs),
        2,
      )} | ${range(
        g.map((x) => 1000 / x.cpuMs),
        0,
      )} | ${fmt(median(g.map((x) => x.trips)), 0)} |`,
    )
  }
}
out()
const failed = checks.filter((c) => !c.pass)
out(`Correctness: ${checks.length - failed.length}/${checks.length} checks passed${failed.length ? `; FAILED: ${failed.map((c) => c.name).join('; ')}` : ''}.`)

if (opts.json)
  writeFileSync(opts.json, JSON.stringify({ machine, options: { ROUNDS, STEPS, ITEMS, BATCH_MS, GATE_MS, CLIENTS }, rounds, liveHeap, checks }, null, 2))
clearTimeout(watchdog)
rmSync(benchRoot, { recursive: true, force: true })
process.exit(failed.length ? 1 : 0)
