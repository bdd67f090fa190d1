// Stall benchmark (issue 14): while one member client loops a heavy request, how long does /api/health/live wait at
// worst, and how much of /api/auth/me's throughput is left? Each heavy case is compared with the same load without it,
// in the same run. Targets: worst live latency under 50 ms, throughput at least 50 % of the undisturbed run. Issue 25
// adds the server's peak RSS above its level before each case (target: under 256 MB).
//
// Large bodies: 6–7 MiB template bodies (escapes, millions of values, and without a token), parsed in the JSON worker
// and refused before the body is read without credentials (docs/benchmarks.md, "Large bodies"); and a saved template of
// control characters, whose every answer echoes 6 MiB of escapes.
//
// Usage: bun scripts/bench/stall.ts [--seconds 5] [--rows 1000000] [--only TEXT (cases of every table whose name contains it)]
import { Database } from 'bun:sqlite'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Kysely } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import { rollUpInteractions } from '../../src/platform/db/insights-rollups.ts'
import type { Database as Schema } from '../../src/platform/db/schema.ts'
import { benchLicense } from './lib.ts'

const ROOT = join(import.meta.dir, '..', '..')
const { values: opts } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, rows: { type: 'string', default: '1000000' }, only: { type: 'string' } },
})
const SECONDS = Number(opts.seconds)
const ROWS = Number(opts.rows)
const SETUP_TOKEN = 'stall-bench-setup-token-0123456789'
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery staple' }
const MEMBER = { email: 'member@example.com', name: 'Max Member', password: 'another long password', role: 'member' }

const dir = mkdtempSync(join(tmpdir(), 'agentbox-stall-'))
const port = 20000 + Math.floor(Math.random() * 20000)
const base = `http://127.0.0.1:${port}`
const server = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, 'data')], {
  cwd: ROOT,
  env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' },
  stdout: 'ignore',
  stderr: 'inherit',
})
process.on('exit', () => {
  server.kill()
  rmSync(dir, { recursive: true, force: true })
})

async function call(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, json: text ? JSON.parse(text) : null }
}

for (let i = 0; ; i++) {
  if (
    await fetch(`${base}/api/health/live`).then(
      (r) => r.ok,
      () => false,
    )
  )
    break
  if (i > 200) throw new Error('server did not start')
  await Bun.sleep(100)
}
await call('POST', '/api/tenant/setup', SETUP_TOKEN, {
  license_token: benchLicense({ org: 'Bench', seats: 100 }),
  admin_email: ADMIN.email,
  admin_name: ADMIN.name,
  admin_password: ADMIN.password,
})
const admin = (await call('POST', '/api/auth/login', undefined, { email: ADMIN.email, password: ADMIN.password })).json.access_token as string
const memberId = (await call('POST', '/api/users', admin, MEMBER)).json.id as string
const member = (await call('POST', '/api/auth/login', undefined, { email: MEMBER.email, password: MEMBER.password })).json.access_token as string

// 1M interactions across 50 users and a year, written straight into the database and counted into every rollup once, as
// the group commit counts a batch.
{
  const db = new Database(join(dir, 'data', 'agentbox.db'))
  db.run('PRAGMA busy_timeout = 10000')
  const now = new Date().toISOString()
  const users = [memberId]
  const lastRowid = () => Number((db.query('SELECT coalesce(max(rowid), 0) AS id FROM interactions').get() as { id: number }).id)
  const first = lastRowid() + 1
  db.transaction(() => {
    for (let u = 1; u < 50; u++) {
      const id = `bench-user-${u}`
      db.query(
        `INSERT INTO users (id, kind, email, name, role, password_hash, active, session_version, created_at, updated_at) VALUES (?, 'person', ?, 'n', 'member', NULL, 0, 0, ?, ?)`,
      ).run(id, `${id}@example.com`, now, now)
      users.push(id)
    }
    const insert = db.query(`INSERT INTO interactions (id, user_id, kind, api_title, action, is_error, created_at) VALUES (?, ?, ?, ?, 'tool', 0, ?)`)
    const start = Date.now() - 365 * 86_400_000
    for (let i = 0; i < ROWS; i++) {
      insert.run(
        `bench-${i}`,
        users[i % 50]!,
        i % 3 ? 'mcp_tool' : 'api_action',
        `server-${(i * 7919) % 2000}`,
        new Date(start + (i % 365) * 86_400_000 + (i % 86_400) * 1000).toISOString(),
      )
    }
  })()
  const kysely = new Kysely<Schema>({ dialect: new BunSqliteDialect({ database: db }) })
  await kysely.transaction().execute((trx) => rollUpInteractions(trx, { kind: 'sqlite', first, last: lastRowid() }))
  db.close()
}

