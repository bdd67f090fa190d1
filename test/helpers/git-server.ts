// A real git smart-HTTP server on 127.0.0.1 for tests and benches: the system's `git http-backend` (Debian's `git`
// package) behind a small Bun HTTP bridge that checks HTTP Basic credentials, plus a second working copy driven by the
// git CLI to make concurrent and conflicting changes. Every git process is spawned asynchronously: a test that runs
// the server in the same process must never block the event loop on a child (Bun.spawnSync would deadlock it).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeAtEnd } from './remove-at-end.ts'

export const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend'
/** False where the `git` package is missing: tests that need a real git server skip with a message. */
export const HAS_GIT = existsSync(GIT_HTTP_BACKEND) && Bun.which('git') !== null

export interface GitServerOptions {
  readonly username?: string
  readonly token?: string
}

export interface GitServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly username: string
  readonly token: string
  /** Where the bare repositories live. */
  readonly root: string
  /** The URL of repository `name` (`<origin>/<name>.git`). */
  url(name: string): string
  /** Creates an empty bare repository whose HEAD names `branch`; pushes are accepted. */
  createRepository(name: string, branch?: string): Promise<string>
  /**
   * Runs once before the next push is handed to git (then forgotten): what someone else does between a client's fetch
   * and its push, so that the push is rejected as not a fast-forward.
   */
  beforeNextPush: (() => Promise<void>) | null
  /** Every request the bridge answered, in order: method, path (with query), status, and whether it carried a credential. */
  readonly requests: { method: string; path: string; status: number; authorized: boolean; authorization: string | null }[]
  stop(): Promise<void>
}

