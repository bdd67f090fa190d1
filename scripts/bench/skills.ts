// Skill validation benchmark: POST /api/skill/validate with a typical 2 KB SKILL.md and a 300 KB one, against a bare
// Bun.serve that reads and parses the same JSON body (the floor for a request carrying that body) and GET /api/health,
// all measured in the same rounds; plus the pure validator in process, to show how much of a request it is.
//
//   bun scripts/bench/skills.ts [--rounds 3] [--duration 5] [--warmup 2] [--connections 32] [--json FILE]
//
// Servers run on CPU 0, the load generator (wrk with a Lua script that POSTs the body) on CPU 1. Without wrk a Bun
// fetch loop (this file, --post-loop) stands in; it saturates first. On a busy host, read the CPU columns: server CPU
// time per request (utime+stime from /proc) does not depend on whether the load generator kept the server saturated.
// Correctness, checked every round (exit 1 on failure): no non-2xx or socket errors under load; the 2 KB skill
// validates clean, the 300 KB one is valid with exactly the two size warnings.
import type { Subprocess } from 'bun'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { validateSkill } from '../../src/modules/skills/validator/index.ts'
import { benchLicense, intOption } from './lib.ts'

// ------------------------------------------------------------------------------------------------ helper modes

// --bare PORT: the baseline server. Reads the JSON body and answers a small JSON, as the real endpoint does.
if (process.argv[2] === '--bare') {
  Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.argv[3]),
    async fetch(request) {
      if (request.method !== 'POST') return Response.json({ ok: true })
      const body = (await request.json()) as { content?: string }
      return Response.json({ is_valid: typeof body.content === 'string', errors: [], warnings: [] })
    },
  })
  await new Promise(() => {})
}

// --post-loop URL BODYFILE AUTH CONCURRENCY SECONDS: the fallback load generator when wrk is missing.
if (process.argv[2] === '--post-loop') {
  const [url, file, auth, c, s] = process.argv.slice(3)
  const body = readFileSync(file!, 'utf8')
  const end = performance.now() + Number(s) * 1000
  let requests = 0
  let bad = 0
  const started = performance.now()
  const loop = async () => {
    while (performance.now() < end) {
      const res = await fetch(url!, { method: 'POST', headers: { authorization: auth!, 'content-type': 'application/json' }, body }).catch(() => null)
      if (res) await res.arrayBuffer()
      if (res?.status !== 200) bad++
      requests++
    }
  }
  await Promise.all(Array.from({ length: Number(c) }, loop))
  console.log(JSON.stringify({ rps: requests / ((performance.now() - started) / 1000), bad }))
  process.exit(0)
}

// ------------------------------------------------------------------------------------------------ options, fixtures

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    json: { type: 'string' },
  },
})
const ROUNDS = intOption(opts.rounds!, '--rounds')
const DURATION = intOption(opts.duration!, '--duration')
const WARMUP = intOption(opts.warmup!, '--warmup')
const CONNECTIONS = intOption(opts.connections!, '--connections')
const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'
const TASKSET = Bun.which('taskset')
const WRK = Bun.which('wrk')
const pinned = (cpu: number, cmd: string[]): string[] => (TASKSET ? [TASKSET, '-c', String(cpu), ...cmd] : cmd)
if (TASKSET) Bun.spawnSync([TASKSET, '-a', '-p', '-c', '1', String(process.pid)], { stdout: 'ignore', stderr: 'ignore' })
if (!WRK) console.error('hint: wrk not installed (apt-get install -y wrk); using a Bun fetch loop, which saturates before the servers do.')

const FRONTMATTER = [
  '---',
  'name: pdf-processing',
  'description: Extracts text and tables from PDF files, fills PDF forms, and merges documents. Use when working with PDF files or when the user mentions PDFs, forms, or document extraction.',
  'license: Apache-2.0',
  'compatibility: Requires python3 and poppler-utils',
  'metadata:',
  '  author: example-org',
  '  version: "1.0"',
  'allowed-tools: Bash(pdftotext:*) Bash(python3:*) Read',
  '---',
].join('\n')
const SECTION = [
  '## Extracting text',
  '',
  'Use `pdftotext -layout input.pdf out.txt` to keep the layout. For scanned documents, run OCR first and check the',
  'confidence of each page; report pages under 80 % to the user instead of guessing their content.',
  '',
  '```bash',
  'pdftotext -layout "$FILE" - | head -n 200',
  '```',
  '',
].join('\n')
const bodyOf = (bytes: number) => {
  let body = '# PDF processing\n\n'
  while (body.length + SECTION.length <= bytes) body += SECTION
  // Pad to the exact size with a closing paragraph of prose.
  return body + 'Report the result to the user in one short paragraph. '.repeat(40).slice(0, bytes - body.length)
}
const SKILLS = {
  '2 KB': `${FRONTMATTER}\n${bodyOf(2048 - FRONTMATTER.length - 1)}`,
  '300 KB': `${FRONTMATTER}\n${bodyOf(300 * 1024 - FRONTMATTER.length - 1)}`,
} as const
type Size = keyof typeof SKILLS
const SIZES = Object.keys(SKILLS) as Size[]
const EXPECTED_WARNINGS: Record<Size, string[]> = { '2 KB': [], '300 KB': ['body_too_many_lines', 'body_too_many_tokens'] }

