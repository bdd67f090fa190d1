// Bundles benchmark (issue 31): export and import of an agent with 100 skills, 50 workflows and an application of
// 1,000 operations, against two real server processes (the source and a fresh target), over HTTP.
//
// For each of export (GET /api/agents/{name}/export) and import (POST /api/agents/import: the first one creates the
// application, later ones reuse it): wall time (median of --runs), the server's peak RSS above its RSS just before
// (VmHWM, reset through /proc/PID/clear_refs before each operation), and the longest wait of a /api/health/live poll
// sent every 2 ms during the operation (the event loop's longest stall, as a client sees it).
//
// Baselines in the same run, on the same servers: export against GET /api/applications/{api}/document (the
// application's document alone); import against POST /api/spec_from_file/ of the same document (what the bundle's
// application costs on its own).
//
//   bun scripts/bench/bundles.ts [--runs 5] [--binary dist/agentbox] [--json FILE]
//
// Targets: export and import each under 1 s and under 100 MB above the RSS before. Correctness is checked (exit 1):
// the bundle holds every file, the import answers 201 with every skill and workflow.
import type { Subprocess } from 'bun'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { benchLicense, intOption, median } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: { runs: { type: 'string', default: '5' }, binary: { type: 'string' }, json: { type: 'string' } },
})
const RUNS = intOption(opts.runs!, '--runs')
const ROOT = join(import.meta.dir, '..', '..')
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'
const SKILLS = 100
const WORKFLOWS = 50
const OPERATIONS = 1000

const children = new Set<Subprocess>()
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})
const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-bundles-'))
const statusKib = (pid: number, field: string): number => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))?.[1])
/** Resets the peak RSS (VmHWM) to the current RSS, so each operation's peak is its own. */
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5')

async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

interface Instance {
  base: string
  pid: number
  token: string
}

