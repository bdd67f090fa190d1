// UI template sync against a large repository (issue 28): push and pull of one template in a repository of 5,000 files
// and 1,000 commits, against the git CLI doing the same in a working copy, in the same run. Also the longest
// event-loop stall of the server while it syncs, and its peak RSS above idle (the git worker included).
//
// The git server is `git http-backend` behind a small Basic-auth bridge in a child process (this file run with
// --serve-git), so its buffers do not count in the server's RSS. Needs Debian's `git`.
//
//   npx bun scripts/bench/ui-templates-git.ts [--rounds 5] [--files 5000] [--commits 1000]
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { intOption, median, startBenchServer } from './lib.ts'

const BACKEND = '/usr/lib/git-core/git-http-backend'
const USER = 'bench'
const TOKEN = 'bench-token-0123456789'

async function run(args: string[], options: { cwd?: string; input?: string } = {}): Promise<string> {
  const proc = Bun.spawn(['git', ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.cwd ?? tmpdir(),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Bench',
      GIT_AUTHOR_EMAIL: 'bench@example.com',
      GIT_COMMITTER_NAME: 'Bench',
      GIT_COMMITTER_EMAIL: 'bench@example.com',
    },
    stdin: options.input === undefined ? 'ignore' : new Blob([options.input]),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`git ${args.join(' ')}: ${err}`)
  return out
}

/** The child: serves the bare repositories under `root` with git http-backend, Basic auth required. */
async function serveGit(root: string): Promise<void> {
  const expected = `Basic ${Buffer.from(`${USER}:${TOKEN}`).toString('base64')}`
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      if (request.headers.get('authorization') !== expected) return new Response('', { status: 401, headers: { 'www-authenticate': 'Basic realm="git"' } })
      const url = new URL(request.url)
      const body = request.method === 'POST' ? new Uint8Array(await request.arrayBuffer()) : undefined
      const proc = Bun.spawn([BACKEND], {
        env: {
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: '1',
          GIT_CONFIG_NOSYSTEM: '1',
          REMOTE_USER: USER,
          REQUEST_METHOD: request.method,
          PATH_INFO: url.pathname,
          QUERY_STRING: url.search.slice(1),
          CONTENT_TYPE: request.headers.get('content-type') ?? '',
          ...(body && { CONTENT_LENGTH: String(body.byteLength) }),
        },
        stdin: body ? new Blob([body]) : 'ignore',
        stdout: 'pipe',
        stderr: 'ignore',
      })
      const output = Buffer.from(await new Response(proc.stdout).arrayBuffer())
      await proc.exited
      const end = output.indexOf('\r\n\r\n')
      const headers = new Headers()
      let status = 200
      for (const line of output.subarray(0, end).toString().split('\r\n')) {
        const colon = line.indexOf(':')
        if (colon < 0) continue
        const name = line.slice(0, colon)
        if (name.toLowerCase() === 'status') status = Number.parseInt(line.slice(colon + 1), 10)
        else headers.append(name, line.slice(colon + 1).trim())
      }
      return new Response(output.subarray(end + 4), { status, headers })
    },
  })
  console.log(`PORT ${server.port}`)
}

async function seed(bare: string, files: number, commits: number): Promise<void> {
  await run(['init', '--bare', '--quiet', '--initial-branch=main', bare])
  await run(['config', 'http.receivepack', 'true'], { cwd: bare })
  const lines: string[] = []
  const perCommit = Math.ceil(files / commits)
  let written = 0
  for (let c = 0; c < commits; c++) {
    lines.push('commit refs/heads/main', `committer Seeder <seed@example.com> ${1_700_000_000 + c} +0000`, `data ${`seed ${c}`.length}`, `seed ${c}`)
    const batch = written < files ? Math.min(perCommit, files - written) : 0
    for (let i = 0; i < batch; i++, written++) {
      const body = `file ${written}\n${'x'.repeat(200 + (written % 400))}\n`
      lines.push(`M 100644 inline src/module-${Math.floor(written / 100)}/file-${written}.txt`, `data ${Buffer.byteLength(body)}`, body)
    }
    if (batch === 0) {
      const body = `file ${c % files} changed in ${c}\n`
      lines.push(`M 100644 inline src/module-${Math.floor((c % files) / 100)}/file-${c % files}.txt`, `data ${Buffer.byteLength(body)}`, body)
    }
  }
  lines.push('')
  await run(['fast-import', '--quiet'], { cwd: bare, input: lines.join('\n') })
  await run(['repack', '-a', '-d', '--quiet'], { cwd: bare })
}

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024