// A workflow whose one dry-run step does a lot of string work, and a SKILL.md with 80,000 metadata keys.
await call('POST', '/api/agents', member, { name: 'stall-bot', description: 'd', instructions: 'i' })
const flow = await call('POST', '/api/workflows/stall-bot', member, {
  name: 'heavy',
  // Expressions are at most 4 KB each, so the work is spread over a chain of set nodes (the attack in the issue).
  definition: {
    nodes: Array.from({ length: 15 }, (_, n) => ({
      id: `split${n}`,
      type: 'agentbox.set',
      params: { values: { s: '{{ $json.s }}', [`p${n}`]: `{{ [${Array.from({ length: 100 }, () => 'length(split($json.s, "a"))').join(',')}] }}` } },
    })),
    connections: Array.from({ length: 14 }, (_, n) => ({ from: `split${n}`, to: `split${n + 1}` })),
  },
})
if (flow.status !== 201) throw new Error(`heavy workflow: ${flow.status} ${JSON.stringify(flow.json)}`)
const bigText = 'ab'.repeat(450_000)

// Issue 25: the small-object fan-out (20 set nodes, each 12 copies of 100,000 empty objects: 300 KB of JSON in, ~2 GB
// of objects before the memory budget), and a real run of ~100,000 steps (a map of 9,999 items, 10 steps each).
const chainIds = Array.from({ length: 20 }, (_, n) => `s${n}`)
const fanOut = await call('POST', '/api/workflows/stall-bot', member, {
  name: 'fan-out',
  definition: {
    nodes: chainIds.map((id) => ({
      id,
      type: 'agentbox.set',
      params: { mode: 'replace', values: Object.fromEntries(Array.from({ length: 12 }, (_, c) => [`c${c}`, '{{ $run.input.x }}'])) },
    })),
    connections: chainIds.slice(1).map((id, n) => ({ from: chainIds[n]!, to: id })),
  },
})
if (fanOut.status !== 201) throw new Error(`fan-out workflow: ${fanOut.status} ${JSON.stringify(fanOut.json)}`)
const bodyIds = Array.from({ length: 10 }, (_, n) => `b${n}`)
const longRun = await call('POST', '/api/workflows/stall-bot', member, {
  name: 'long',
  definition: {
    nodes: [
      { id: 'm', type: 'agentbox.map', params: { items: '{{ $json.xs }}' } },
      ...bodyIds.map((id, n) => ({ id, type: 'agentbox.set', params: { values: { [`v${n}`]: `{{ $index + ${n} }}` } } })),
      { id: 'o', type: 'agentbox.output', params: { value: '{{ length($json) }}' } },
    ],
    connections: [
      { from: 'm', port: 'loop', to: 'b0' },
      ...bodyIds.slice(1).map((id, n) => ({ from: bodyIds[n]!, to: id })),
      { from: bodyIds.at(-1)!, to: 'm' },
      { from: 'm', port: 'done', to: 'o' },
    ],
    settings: { max_steps: 100_000, timeout_s: 3600 },
  },
})
if (longRun.status !== 201) throw new Error(`long workflow: ${longRun.status} ${JSON.stringify(longRun.json)}`)
const oneStep = await call('POST', '/api/workflows/stall-bot', member, {
  name: 'one step',
  definition: { nodes: [{ id: 'o', type: 'agentbox.output', params: { value: 'ok' } }], connections: [] },
})
if (oneStep.status !== 201) throw new Error(`one-step workflow: ${oneStep.status} ${JSON.stringify(oneStep.json)}`)
const emptyObjects = Array.from({ length: 100_000 }, () => ({}))
const items = Array.from({ length: 9_999 }, (_, i) => i)
const skill = `---\nname: big-skill\ndescription: d\nmetadata:\n${Array.from({ length: 80_000 }, (_, i) => `  k${i}: v`).join('\n')}\n---\nbody\n`

