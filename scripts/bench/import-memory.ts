// Import memory benchmark (issue 26, item 2): the largest API description the server accepts (32 MiB) imported through
// POST /api/spec_from_file/, as JSON and as YAML, each by a fresh server: wall time, the server process's RSS before
// and its peak (VmHWM) during the import, and the longest answer of GET /api/health/live polled every 5 ms.
//
// The document is GitHub's REST description (@octokit/openapi, 13 MB, 1,223 operations) copied under path prefixes
// with renamed components until it reaches the limit: as many distinct schemas and operations as a real document of
// that size would have, not one schema referred to a million times.
//
//   bun scripts/bench/import-memory.ts [--binary dist/agentbox] [--json FILE] [--only json|yaml] [--documents DIR]
//
// --documents DIR keeps the generated documents there (large.json, large.yaml and their operation counts) and reuses
// them on the next run: making them takes minutes.
//
// Target: peak RSS under 400 MB for each. Correctness (exit 1): 201 with every operation.
import type { Subprocess } from 'bun'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { stringify } from 'yaml'
import { benchLicense } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: { binary: { type: 'string' }, json: { type: 'string' }, only: { type: 'string' }, documents: { type: 'string' } },
})
const ROOT = join(import.meta.dir, '..', '..')
const GITHUB = join(ROOT, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json')
const LIMIT = 32 * 1024 * 1024
/** Room for the multipart framing around the file. */
const MARGIN = 4096
const SETUP_TOKEN = 'bench-setup-token-0123456789abcdef'
const PASSWORD = 'a long enough bench password'
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

type Json = Record<string, any>

/** Copy `n` of GitHub's paths and components: paths under `/copy{n}`, components and operation ids suffixed. */
function copyOf(source: Json, n: number): { paths: Json; components: Json } {
  const text = JSON.stringify({ paths: source.paths, components: source.components }).replace(/"#\/components\/(\w+)\/([^"]+)"/g, `"#/components/$1/$2_c${n}"`)
  const copy = JSON.parse(text) as { paths: Json; components: Json }
  const paths: Json = {}
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const [method, operation] of Object.entries(item as Json))
      if (METHODS.has(method) && typeof (operation as Json).operationId === 'string') (operation as Json).operationId += `-c${n}`
    paths[`/copy${n}${path}`] = item
  }
  const components: Json = {}
  for (const [section, entries] of Object.entries(copy.components))
    components[section] =
      section === 'securitySchemes' ? entries : Object.fromEntries(Object.entries(entries as Json).map(([name, value]) => [`${name}_c${n}`, value]))
  return { paths, components }
}

/** The largest document of GitHub copies whose text (as `format`) stays under the upload limit. */
function largestDocument(format: 'json' | 'yaml'): { bytes: Uint8Array; operations: number } {
  const source = JSON.parse(readFileSync(GITHUB, 'utf8')) as Json
  const write = (document: Json) =>
    new TextEncoder().encode(format === 'json' ? JSON.stringify(document) : stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 }))
  const document: Json = { ...source, paths: {}, components: {} }
  let best: Uint8Array | null = null
  for (let n = 1; ; n++) {
    const copy = copyOf(source, n)
    Object.assign(document.paths, copy.paths)
    for (const [section, entries] of Object.entries(copy.components)) document.components[section] = { ...document.components[section], ...entries }
    const bytes = write(document)
    if (bytes.byteLength > LIMIT - MARGIN) {
      if (!best) throw new Error('one copy is already over the limit')
      // Remove this copy's paths one by one from the end until the document fits, keeping its components.
      const keys = Object.keys(copy.paths)
      let low = 0
      let high = keys.length
      let fitting = best
      while (low < high) {
        const middle = Math.ceil((low + high) / 2)
        const trial = { ...document, paths: { ...document.paths } }
        for (const key of keys.slice(middle)) delete trial.paths[key]
        const text = write(trial)
        if (text.byteLength <= LIMIT - MARGIN) {
          low = middle
          fitting = text
        } else high = middle - 1
      }
      for (const key of keys.slice(low)) delete document.paths[key]
      return { bytes: fitting, operations: countOperations(document) }
    }
    best = bytes
  }
}

function countOperations(document: Json): number {
  let count = 0
  for (const item of Object.values(document.paths as Json)) for (const key of Object.keys(item as Json)) if (METHODS.has(key)) count++
  return count
}

