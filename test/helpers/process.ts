// Spawns agentbox as a real process (from source or the compiled binary) on a free loopback port and waits until it answers.
import type { Subprocess } from 'bun'
import { resolve } from 'node:path'
import { testDatabaseEnv } from './database.ts'

export const ROOT = resolve(import.meta.dir, '../..')

export interface RunningServer {
  readonly proc: Subprocess<'ignore', 'pipe', 'pipe'>
  readonly port: number
  /** `http://127.0.0.1:<port>` */
  readonly base: string
  /** Performance-clock time of the spawn, for start-up measurements. */
  readonly spawnedAt: number
  /** Everything the process wrote so far. */
  readonly out: { text: string }
  readonly err: { text: string }
  /** Resolves once both output streams are closed. */
  readonly drained: Promise<void>
}

export interface LaunchOptions {
  /** What to run before `serve …`: the binary's path, or [process.execPath, 'src/main.ts'] (the default). */
  readonly command?: string[]
  readonly dataDir: string
  /** Added to the process's environment; the suite's database (AGENTBOX_DATABASE_URL on PostgreSQL) comes first. */
  readonly env?: Record<string, string>
}

const running = new Set<RunningServer>()
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function collect(stream: ReadableStream<Uint8Array>, sink: { text: string }) {
  const decoder = new TextDecoder()
  for await (const chunk of stream) sink.text += decoder.decode(chunk, { stream: true })
}

/** The JSON log lines the process wrote to stdout. */
export const logLines = (server: RunningServer) =>
  server.out.text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>)

/** Starts `serve` and polls /api/health/live every 20 ms for up to 15 s; retries on a port taken in between. */
export async function launchServer({ command = [process.execPath, 'src/main.ts'], dataDir, env = {} }: LaunchOptions): Promise<RunningServer> {
  const database = await testDatabaseEnv(dataDir)
  for (let attempt = 1; ; attempt++) {
    const port = freePort()
    const proc = Bun.spawn([...command, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dataDir, AGENTBOX_LICENSE_MODE: 'test', ...database, ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = { text: '' }
    const err = { text: '' }
    const server: RunningServer = {
      proc,
      port,
      base: `http://127.0.0.1:${port}`,
      spawnedAt: performance.now(),
      out,
      err,
      drained: Promise.all([collect(proc.stdout, out), collect(proc.stderr, err)]).then(() => undefined),
    }
    running.add(server)
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline && proc.exitCode === null) {
      if (
        await fetch(`${server.base}/api/health/live`).then(
          (res) => res.ok,
          () => false,
        )
      )
        return server
      await sleep(20)
    }
    await stopServer(server, 'SIGKILL')
    if (attempt < 3 && /EADDRINUSE|in use/i.test(out.text + err.text)) continue
    throw new Error(`server did not answer /api/health/live within 15 s (exit ${proc.exitCode})\nstdout:\n${out.text}\nstderr:\n${err.text}`)
  }
}

/**
 * Sends `signal` (if still running) and waits for exit and the end of its output; returns the exit code, or null
 * when the process had to be killed because it did not exit within 10 s (the contract's shutdown bound).
 */
export async function stopServer(server: RunningServer, signal: 'SIGTERM' | 'SIGKILL'): Promise<number | null> {
  if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill(signal)
  const code = await Promise.race([server.proc.exited, sleep(10_000).then(() => 'timeout' as const)])
  if (code === 'timeout') server.proc.kill('SIGKILL')
  await server.proc.exited
  await server.drained
  running.delete(server)
  return code === 'timeout' ? null : code
}

/** For afterAll: kills whatever a failed test left running. */
export async function stopAllServers(): Promise<void> {
  for (const server of [...running]) await stopServer(server, 'SIGKILL')
}

/** JSON over real HTTP, with a time limit so a hung server fails the test instead of stalling it. */
export async function callJson(server: RunningServer, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null }
}