// ------------------------------------------------------------------------------------------------ processes

const children = new Set<Subprocess>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})
const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-skills-'))
const CLK_TCK = Number(new TextDecoder().decode(Bun.spawnSync(['getconf', 'CLK_TCK']).stdout).trim()) || 100
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}
async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}
async function waitFor(url: string): Promise<void> {
  for (const deadline = performance.now() + 20_000; performance.now() < deadline; await Bun.sleep(10)) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return
  }
  throw new Error(`${url} not ready`)
}
async function post(url: string, token: string, body: unknown): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = await res.json()
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

const barePort = await freePort()
const bare = Bun.spawn(pinned(0, [process.execPath, import.meta.path, '--bare', String(barePort)]), { stdout: 'ignore', stderr: 'inherit' })
children.add(bare)
const agentboxPort = await freePort()
const agentbox = Bun.spawn(
  pinned(0, [process.execPath, join(ROOT, 'src', 'main.ts'), 'serve', '--host', '127.0.0.1', '--port', String(agentboxPort), '--data', join(dir, 'data')]),
  {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'inherit',
  },
)
children.add(agentbox)
const BARE = `http://127.0.0.1:${barePort}`
const AGENTBOX = `http://127.0.0.1:${agentboxPort}`
await Promise.all([waitFor(BARE), waitFor(`${AGENTBOX}/api/health/live`)])
await post(`${AGENTBOX}/api/tenant/setup`, SETUP_TOKEN, {
  license_token: benchLicense({ org: 'Bench' }),
  admin_email: 'admin@example.com',
  admin_name: 'Ada Admin',
  admin_password: PASSWORD,
})
const { access_token: TOKEN } = await post(`${AGENTBOX}/api/auth/login`, '', { email: 'admin@example.com', password: PASSWORD })

// ------------------------------------------------------------------------------------------------ load

const bodyFiles = Object.fromEntries(
  SIZES.map((size) => {
    const file = join(dir, `${size.replace(' ', '')}.json`)
    writeFileSync(file, JSON.stringify({ content: SKILLS[size] }))
    return [size, file]
  }),
) as Record<Size, string>
// An empty content answers 200 (is_valid false) at once: the fixed cost of an authenticated JSON POST on this route.
const emptyBodyFile = join(dir, 'empty.json')
writeFileSync(emptyBodyFile, JSON.stringify({ content: '' }))

interface Load {
  rps: number
  bad: number
}

async function run(cmd: string[], seconds: number): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe' })
  children.add(proc)
  const killer = setTimeout(() => proc.kill('SIGKILL'), (seconds + 15) * 1000)
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  clearTimeout(killer)
  children.delete(proc)
  if ((await proc.exited) !== 0) throw new Error(`${cmd.join(' ')}: ${err || out}`)
  return out
}

async function load(url: string, bodyFile: string | null, seconds: number): Promise<Load> {
  if (WRK) {
    const lua = join(dir, 'post.lua')
    const script = bodyFile
      ? `local f = io.open("${bodyFile}", "rb")\nwrk.method = "POST"\nwrk.body = f:read("*a")\nf:close()\nwrk.headers["Content-Type"] = "application/json"\n`
      : ''
    writeFileSync(lua, script)
    const out = await run(
      pinned(1, [WRK, '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '5s', '-s', lua, '-H', `Authorization: Bearer ${TOKEN}`, url]),
      seconds,
    )
    const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
    const bad = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) + (sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0)
    return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN), bad }
  }
  if (!bodyFile) throw new Error('the fallback load generator only POSTs')
  const out = await run(
    pinned(1, [process.execPath, import.meta.path, '--post-loop', url, bodyFile, `Bearer ${TOKEN}`, String(CONNECTIONS), String(seconds)]),
    seconds,
  )
  return JSON.parse(out.trim().split('\n').at(-1)!) as Load
}

interface Config {
  key: string
  label: string
  proc: Subprocess
  url: string
  body: string | null
  size: Size | null
}
const CONFIGS: Config[] = [
  ...(WRK ? [{ key: 'health', label: 'agentbox GET /api/health', proc: agentbox, url: `${AGENTBOX}/api/health`, body: null, size: null }] : []),
  {
    key: 'empty',
    label: 'agentbox POST /api/skill/validate, empty content (route floor)',
    proc: agentbox,
    url: `${AGENTBOX}/api/skill/validate`,
    body: emptyBodyFile,
    size: null,
  },
  ...SIZES.flatMap((size) => [
    { key: `bare ${size}`, label: `bare Bun.serve, POST ${size} JSON (parse, answer)`, proc: bare, url: `${BARE}/`, body: bodyFiles[size], size },
    {
      key: `validate ${size}`,
      label: `agentbox POST /api/skill/validate ${size}`,
      proc: agentbox,
      url: `${AGENTBOX}/api/skill/validate`,
      body: bodyFiles[size],
      size,
    },
  ]),
]