// Issue 30: a chat turn in a long thread. Each turn sends a 100,000-character message that has the mock call an echo
// workflow with ~90,000 characters, so the thread grows by a 100 KB user message, a 90 KB tool call and a 50 KB tool
// result (the cut) per turn, and every turn reads the thread back for the model (50 messages, ~3 MB, before the
// history was capped at 400,000 characters and read in pages).
const echo = await call('POST', '/api/workflows/stall-bot', member, {
  name: 'echo',
  definition: { nodes: [{ id: 'o', type: 'agentbox.output', params: { value: '{{ $json }}' } }], connections: [] },
})
if (echo.status !== 201) throw new Error(`echo workflow: ${echo.status} ${JSON.stringify(echo.json)}`)
const chatMessage = (() => {
  const head = 'run_workflow {"workflow": "echo", "input": {"s": "'
  const tail = '"}}'
  return head + 'ab '.repeat(Math.floor((99_000 - head.length - tail.length) / 3)) + tail + ' '.repeat(900)
})()
let chatThread: string | undefined
const chatTurn = async () => {
  const reply = await call('POST', '/api/chat', member, {
    message: chatMessage,
    agent_name: 'stall-bot',
    mode: 'design',
    ...(chatThread && { thread_id: chatThread }),
  })
  if (reply.status !== 200) throw new Error(`chat: ${reply.status} ${JSON.stringify(reply.json).slice(0, 300)}`)
  chatThread = reply.json.thread_id
  return reply
}
for (let turn = 0; turn < 13; turn++) await chatTurn()

const HEAVY: Record<string, () => Promise<unknown>> = {
  'member summary (1M interactions, 2,000 titles, daily over a year)': () =>
    call('POST', '/api/interaction/summary', member, { time_frame: 'daily', start_date: new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10) }),
  'workflow dry run (1,500 splits of a 900 KB string over 15 steps)': () =>
    call('POST', `/api/workflows/stall-bot/${flow.json?.id}/run`, member, { version: 'draft', dry_run: true, input: { s: bigText } }),
  'skill validation (80,000 metadata keys)': () => call('POST', '/api/skill/validate', member, { content: skill }),
  "reference: the fan-out's 300 KB body (100,000 empty objects) to a one-step workflow, dry": () =>
    call('POST', `/api/workflows/stall-bot/${oneStep.json?.id}/run`, member, { version: 'draft', dry_run: true, input: { x: emptyObjects } }),
  'workflow dry run, small-object fan-out (20 sets × 12 copies of 100,000 empty objects)': () =>
    call('POST', `/api/workflows/stall-bot/${fanOut.json?.id}/run`, member, { version: 'draft', dry_run: true, input: { x: emptyObjects } }),
  'workflow real run, the same fan-out (recording full)': () =>
    call('POST', `/api/workflows/stall-bot/${fanOut.json?.id}/run`, member, { version: 'draft', input: { x: emptyObjects } }),
  'workflow real run of 99,992 steps (recording full)': () =>
    call('POST', `/api/workflows/stall-bot/${longRun.json?.id}/run`, member, { version: 'draft', input: { xs: items } }),
  'chat turn in a long thread (a 100 KB message, a 90 KB tool call; 400,000 characters of history read back)': chatTurn,
}

/** The server's resident memory now (Linux), in MB. */
const serverRssMb = () => {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
}

/** What the server answered, in a few words: HTTP status, and a run's status and error code. */
function answerOf(reply: unknown): string {
  const { status, json } = (reply ?? {}) as { status?: number; json?: { status?: string; error?: { code?: string } } }
  return [status, json?.status, json?.error?.code].filter((part) => part !== undefined && part !== null).join(' ')
}

interface Measured {
  rps: number
  p99: number | null
  worstLiveMs: number
  heavyRequests: number
  /** Peak resident memory of the server above its level when the run started, MB. */
  rssAboveMb: number
  lastAnswer: string
}