async function launch(name: string): Promise<Instance> {
  const port = await freePort()
  const command = opts.binary ? [opts.binary] : [process.execPath, join(ROOT, 'src', 'main.ts')]
  const server = Bun.spawn([...command, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, name)], {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  children.add(server)
  const base = `http://127.0.0.1:${port}`
  for (const deadline = performance.now() + 20_000; ; await Bun.sleep(10)) {
    if (
      await fetch(`${base}/api/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break
    if (performance.now() > deadline) throw new Error(`${name} did not start`)
  }
  await json('POST', `${base}/api/tenant/setup`, SETUP_TOKEN, {
    license_token: benchLicense(),
    admin_email: 'admin@example.com',
    admin_name: 'Ada Admin',
    admin_password: PASSWORD,
  })
  const { access_token } = await json('POST', `${base}/api/auth/login`, '', { email: 'admin@example.com', password: PASSWORD })
  return { base, pid: server.pid, token: access_token }
}

async function json(method: string, url: string, token: string, body?: unknown, form?: FormData): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(url, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)) })
  const parsed = await res.json()
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed).slice(0, 400)}`)
  return parsed
}

/** An OpenAPI 3.1 document of `count` operations (a GET and a POST per path), each with parameters, a body and an example. */
function bigDocument(count: number) {
  const paths: Record<string, unknown> = {}
  for (let i = 0; i < count / 2; i++) {
    const item = { $ref: '#/components/schemas/Item' }
    paths[`/resources${i}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: `getResource${i}`,
        summary: `Read resource ${i}`,
        parameters: [{ name: 'expand', in: 'query', schema: { type: 'array', items: { type: 'string' } } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: item, example: { id: 'r1', name: `resource ${i}` } } } } },
      },
      post: {
        operationId: `updateResource${i}`,
        summary: `Change resource ${i}`,
        requestBody: { required: true, content: { 'application/json': { schema: item } } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: item } } } },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Bench Large API', version: '1.0.0', description: 'A thousand operations' },
    servers: [{ url: 'https://large.example.com' }],
    paths,
    components: {
      schemas: {
        Item: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
            owner: { type: 'string', format: 'email' },
          },
        },
      },
    },
  }
}

const skill = (i: number) =>
  [
    '---',
    `name: skill-${i}`,
    `description: Skill number ${i}. Use it when the task is about topic ${i}.`,
    '---',
    `# Skill ${i}`,
    '',
    ...Array.from({ length: 40 }, (_, line) => `${line + 1}. A step of skill ${i} that explains what to do and why, in a sentence of some length.`),
    '',
  ].join('\n')

const workflow = (i: number) => ({
  nodes: [
    { id: 'prepare', type: 'agentbox.set', params: { values: { amount: '{{ $json.amount ?? 0 }}', case: `case-${i}` } } },
    { id: 'check', type: 'agentbox.if', params: { conditions: [{ left: '{{ $json.amount }}', operator: 'gt', right: 100 }] } },
    { id: 'gate', type: 'agentbox.approval', params: { message: `Approve case ${i}: {{ $json.amount }}?` } },
    { id: 'yes', type: 'agentbox.output', params: { value: { decision: 'approved' } } },
    { id: 'no', type: 'agentbox.output', params: { value: { decision: 'rejected' } } },
    { id: 'small', type: 'agentbox.output', params: { value: { decision: 'automatic' } } },
  ],
  connections: [
    { from: 'prepare', to: 'check' },
    { from: 'check', port: 'true', to: 'gate' },
    { from: 'check', port: 'false', to: 'small' },
    { from: 'gate', port: 'approved', to: 'yes' },
    { from: 'gate', port: 'rejected', to: 'no' },
  ],
})

/** Runs `work` while polling /live every 2 ms; returns its time, the peak RSS above the RSS before (MB) and the longest poll (ms). */
async function measured<T>(instance: Instance, work: () => Promise<T>): Promise<{ result: T; ms: number; peakMb: number; stallMs: number }> {
  Bun.gc(true)
  await Bun.sleep(50)
  resetPeak(instance.pid)
  const before = statusKib(instance.pid, 'VmRSS')
  let polling = true
  let stallMs = 0
  const poller = (async () => {
    while (polling) {
      const started = performance.now()
      await fetch(`${instance.base}/api/health/live`).then((r) => r.arrayBuffer())
      stallMs = Math.max(stallMs, performance.now() - started)
      await Bun.sleep(2)
    }
  })()
  const started = performance.now()
  const result = await work()
  const ms = performance.now() - started
  polling = false
  await poller
  return { result, ms, peakMb: (statusKib(instance.pid, 'VmHWM') - before) / 1024, stallMs }
}

const source = await launch('source')
const target = await launch('target')
const documentBytes = new TextEncoder().encode(JSON.stringify(bigDocument(OPERATIONS)))
const uploadForm = (bytes: Uint8Array, name: string, fields: Record<string, string> = {}) => {
  const form = new FormData()
  form.append('file', new File([bytes as Uint8Array<ArrayBuffer>], name))
  for (const [key, value] of Object.entries(fields)) form.append(key, value)
  return form
}

// The agent on the source server.
const setupStarted = performance.now()
await json('POST', `${source.base}/api/agents`, source.token, { name: 'big-agent', description: 'A large agent', instructions: 'Do everything.' })
const app = await json(
  'POST',
  `${source.base}/api/spec_from_file/`,
  source.token,
  undefined,
  uploadForm(documentBytes, 'large.json', { api_name: 'large-api' }),
)
if (app.operations_count !== OPERATIONS) throw new Error(`the application has ${app.operations_count} operations`)
for (let i = 0; i < SKILLS; i++) await json('POST', `${source.base}/api/agents/big-agent/skills`, source.token, { content: skill(i) })
for (let i = 0; i < WORKFLOWS; i++) await json('POST', `${source.base}/api/workflows/big-agent`, source.token, { name: `flow-${i}`, definition: workflow(i) })
await json('PATCH', `${source.base}/api/agents/big-agent`, source.token, { applications: [{ api_name: 'large-api' }] })
await json('POST', `${source.base}/api/agents/big-agent/publish`, source.token, {})
console.error(`set up in ${Math.round(performance.now() - setupStarted)} ms`)

// ------------------------------------------------------------------------------------------------ export

const exportOnce = async () => {
  const res = await fetch(`${source.base}/api/agents/big-agent/export`, { headers: { authorization: `Bearer ${source.token}` } })
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`)
  return new Uint8Array(await res.arrayBuffer())
}
const documentOnce = async () => {
  const res = await fetch(`${source.base}/api/applications/large-api/document`, { headers: { authorization: `Bearer ${source.token}` } })
  return new Uint8Array(await res.arrayBuffer())
}
const exports = []
const documents = []
for (let i = 0; i < RUNS; i++) {
  exports.push(await measured(source, exportOnce))
  documents.push(await measured(source, documentOnce))
}
const bundle = exports[0]!.result
const { unzipSync } = await import('fflate')
const files = Object.keys(unzipSync(bundle))
if (files.length !== SKILLS + WORKFLOWS + 3) throw new Error(`the bundle holds ${files.length} files`)

// ------------------------------------------------------------------------------------------------ import

const importOnce = (name: string) => async () => {
  const form = uploadForm(bundle, 'big-agent.zip', { name })
  const agent = await json('POST', `${target.base}/api/agents/import`, target.token, undefined, form)
  if (agent.imported.skills.length !== SKILLS || agent.imported.workflows.length !== WORKFLOWS) throw new Error('import lost parts')
  return agent.imported.applications[0].action as string
}
const specOnce = (name: string) => async () =>
  json('POST', `${target.base}/api/spec_from_file/`, target.token, undefined, uploadForm(documentBytes, 'large.json', { api_name: name }))
// The first import starts the applications' import worker (cold); the next ones each create the application again
// (the agent and the application are deleted between runs) with the worker warm, then each reuses it.
const coldImport = await measured(target, importOnce('cold'))
if (coldImport.result !== 'create') throw new Error('the first import did not create the application')
const removeCopy = async (agent: string) => {
  await fetch(`${target.base}/api/agents/${agent}`, { method: 'DELETE', headers: { authorization: `Bearer ${target.token}` } })
  await fetch(`${target.base}/api/applications/large-api`, { method: 'DELETE', headers: { authorization: `Bearer ${target.token}` } })
}
await removeCopy('cold')
const creating = []
const reusing = []
const specs = []
for (let i = 1; i <= RUNS; i++) {
  const created = await measured(target, importOnce(`created-${i}`))
  if (created.result !== 'create') throw new Error('the import did not create the application')
  creating.push(created)
  specs.push(await measured(target, specOnce(`spec-copy-${i}`)))
  reusing.push(await measured(target, importOnce(`reused-${i}`)))
  await removeCopy(`created-${i}`)
  await fetch(`${target.base}/api/agents/reused-${i}`, { method: 'DELETE', headers: { authorization: `Bearer ${target.token}` } })
}

const summary = (runs: { ms: number; peakMb: number; stallMs: number }[]) => ({
  median_ms: Math.round(median(runs.map((r) => r.ms))),
  stalls_ms: runs.map((r) => Math.round(r.stallMs)),
  max_peak_mb: Math.round(Math.max(...runs.map((r) => r.peakMb)) * 10) / 10,
  max_stall_ms: Math.round(Math.max(...runs.map((r) => r.stallMs)) * 10) / 10,
})
const report = {
  date: new Date().toISOString(),
  runs: RUNS,
  agent: { skills: SKILLS, workflows: WORKFLOWS, operations: OPERATIONS, document_bytes: documentBytes.byteLength },
  bundle: { bytes: bundle.byteLength, files: files.length },
  export: summary(exports),
  baseline_document_download: summary(documents),
  import_cold_worker: summary([coldImport]),
  import_creating_application: summary(creating),
  import_reusing_application: summary(reusing),
  baseline_spec_upload: summary(specs),
}
console.log(JSON.stringify(report, null, 2))
if (opts.json) writeFileSync(opts.json, JSON.stringify(report, null, 2))
const over = [report.export, report.import_creating_application, report.import_reusing_application].some((r) => r.median_ms > 1000 || r.max_peak_mb > 100)
if (over) console.error('target missed: export and import should each take under 1 s and 100 MB above the RSS before')
process.exit(0)