interface Sample {
  round: number
  rps: number
  cpuUsPerRequest: number
}
const samples = new Map<string, Sample[]>(CONFIGS.map((c) => [c.key, []]))
const failures: string[] = []

async function checkResponses(round: number): Promise<void> {
  for (const size of SIZES) {
    const result = await post(`${AGENTBOX}/api/skill/validate`, TOKEN, { content: SKILLS[size] })
    const warnings = result.warnings.map((w: { code: string }) => w.code)
    if (!result.is_valid || result.errors.length > 0 || JSON.stringify(warnings) !== JSON.stringify(EXPECTED_WARNINGS[size])) {
      failures.push(`round ${round}: ${size} gave ${JSON.stringify(result)}`)
    }
  }
}

for (let round = 1; round <= ROUNDS; round++) {
  await checkResponses(round)
  // Rotate the order each round so no configuration always runs first.
  const order = CONFIGS.map((_, i) => CONFIGS[(i + round - 1) % CONFIGS.length]!)
  for (const c of order) {
    await load(c.url, c.body, WARMUP)
    const cpuBefore = cpuSeconds(c.proc.pid)
    const result = await load(c.url, c.body, DURATION)
    const cpu = cpuSeconds(c.proc.pid) - cpuBefore
    if (result.bad > 0) failures.push(`round ${round}: ${c.key} had ${result.bad} non-2xx or socket errors`)
    samples.get(c.key)!.push({ round, rps: result.rps, cpuUsPerRequest: (cpu * 1e6) / (result.rps * DURATION) })
  }
  console.error(`round ${round}/${ROUNDS} done`)
}

// The validator alone, in this process: calls per second over a fixed time per size.
const inProcess: Record<string, number> = {}
for (const size of SIZES) {
  const content = SKILLS[size]
  for (let i = 0; i < 200; i++) validateSkill(content)
  let calls = 0
  const started = performance.now()
  while (performance.now() - started < 2000) {
    validateSkill(content)
    calls++
  }
  inProcess[size] = calls / ((performance.now() - started) / 1000)
}

// ------------------------------------------------------------------------------------------------ report

const median = (xs: number[]): number => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–')
const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown'
const lines = [
  `Machine: ${availableParallelism()} vCPU ${cpuModel}, kernel ${readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim()}, bun ${Bun.version}, ` +
    `${WRK ? 'wrk' : 'Bun fetch loop'}; ${TASKSET ? 'servers on CPU 0, load on CPU 1' : 'no pinning'}. ${new Date().toISOString()}.`,
  `Fixtures: 2 KB = ${fmt(SKILLS['2 KB'].length)} characters, 300 KB = ${fmt(SKILLS['300 KB'].length)} characters (same frontmatter, every optional field).`,
  `${ROUNDS} rounds × ${DURATION} s after ${WARMUP} s warm-up, ${CONNECTIONS} connections; medians.`,
  '',
  '| config | req/s | ratio vs bare (same size, same round) | server CPU µs/req | req/s per server core (10⁶ / CPU µs) | CPU-normalised ratio vs bare |',
  '|---|---|---|---|---|---|',
]
for (const c of CONFIGS) {
  const list = samples.get(c.key)!
  const bareList = c.size ? samples.get(`bare ${c.size}`)! : []
  const against = (value: (s: Sample) => number) =>
    c.size && !c.key.startsWith('bare')
      ? fmt(median(list.map((s) => value(s) / value(bareList.find((b) => b.round === s.round) ?? { round: 0, rps: NaN, cpuUsPerRequest: NaN }))), 2)
      : '–'
  const cpu = median(list.map((s) => s.cpuUsPerRequest))
  lines.push(
    `| ${c.label} | ${fmt(median(list.map((s) => s.rps)))} | ${against((s) => s.rps)} | ${fmt(cpu, 1)} | ${fmt(1e6 / cpu)} | ${against((s) => 1 / s.cpuUsPerRequest)} |`,
  )
}
lines.push('', '| validator in process (validateSkill) | calls/s | µs/call |', '|---|---|---|')
for (const size of SIZES) lines.push(`| ${size} | ${fmt(inProcess[size]!)} | ${fmt(1e6 / inProcess[size]!, 1)} |`)
console.log(lines.join('\n'))
if (opts.json) writeFileSync(opts.json, JSON.stringify({ samples: Object.fromEntries(samples), inProcess }, null, 2))

for (const child of children) child.kill('SIGTERM')
rmSync(dir, { recursive: true, force: true })
if (failures.length > 0) {
  console.error(`correctness failures:\n${failures.join('\n')}`)
  process.exit(1)
}