async function measure(heavy: (() => Promise<unknown>) | null): Promise<Measured> {
  let running = true
  let heavyRequests = 0
  let lastAnswer = ''
  const rssBefore = serverRssMb()
  let rssPeak = rssBefore
  const heavyLoop = (async () => {
    while (heavy && running) {
      lastAnswer = answerOf(await heavy())
      heavyRequests++
    }
  })()
  let worstLiveMs = 0
  const probe = (async () => {
    while (running) {
      const t0 = performance.now()
      await fetch(`${base}/api/health/live`)
      worstLiveMs = Math.max(worstLiveMs, performance.now() - t0)
      rssPeak = Math.max(rssPeak, serverRssMb())
      await Bun.sleep(10)
    }
  })()
  const loadgen = Bun.spawn(
    [process.execPath, join(import.meta.dir, 'loadgen.ts'), `${base}/api/auth/me`, '32', String(SECONDS), 'authorization', `Bearer ${admin}`],
    { stdout: 'pipe' },
  )
  const result = JSON.parse((await new Response(loadgen.stdout).text()).trim().split('\n').at(-1)!)
  running = false
  await Promise.all([heavyLoop, probe])
  rssPeak = Math.max(rssPeak, serverRssMb())
  return { rps: result.requests / result.seconds, p99: result.p99_ms, worstLiveMs, heavyRequests, rssAboveMb: rssPeak - rssBefore, lastAnswer }
}

console.log(`stall benchmark: ${ROWS} interactions, ${SECONDS} s per run, loadgen 32 connections on /api/auth/me, ${new Date().toISOString()}`)
console.log(
  '| heavy request looped by one member | /me req/s (vs none) | /me p99 ms | worst /api/health/live ms | heavy requests done | last answer | peak RSS above before, MB | targets met (issue 14: live, /me; issue 25: live, RSS) |',
)
console.log('|---|---|---|---|---|---|---|---|')
for (const [name, heavy] of Object.entries(HEAVY)) {
  if (opts.only && !name.includes(opts.only)) continue
  // The undisturbed run is measured right before each heavy one: the machine is shared and noisy.
  const calm = await measure(null)
  const loaded = await measure(heavy)
  const ratio = loaded.rps / calm.rps
  const met = loaded.worstLiveMs < 50 && ratio >= 0.5
  const bounded = loaded.worstLiveMs < 50 && loaded.rssAboveMb < 256
  console.log(
    `| ${name} | ${loaded.rps.toFixed(0)} (${(ratio * 100).toFixed(0)} % of ${calm.rps.toFixed(0)}) | ${loaded.p99?.toFixed(1)} (calm ${calm.p99?.toFixed(1)}) | ${loaded.worstLiveMs.toFixed(1)} (calm ${calm.worstLiveMs.toFixed(1)}) | ${loaded.heavyRequests} | ${loaded.lastAnswer} | ${loaded.rssAboveMb.toFixed(0)} (calm ${calm.rssAboveMb.toFixed(0)}) | ${met ? 'yes' : 'no'}; ${bounded ? 'yes' : 'no'} |`,
  )
}

// ------------------------------------------------------------------ argument checks (issue 25, items 2 and 4)
// A member imports their own API description and loops execute calls whose arguments the checker must refuse or
// pass: the enum bomb (700 wrong items of a 100,000-value enum: a 475 MB error and an OOM kill before), and uniqueItems
// over 12,000 objects (within the check's budget), 20,000 (14.9 s frozen before; now past the budget) and 75,000 (the
// 1 MiB body limit). Dry runs: nothing leaves the
// machine. Besides the stall figures, the server's peak RSS (VmHWM, reset before each loaded run) above its RSS before.