/** Runs `work` while sampling the event loop's longest stall (a 1 ms timer's lateness) and the peak RSS. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; stallMs: number; peakMb: number }> {
  let last = performance.now()
  let stall = 0
  let peak = rssMb()
  const timer = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last - 1)
    last = now
    peak = Math.max(peak, rssMb())
  }, 1)
  const started = performance.now()
  const value = await work()
  const ms = performance.now() - started
  clearInterval(timer)
  return { value, ms, stallMs: stall, peakMb: Math.max(peak, rssMb()) }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  if (args[0] === '--serve-git') return serveGit(args[1]!)
  const option = (name: string, fallback: number, min = 1) => {
    const at = args.indexOf(name)
    return at >= 0 ? intOption(args[at + 1] ?? '', name, min) : fallback
  }
  const rounds = option('--rounds', 5)
  const files = option('--files', 5000)
  const commits = option('--commits', 1000)
  if (!Bun.which('git')) {
    console.error('git is needed (apt-get install git)')
    process.exit(2)
  }

  const root = mkdtempSync(join(tmpdir(), 'agentbox-bench-git-'))
  process.on('exit', () => rmSync(root, { recursive: true, force: true }))
  const seeded = performance.now()
  await seed(join(root, 'large.git'), files, commits)
  console.log(`seeded ${files} files in ${commits} commits in ${Math.round(performance.now() - seeded)} ms`)
  const child = Bun.spawn([process.execPath, import.meta.path, '--serve-git', root], { stdout: 'pipe', stderr: 'inherit' })
  process.on('exit', () => child.kill())
  const reader = child.stdout.getReader()
  let banner = ''
  while (!banner.includes('\n')) banner += new TextDecoder().decode((await reader.read()).value)
  const port = Number(/PORT (\d+)/.exec(banner)?.[1])
  const url = `http://127.0.0.1:${port}/large.git`

  const bench = await startBenchServer('ui-templates-git', { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' })
  const { call, token } = bench
  const spec = {
    openapi: '3.1.0',
    info: { title: 'Bench', version: '1' },
    servers: [{ url: 'https://api.example.com' }],
    paths: { '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'ok' } } } } },
  }
  // A working copy for the CLI baseline and for "someone else's" changes before each pull.
  const copy = join(root, 'copy')
  mkdirSync(copy)
  const remote = url.replace('http://', `http://${USER}:${TOKEN}@`)
  await run(['clone', '--quiet', remote, copy])

  Bun.gc(true)
  const idleMb = rssMb()
  const rows: Record<string, { ms: number[]; stall: number[]; peak: number[] }> = {}
  const record = (name: string, m: { ms: number; stallMs: number; peakMb: number }) => {
    rows[name] ??= { ms: [], stall: [], peak: [] }
    rows[name].ms.push(m.ms)
    rows[name].stall.push(m.stallMs)
    rows[name].peak.push(m.peakMb - idleMb)
  }

  for (let round = 0; round < rounds; round++) {
    const apiName = `bench-${round}`
    const form = new FormData()
    form.append('file', new File([JSON.stringify(spec)], 'spec.json', { type: 'application/json' }))
    form.append('api_name', apiName)
    const encoded = new Response(form)
    const type = encoded.headers.get('content-type')!
    const bytes = await encoded.arrayBuffer()
    await call('POST', '/api/spec_from_file/', token, undefined, bytes, { 'content-type': type, 'content-length': String(bytes.byteLength) })
    const template = await call('POST', `/api/ui-templates/${apiName}/operations/listThings`, token, {
      html: `<!doctype html><p>round ${round}</p>\n`,
      is_default: true,
    })
    await call('PUT', `/api/ui-templates/vcs/${apiName}`, token, { repo_url: url, username: USER, token: TOKEN })
    const sync = (direction: string) => call('POST', `/api/ui-templates/vcs/sync/${apiName}/${template.id}`, token, { direction })

    // Cold: the first sync makes the clone (a shallow fetch of the head: every file's blob).
    const cold = await measured(() => sync('push'))
    if (!cold.value.success) throw new Error(`cold push: ${JSON.stringify(cold.value)}`)
    record('push, first (shallow clone)', cold)
    for (let i = 0; i < 3; i++) {
      await call('PUT', `/api/ui-templates/${apiName}/templates/${template.id}`, token, { html: `<!doctype html><p>round ${round} edit ${i}</p>\n` })
      const push = await measured(() => sync('push'))
      if (!push.value.success) throw new Error(`push: ${JSON.stringify(push.value)}`)
      record('push, one template', push)

      await run(['pull', '--quiet', '--ff-only'], { cwd: copy })
      const path = join(copy, 'agentbox', apiName, 'listThings', `${template.id}.html`)
      await Bun.write(path, `<!doctype html><p>round ${round} designer ${i}</p>\n`)
      await run(['commit', '--quiet', '-am', `designer ${round}.${i}`], { cwd: copy })
      await run(['push', '--quiet', 'origin', 'main'], { cwd: copy })
      const pull = await measured(() => sync('pull'))
      if (!pull.value.success) throw new Error(`pull: ${JSON.stringify(pull.value)}`)
      record('pull, one template', pull)

      // Baseline: the git CLI doing the same in its warm working copy (commit + push of one file; pull of one file).
      await Bun.write(join(copy, 'baseline.txt'), `baseline ${round}.${i}\n`)
      await run(['add', 'baseline.txt'], { cwd: copy })
      record(
        'git CLI: commit + push',
        await measured(() =>
          run(['commit', '--quiet', '-m', `cli ${round}.${i}`], { cwd: copy }).then(() => run(['push', '--quiet', 'origin', 'main'], { cwd: copy })),
        ),
      )
      await call('PUT', `/api/ui-templates/${apiName}/templates/${template.id}`, token, { html: `<!doctype html><p>round ${round} ours ${i}</p>\n` })
      await sync('push')
      record('git CLI: pull', await measured(() => run(['pull', '--quiet', '--ff-only'], { cwd: copy })))
    }
  }

  const fmt = (xs: number[]) => `${median(xs).toFixed(0)} [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`
  const cliPush = median(rows['git CLI: commit + push']!.ms)
  const cliPull = median(rows['git CLI: pull']!.ms)
  console.log(`\n${files} files, ${commits} commits; ${rounds} rounds (3 warm syncs each); idle RSS ${idleMb.toFixed(0)} MB\n`)
  console.log('| operation | ms, median [min–max] | vs git CLI | longest stall, ms | peak RSS − idle, MB |')
  console.log('|---|---|---|---|---|')
  for (const [name, row] of Object.entries(rows)) {
    const base = name.includes('pull') ? cliPull : cliPush
    console.log(`| ${name} | ${fmt(row.ms)} | ${(median(row.ms) / base).toFixed(2)}× | ${fmt(row.stall)} | ${fmt(row.peak)} |`)
  }
  const worstPeak = Math.max(...Object.values(rows).flatMap((row) => row.peak))
  const warm = [...rows['push, one template']!.ms, ...rows['pull, one template']!.ms]
  console.log(
    `\ntargets: warm push/pull < 1 s (median ${median(warm).toFixed(0)} ms, worst ${Math.max(...warm).toFixed(0)} ms); peak RSS < 100 MB above idle (worst ${worstPeak.toFixed(0)} MB)`,
  )
  await bench.server.stop?.()
  child.kill()
  process.exit(0)
}

await main()