export interface RunResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs git (asynchronously) with a neutral identity and no user or system configuration. */
export async function git(
  args: readonly string[],
  options: { cwd?: string; input?: string | Uint8Array; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const proc = Bun.spawn(['git', ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: options.cwd ?? tmpdir(),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Other Designer',
      GIT_AUTHOR_EMAIL: 'designer@example.com',
      GIT_COMMITTER_NAME: 'Other Designer',
      GIT_COMMITTER_EMAIL: 'designer@example.com',
      GIT_TERMINAL_PROMPT: '0',
      ...options.env,
    },
    stdin: options.input === undefined ? 'ignore' : new Blob([options.input as string | Uint8Array<ArrayBuffer>]),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

/** Like `git`, but a non-zero exit throws with git's own words. */
export async function gitOk(args: readonly string[], options: Parameters<typeof git>[1] = {}): Promise<string> {
  const result = await git(args, options)
  if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`)
  return result.stdout
}

function checkBasic(header: string | null, username: string, token: string): boolean {
  if (!header?.startsWith('Basic ')) return false
  const decoded = Buffer.from(header.slice(6), 'base64').toString()
  const colon = decoded.indexOf(':')
  return colon >= 0 && decoded.slice(0, colon) === username && decoded.slice(colon + 1) === token
}

/** Splits a CGI answer: the header block (up to the blank line) and the body after it. */
function splitCgi(output: Uint8Array): { status: number; headers: Headers; body: Uint8Array } {
  const text = Buffer.from(output.buffer, output.byteOffset, output.byteLength)
  let end = text.indexOf('\r\n\r\n')
  let skip = 4
  if (end < 0) {
    end = text.indexOf('\n\n')
    skip = 2
  }
  if (end < 0) return { status: 502, headers: new Headers(), body: output }
  const headers = new Headers()
  let status = 200
  for (const line of text.subarray(0, end).toString().split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon < 0) continue
    const name = line.slice(0, colon).trim()
    const value = line.slice(colon + 1).trim()
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10)
    else headers.append(name, value)
  }
  return { status, headers, body: output.subarray(end + skip) }
}

export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const username = options.username ?? 'agentbox'
  const token = options.token ?? `tok_${crypto.randomUUID().replaceAll('-', '')}`
  const root = mkdtempSync(join(tmpdir(), 'agentbox-git-server-'))
  const requests: GitServer['requests'] = []
  const control: { beforeNextPush: (() => Promise<void>) | null } = { beforeNextPush: null }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      const authorization = request.headers.get('authorization')
      const authorized = checkBasic(authorization, username, token)
      const record = (status: number) => requests.push({ method: request.method, path: url.pathname + url.search, status, authorized, authorization })
      if (!authorized) {
        record(401)
        return new Response('Authentication required\n', { status: 401, headers: { 'www-authenticate': 'Basic realm="git"' } })
      }
      const body = request.method === 'POST' ? new Uint8Array(await request.arrayBuffer()) : undefined
      if (request.method === 'POST' && url.pathname.endsWith('/git-receive-pack') && control.beforeNextPush) {
        const hook = control.beforeNextPush
        control.beforeNextPush = null
        await hook()
      }
      const proc = Bun.spawn([GIT_HTTP_BACKEND], {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: '1',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          REMOTE_USER: username,
          REMOTE_ADDR: '127.0.0.1',
          REQUEST_METHOD: request.method,
          PATH_INFO: decodeURIComponent(url.pathname),
          QUERY_STRING: url.search.slice(1),
          CONTENT_TYPE: request.headers.get('content-type') ?? '',
          ...(body && { CONTENT_LENGTH: String(body.byteLength) }),
          ...(request.headers.get('content-encoding') && { HTTP_CONTENT_ENCODING: request.headers.get('content-encoding')! }),
          ...(request.headers.get('git-protocol') && { GIT_PROTOCOL: request.headers.get('git-protocol')! }),
        },
        stdin: body ? new Blob([body]) : 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [output, , code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited])
      const answer = code === 0 || output.byteLength > 0 ? splitCgi(output) : { status: 500, headers: new Headers(), body: new Uint8Array() }
      record(answer.status)
      return new Response(answer.body as Uint8Array<ArrayBuffer>, { status: answer.status, headers: answer.headers })
    },
  })
  const origin = `http://127.0.0.1:${server.port}`
  return {
    get beforeNextPush() {
      return control.beforeNextPush
    },
    set beforeNextPush(hook) {
      control.beforeNextPush = hook
    },
    origin,
    username,
    token,
    root,
    requests,
    url: (name) => `${origin}/${name}.git`,
    async createRepository(name, branch = 'main') {
      const path = join(root, `${name}.git`)
      mkdirSync(path, { recursive: true })
      await gitOk(['init', '--bare', '--quiet', `--initial-branch=${branch}`, path])
      await gitOk(['config', 'http.receivepack', 'true'], { cwd: path })
      return path
    },
    async stop() {
      await server.stop(true)
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** A second working copy of a repository on the server, driven by the git CLI: what another person does meanwhile. */
export class WorkingCopy {
  private constructor(
    readonly dir: string,
    private readonly remote: string,
    private readonly branch: string,
  ) {}

  /** Clones `url` (or initialises an empty copy of an empty repository) with the server's credentials in the remote URL. */
  static async clone(server: GitServer, name: string, branch = 'main'): Promise<WorkingCopy> {
    const dir = mkdtempSync(join(tmpdir(), 'agentbox-git-copy-'))
    removeAtEnd(dir)
    const remote = server.url(name).replace('http://', `http://${server.username}:${server.token}@`)
    await gitOk(['init', '--quiet', `--initial-branch=${branch}`, dir])
    await gitOk(['remote', 'add', 'origin', remote], { cwd: dir })
    const copy = new WorkingCopy(dir, remote, branch)
    await copy.pull()
    return copy
  }

  /** Fetches and moves to the remote branch's head (discarding nothing: the copy has no local work between steps). */
  async pull(): Promise<void> {
    const fetched = await git(['fetch', '--quiet', 'origin'], { cwd: this.dir })
    if (fetched.code !== 0) throw new Error(`git fetch: ${fetched.stderr.trim()}`)
    const head = await git(['rev-parse', '--verify', '--quiet', `origin/${this.branch}`], { cwd: this.dir })
    if (head.code === 0) await gitOk(['reset', '--quiet', '--hard', `origin/${this.branch}`], { cwd: this.dir })
  }

  async write(path: string, content: string): Promise<void> {
    const full = join(this.dir, path)
    mkdirSync(join(full, '..'), { recursive: true })
    await Bun.write(full, content)
  }

  async read(path: string): Promise<string> {
    return Bun.file(join(this.dir, path)).text()
  }

  exists(path: string): boolean {
    return existsSync(join(this.dir, path))
  }

  async remove(path: string): Promise<void> {
    await gitOk(['rm', '--quiet', path], { cwd: this.dir })
  }

  /** Commits everything and returns the new commit's sha. */
  async commit(message: string): Promise<string> {
    await gitOk(['add', '--all'], { cwd: this.dir })
    await gitOk(['commit', '--quiet', '--allow-empty', '-m', message], { cwd: this.dir })
    return (await gitOk(['rev-parse', 'HEAD'], { cwd: this.dir })).trim()
  }

  /** Pushes the branch; answers git's exit code and words (a rejected push is not an exception). */
  push(): Promise<RunResult> {
    return git(['push', '--quiet', 'origin', `HEAD:refs/heads/${this.branch}`], { cwd: this.dir })
  }

  async pushOk(): Promise<void> {
    const result = await this.push()
    if (result.code !== 0) throw new Error(`git push: ${result.stderr.trim()}`)
  }

  /** Commits and pushes in one step; answers the commit's sha. */
  async commitAndPush(message: string): Promise<string> {
    const sha = await this.commit(message)
    await this.pushOk()
    return sha
  }

  /** The remote branch's head as the server has it now. */
  async remoteHead(): Promise<string | null> {
    const out = await gitOk(['ls-remote', this.remote, `refs/heads/${this.branch}`], { cwd: this.dir })
    return out.split('\t')[0]?.trim() || null
  }

  /** Files of the remote branch's head (after a pull). */
  async files(): Promise<string[]> {
    const out = await gitOk(['ls-files'], { cwd: this.dir })
    return out.split('\n').filter(Boolean)
  }

  /** The commit messages of the branch, newest first. */
  async log(): Promise<string[]> {
    const out = await gitOk(['log', '--format=%s'], { cwd: this.dir })
    return out.split('\n').filter(Boolean)
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/**
 * Fills an empty repository with `files` files spread over folders and `commits` commits (with git fast-import, in one
 * process: seconds, not minutes), pushed to the server's repository `name` on `branch`.
 */
export async function seedLargeRepository(
  server: GitServer,
  name: string,
  { files, commits, branch = 'main' }: { files: number; commits: number; branch?: string },
): Promise<void> {
  const bare = join(server.root, `${name}.git`)
  const lines: string[] = []
  const now = 1_700_000_000
  const perCommit = Math.ceil(files / Math.max(1, commits))
  let written = 0
  for (let c = 0; c < commits; c++) {
    lines.push(`commit refs/heads/${branch}`, `committer Seeder <seed@example.com> ${now + c} +0000`)
    const message = `seed ${c}`
    lines.push(`data ${Buffer.byteLength(message)}`, message)
    // New files first; once all exist, later commits change one file each.
    const batch = written < files ? Math.min(perCommit, files - written) : 0
    for (let i = 0; i < batch; i++, written++) {
      const body = `file ${written}\n${'x'.repeat(200 + (written % 400))}\n`
      lines.push(`M 100644 inline src/module-${Math.floor(written / 100)}/file-${written}.txt`, `data ${Buffer.byteLength(body)}`, body)
    }
    if (batch === 0) {
      const target = c % files
      const body = `file ${target} changed in ${c}\n`
      lines.push(`M 100644 inline src/module-${Math.floor(target / 100)}/file-${target}.txt`, `data ${Buffer.byteLength(body)}`, body)
    }
  }
  lines.push('')
  await gitOk(['fast-import', '--quiet'], { cwd: bare, input: lines.join('\n') })
  await gitOk(['repack', '-a', '-d', '--quiet'], { cwd: bare })
}