/** The document of `format`, from --documents when it was made before, else made (and kept there when asked). */
function keptDocument(format: 'json' | 'yaml'): { bytes: Uint8Array; operations: number } {
  if (!opts.documents) return largestDocument(format)
  const file = join(opts.documents, `large.${format}`)
  if (existsSync(file) && existsSync(`${file}.operations`))
    return { bytes: new Uint8Array(readFileSync(file)), operations: Number(readFileSync(`${file}.operations`, 'utf8')) }
  const made = largestDocument(format)
  mkdirSync(opts.documents, { recursive: true })
  writeFileSync(file, made.bytes)
  writeFileSync(`${file}.operations`, String(made.operations))
  return made
}

const statusKib = (pid: number, field: string): number => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))?.[1])

async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function importWithFreshServer(name: string, bytes: Uint8Array, operations: number) {
  const dir = mkdtempSync(join(tmpdir(), 'agentbox-bench-import-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const command = opts.binary ? [opts.binary] : [process.execPath, join(ROOT, 'src', 'main.ts')]
  const server: Subprocess = Bun.spawn([...command, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', join(dir, 'data')], {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  try {
    for (let i = 0; ; i++) {
      if (
        await fetch(`${base}/api/health/live`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break
      if (i > 400) throw new Error('server did not start')
      await Bun.sleep(50)
    }
    const post = async (path: string, token: string, body: unknown) => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return res.json() as Promise<any>
    }
    await post('/api/tenant/setup', SETUP_TOKEN, {
      license_token: benchLicense(),
      admin_email: 'admin@example.com',
      admin_name: 'Ada Admin',
      admin_password: PASSWORD,
    })
    const { access_token: token } = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@example.com', password: PASSWORD }),
    }).then((r) => r.json() as Promise<any>)
    await Bun.sleep(500)
    const rssBefore = statusKib(server.pid, 'VmRSS')
    // VmHWM from here on: the peak of this import, not of the server's start.
    writeFileSync(`/proc/${server.pid}/clear_refs`, '5')
    let polling = true
    let worstPoll = 0
    const poller = (async () => {
      while (polling) {
        const started = performance.now()
        await fetch(`${base}/api/health/live`).then((r) => r.arrayBuffer())
        worstPoll = Math.max(worstPoll, performance.now() - started)
        await Bun.sleep(5)
      }
    })()
    const form = new FormData()
    form.append('file', new File([bytes as Uint8Array<ArrayBuffer>], name))
    form.append('api_name', 'large')
    const started = performance.now()
    const res = await fetch(`${base}/api/spec_from_file/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form })
    const answer = (await res.json()) as any
    const wallMs = performance.now() - started
    polling = false
    await poller
    const peakKib = statusKib(server.pid, 'VmHWM')
    if (res.status !== 201) throw new Error(`${name}: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`)
    if (answer.operations_count !== operations) throw new Error(`${name}: imported ${answer.operations_count} operations of ${operations}`)
    return {
      document: name,
      document_mib: Math.round((bytes.byteLength / 1024 / 1024) * 10) / 10,
      operations,
      wall_ms: Math.round(wallMs),
      rss_before_mb: Math.round(rssBefore / 1024),
      peak_rss_mb: Math.round(peakKib / 1024),
      peak_above_before_mb: Math.round((peakKib - rssBefore) / 1024),
      worst_live_ms: Math.round(worstPoll * 10) / 10,
    }
  } finally {
    server.kill('SIGKILL')
    await server.exited
    rmSync(dir, { recursive: true, force: true })
  }
}

const results = []
for (const format of ['json', 'yaml'] as const) {
  if (opts.only && opts.only !== format) continue
  const { bytes, operations } = keptDocument(format)
  results.push(await importWithFreshServer(`large.${format}`, bytes, operations))
}
const report = {
  machine: `${process.platform} ${process.arch}, ${navigator.hardwareConcurrency} cores`,
  server: opts.binary ? 'compiled binary' : 'bun src/main.ts',
  date: new Date().toISOString(),
  target: 'peak RSS < 400 MB',
  results,
}
console.log(JSON.stringify(report, null, 2))
if (opts.json) writeFileSync(opts.json, JSON.stringify(report, null, 2))
process.exit(results.every((result) => result.peak_rss_mb < 400) ? 0 : 1)
