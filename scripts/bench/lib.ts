// What every benchmark needs: integer options checked the same way, medians, and licences signed with the committed
// test key.
import { createPrivateKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.ts'
import { createServer, type AgentboxServer } from '../../src/server.ts'
import { TEST_KID } from '../../src/modules/license/keyring.ts'
import { signLicenseToken } from '../../src/modules/license/token.ts'

/** `raw` as an integer within [min, max], or exit 2 naming the option (a benchmark's bad argument is the user's). */
export function intOption(raw: string, name: string, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer ≥ ${min}` : `${name} must be an integer from ${min} to ${max}`)
    process.exit(2)
  }
  return n
}

/** The median of `xs` (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const TEST_PRIVATE_KEY = join(import.meta.dir, '..', '..', 'test', 'fixtures', 'license', 'test-private.pem')

/** A licence the servers under benchmark (AGENTBOX_LICENSE_MODE=test) accept: valid for a year from now. */
export function benchLicense({ org = 'Bench', seats = 10 }: { org?: string; seats?: number } = {}): string {
  const now = Math.floor(Date.now() / 1000)
  const key = createPrivateKey(readFileSync(TEST_PRIVATE_KEY, 'utf8'))
  const claims = {
    iss: 'agentbox-licensing' as const,
    lic: `lic_bench_${crypto.randomUUID()}`,
    sub: org.toLowerCase(),
    org,
    seats,
    features: [],
    iat: now - 86_400,
    nbf: now - 86_400,
    exp: now + 365 * 86_400,
  }
  return signLicenseToken(claims, key, TEST_KID)
}

export interface BenchServer {
  readonly server: AgentboxServer
  /** The admin's access token. */
  readonly token: string
  /** One request through server.fetch; a JSON body, or `raw` with its headers; throws on a status of 300 or more. */
  call(method: string, path: string, token: string, body?: unknown, raw?: BodyInit, headers?: Record<string, string>): Promise<any>
}

/** A server in this process on a temp data dir (removed at exit), provisioned with a bench licence and an admin. */
export async function startBenchServer(name: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `agentbox-bench-${name}-`))
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }))
  const setupToken = 'bench-setup-token-0123456789abcdef'
  const server = await createServer(
    loadConfig(['serve'], { AGENTBOX_DATA_DIR: dataDir, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_LOG_LEVEL: 'warn', AGENTBOX_SETUP_TOKEN: setupToken, ...env }),
  )
  const call: BenchServer['call'] = async (method, path, token, body, raw, headers = {}) => {
    const response = await server.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      }),
    )
    const json = (await response.json()) as any
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
  const password = 'a long enough bench password'
  await call('POST', '/api/tenant/setup', setupToken, {
    license_token: benchLicense(),
    admin_email: 'admin@example.com',
    admin_name: 'Ada Admin',
    admin_password: password,
  })
  const token = (await call('POST', '/api/auth/login', '', { email: 'admin@example.com', password })).access_token as string
  return { server, token, call }
}

/**
 * Starts `script` again as `--upstream PORT` on a free loopback port (a process of its own, so its work is not the
 * server's), kills it when this process exits, and resolves with its URL once it answers `GET /ready`.
 */
export async function spawnUpstream(script: string): Promise<string> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  const upstream = Bun.spawn([process.execPath, script, '--upstream', String(port)], { stdout: 'ignore', stderr: 'inherit' })
  process.on('exit', () => upstream.kill('SIGKILL'))
  const url = `http://127.0.0.1:${port}`
  const reachable = () =>
    fetch(`${url}/ready`).then(
      (r) => r.ok,
      () => false,
    )
  for (let i = 0; i < 400 && !(await reachable()); i++) await Bun.sleep(10)
  return url
}

/**
 * The loopback upstream's one operation, `GET /items/{id}` (getItem, with an optional `expand` query), behind an
 * `X-Api-Key` header: the description the toolbox and GPT apps benches import, so both call the same thing.
 */
export function keyedItemsSpec(upstream: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Bench upstream', version: '1' },
    servers: [{ url: upstream }],
    security: [{ key: [] }],
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    paths: {
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          summary: 'Read an item',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'expand', in: 'query', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  }
}

/** Calls completed per second with `concurrency` loops calling `run` for `seconds`. */
export async function throughput(run: () => Promise<void>, concurrency: number, seconds: number): Promise<number> {
  let done = 0
  const until = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await run()
        done++
      }
    }),
  )
  return done / ((performance.now() - started) / 1000)
}