/** The heavy requests of the argument-check attacks, after importing the member's description. */
async function argumentCheckAttacks(): Promise<Record<string, () => Promise<unknown>>> {
  const enumValues = Array.from({ length: 100_000 }, (_, i) => `value-${i}`)
  const document = {
    openapi: '3.1.0',
    info: { title: 'Stall arguments', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: {
      '/tags': {
        post: {
          operationId: 'tags',
          requestBody: { content: { 'application/json': { schema: { type: 'array', items: { type: 'string', enum: enumValues } } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/unique': {
        post: {
          operationId: 'unique',
          requestBody: {
            content: {
              'application/json': {
                schema: { type: 'array', uniqueItems: true, items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  }
  const form = new FormData()
  form.append('file', new File([JSON.stringify(document)], 'stall.json', { type: 'application/json' }))
  form.append('api_name', 'stall-arguments')
  const imported = await fetch(`${base}/api/spec_from_file/`, { method: 'POST', headers: { authorization: `Bearer ${member}` }, body: form })
  if (imported.status !== 201) throw new Error(`argument attacks: import ${imported.status} ${await imported.text()}`)
  const execute = (operation: string, body: unknown, expected: number) => async () => {
    const answer = await call('POST', `/api/applications/stall-arguments/operations/${operation}/execute`, member, { arguments: { body }, dry_run: true })
    if (answer.status !== expected) throw new Error(`${operation}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`)
    if (JSON.stringify(answer.json).length > 64 * 1024) throw new Error(`${operation}: an error body of ${JSON.stringify(answer.json).length} characters`)
  }
  const objects = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, name: `name-${i}` }))
  return {
    'enum bomb: 700 wrong items of a 100,000-value enum (422)': execute(
      'tags',
      Array.from({ length: 700 }, (_, i) => `wrong-${i}`),
      422,
    ),
    'uniqueItems: 12,000 distinct objects (200)': execute('unique', objects(12_000), 200),
    'uniqueItems: 20,000 distinct objects (422 too complex)': execute('unique', objects(20_000), 422),
    'uniqueItems: 75,000 objects, 1 MiB (422 too complex)': execute(
      'unique',
      Array.from({ length: 75_000 }, (_, i) => ({ id: i })),
      422,
    ),
  }
}

const statusKib = (field: string): number => Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))?.[1])

/** measure() of `heavy`, with the server's peak RSS during it above its RSS before (MB). */
async function measureWithMemory(heavy: () => Promise<unknown>): Promise<Measured & { rssBeforeMb: number; peakAboveMb: number }> {
  const before = statusKib('VmRSS')
  // VmHWM from here: the peak of this run, not of the server's life so far.
  writeFileSync(`/proc/${server.pid}/clear_refs`, '5')
  const measured = await measure(heavy)
  return { ...measured, rssBeforeMb: Math.round(before / 1024), peakAboveMb: Math.round((statusKib('VmHWM') - before) / 1024) }
}

// ------------------------------------------------------------------ large JSON bodies (the 7 MiB template routes)
// Template bodies may be 7 MiB (a 1 MiB template, however its JSON escapes it). The worst JSON for the parser: 6 MB of
// `\u0001` escapes (decoding them held the event loop 40–130 ms when parsed on the request thread), millions of numbers
// or of empty objects in a field the route drops. Each body is refused after parsing (422: `html` too long or not a
// string), so nothing is stored; one loop sends the escapes without a token (401 before the body is read).

async function largeBodyAttacks(): Promise<Record<string, () => Promise<unknown>>> {
  const document = {
    openapi: '3.1.0',
    info: { title: 'Stall templates', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: { '/page': { get: { operationId: 'page', responses: { '200': { description: 'ok' } } } } },
  }
  const form = new FormData()
  form.append('file', new File([JSON.stringify(document)], 'templates.json', { type: 'application/json' }))
  form.append('api_name', 'stall-templates')
  const imported = await fetch(`${base}/api/spec_from_file/`, { method: 'POST', headers: { authorization: `Bearer ${member}` }, body: form })
  if (imported.status !== 201) throw new Error(`large bodies: import ${imported.status} ${await imported.text()}`)
  const path = `${base}/api/ui-templates/stall-templates/operations/page`
  const MiB = 1024 * 1024
  const send = (body: string, expected: number, token?: string) => async () => {
    const response = await fetch(path, {
      method: 'POST',
      headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
      body,
    })
    await response.arrayBuffer()
    if (response.status !== expected) throw new Error(`large body: ${response.status}, expected ${expected}`)
    return { status: response.status }
  }
  // A template of 1 MiB of U+0001 saved, to be changed to itself in a loop: a 200 whose answer echoes the HTML.
  const saved = JSON.stringify({ html: '\u0001'.repeat(MiB) })
  const created = await fetch(path, { method: 'POST', headers: { authorization: `Bearer ${member}`, 'content-type': 'application/json' }, body: saved })
  if (created.status !== 201) throw new Error(`large bodies: template ${created.status}`)
  const savedPath = `${base}/api/ui-templates/stall-templates/templates/${((await created.json()) as { id: string }).id}`
  const change = (body: string) => async () => {
    const response = await fetch(savedPath, { method: 'PUT', headers: { authorization: `Bearer ${member}`, 'content-type': 'application/json' }, body })
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`large body: ${response.status}, expected 200`)
    return { status: response.status }
  }
  const escapes = JSON.stringify({ html: '\u0001'.repeat(MiB + 1) })
  const numbers = `{"html":1,"a":[${'0,'.repeat(Math.floor((7 * MiB - 40) / 2) - 1)}0]}`
  const objects = `{"html":1,"a":[${'{},'.repeat(Math.floor((7 * MiB - 40) / 3) - 1)}{}]}`
  return {
    'large body: a template of 1 MiB + 1 byte of U+0001 (6 MiB of \\u0001 escapes; 422 after parsing)': send(escapes, 422, member),
    'large body: the same 6 MiB without a token (401)': send(escapes, 401),
    'large body: a saved template of 1 MiB of U+0001 changed to itself (PUT, 200: the answer echoes the HTML)': change(saved),
    'large body: 3.6M numbers in a dropped field (7 MiB; 422 after parsing)': send(numbers, 422, member),
    'large body: 2.4M empty objects in a dropped field (7 MiB; 422 after parsing)': send(objects, 422, member),
  }
}

console.log('')
console.log(
  '| large body looped by one member | /me req/s (vs none) | worst /api/health/live ms | peak RSS above before (before) MB | heavy requests done | last answer |',
)
console.log('|---|---|---|---|---|---|')
for (const [name, heavy] of Object.entries(await largeBodyAttacks())) {
  if (opts.only && !name.includes(opts.only)) continue
  const calm = await measure(null)
  const loaded = await measureWithMemory(heavy)
  console.log(
    `| ${name} | ${loaded.rps.toFixed(0)} (${((loaded.rps / calm.rps) * 100).toFixed(0)} % of ${calm.rps.toFixed(0)}) | ${loaded.worstLiveMs.toFixed(1)} (calm ${calm.worstLiveMs.toFixed(1)}) | ${loaded.peakAboveMb} (${loaded.rssBeforeMb}) | ${loaded.heavyRequests} | ${loaded.lastAnswer} |`,
  )
}

console.log('')
console.log(
  '| argument check looped by one member | first call ms | /me req/s (vs none) | worst /api/health/live ms | peak RSS above before (before) MB | heavy requests done | targets met |',
)
console.log('|---|---|---|---|---|---|---|')
for (const [name, heavy] of Object.entries(await argumentCheckAttacks())) {
  if (opts.only && !name.includes(opts.only)) continue
  // The operation's first call parses and indexes its schema (once per operation and revision): timed on its own.
  const started = performance.now()
  await heavy()
  const firstMs = performance.now() - started
  const calm = await measure(null)
  const loaded = await measureWithMemory(heavy)
  const met = loaded.worstLiveMs < 50 && loaded.peakAboveMb < 256
  console.log(
    `| ${name} | ${firstMs.toFixed(1)} | ${loaded.rps.toFixed(0)} (${((loaded.rps / calm.rps) * 100).toFixed(0)} % of ${calm.rps.toFixed(0)}) | ${loaded.worstLiveMs.toFixed(1)} (calm ${calm.worstLiveMs.toFixed(1)}) | ${loaded.peakAboveMb} (${loaded.rssBeforeMb}) | ${loaded.heavyRequests} | ${met ? 'yes' : 'no'} |`,
  )
}
process.exit(0)
