// Several real server processes on one PostgreSQL database, as a load balancer would see them: each instance has its
// own data directory (its own lock) and all share the secrets directory (AGENTBOX_SECRETS_DIR: the signing key and the
// keyring) and the database. The database can be reached through a TCP relay the test controls, so "PostgreSQL stopped" is a relay
// that refuses and cuts connections, without stopping the server other tests use. Used by test/cluster/ (and by
// benchmarks of several instances).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Socket, TCPSocketListener } from 'bun'
import { dropTestDatabase, TEST_DATABASE_URL, testDatabaseFor } from './database.ts'
import { issueTestLicense } from './license.ts'
import { callJson, launchServer, type RunningServer, stopServer } from './process.ts'

export const CLUSTER_SETUP_TOKEN = 'cluster-fixed-setup-token-0123456789'
export const CLUSTER_ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' }

export interface ClusterInstance extends RunningServer {
  readonly name: string
  readonly dataDir: string
}

/** A TCP relay to the database that can refuse and cut every connection (the database "stopped") and come back. */
export class DatabaseRelay {
  readonly port: number
  #listener: TCPSocketListener<RelaySide> | null = null
  readonly #sockets = new Set<Socket<RelaySide>>()

  private constructor(
    private readonly target: { hostname: string; port: number },
    port: number,
  ) {
    this.port = port
  }

  static async start(target: { hostname: string; port: number }): Promise<DatabaseRelay> {
    const relay = new DatabaseRelay(target, 0)
    relay.#listen(0)
    ;(relay as { port: number }).port = relay.#listener!.port
    return relay
  }

  #listen(port: number): void {
    const sockets = this.#sockets
    const target = this.target
    this.#listener = Bun.listen<RelaySide>({
      hostname: '127.0.0.1',
      port,
      socket: {
        async open(client) {
          sockets.add(client)
          client.data = { peer: null, pending: [] }
          try {
            const server = await Bun.connect<RelaySide>({
              hostname: target.hostname,
              port: target.port,
              socket: {
                open(server) {
                  server.data = { peer: client, pending: [] }
                },
                data(server, chunk) {
                  if (server.data.peer) send(server.data.peer, chunk)
                },
                drain,
                close(server) {
                  sockets.delete(server)
                  server.data.peer?.end()
                },
                error(server) {
                  server.data.peer?.end()
                },
              },
            })
            sockets.add(server)
            client.data.peer = server
            for (const chunk of client.data.pending) send(server, chunk)
            client.data.pending = []
          } catch {
            client.end()
          }
        },
        data(client, chunk) {
          if (client.data.peer) send(client.data.peer, chunk)
          else client.data.pending.push(Buffer.from(chunk))
        },
        drain,
        close(client) {
          sockets.delete(client)
          client.data.peer?.end()
        },
        error(client) {
          client.data.peer?.end()
        },
      },
    })
  }

  /** The URL instances use: the test database's, through the relay. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl)
    url.hostname = '127.0.0.1'
    url.port = String(this.port)
    return url.toString()
  }

  /** New connections are refused and every open one is cut, as when the server stops. */
  down(): void {
    this.#listener?.stop(true)
    this.#listener = null
    for (const socket of this.#sockets) socket.terminate()
    this.#sockets.clear()
  }

  /** Accepting again, on the same port. */
  up(): void {
    if (!this.#listener) this.#listen(this.port)
  }

  stop(): void {
    this.down()
  }
}

interface RelaySide {
  peer: Socket<RelaySide> | null
  /** What arrived before the other side was connected. */
  pending: Buffer[]
  /** What the socket did not take yet (written on drain, in order). */
  backlog?: Buffer[]
}

/** Writes everything, in order: what a busy socket does not take now waits for its drain. */
function send(socket: Socket<RelaySide>, chunk: Uint8Array): void {
  const backlog = (socket.data.backlog ??= [])
  if (backlog.length > 0) {
    backlog.push(Buffer.from(chunk))
    return
  }
  const written = socket.write(chunk)
  if (written < chunk.byteLength) backlog.push(Buffer.from(chunk.subarray(Math.max(written, 0))))
}

function drain(socket: Socket<RelaySide>): void {
  const backlog = socket.data.backlog ?? []
  while (backlog.length > 0) {
    const chunk = backlog[0]!
    const written = socket.write(chunk)
    if (written < chunk.byteLength) {
      backlog[0] = chunk.subarray(Math.max(written, 0))
      return
    }
    backlog.shift()
  }
}

export interface TestCluster {
  readonly instances: ClusterInstance[]
  /** An access token of the organisation's admin (valid on every instance: they share the signing key); '' before setup. */
  readonly adminToken: string
  readonly relay: DatabaseRelay
  /** The secrets directory every instance reads. */
  readonly secretsDir: string
  /** The instances' database URL (through the relay). */
  readonly databaseUrl: string
  /** Starts one more instance on the same database and (unless `env` names another) the same secrets. */
  add(name: string, env?: Record<string, string>): Promise<ClusterInstance>
  /** Provisions the organisation through `instance` (done by startCluster unless `setup: false`); returns the admin's token. */
  setup(instance: ClusterInstance): Promise<string>
  /** The health report of an instance. */
  health(instance: ClusterInstance): Promise<{ status: number; body: any }>
  /** Waits (polling every 50 ms, up to `deadlineMs`) until exactly one live instance reports itself the scheduler leader. */
  leader(deadlineMs?: number): Promise<ClusterInstance>
  kill9(instance: ClusterInstance): Promise<void>
  stop(): Promise<void>
}

export interface ClusterOptions {
  /** How many instances to start (the first one provisions the organisation). */
  readonly instances: number
  readonly env?: Record<string, string>
  /** false: every instance starts before setup (the test runs it); default true. */
  readonly setup?: boolean
}

/** Polls `probe` every `everyMs` until it returns a value other than undefined; throws after `deadlineMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 30_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`)
    await Bun.sleep(everyMs)
  }
}

/** Uploads an API description through `instance` as a client would (multipart, its length declared); answers its status and body. */
export async function uploadSpecTo(instance: { base: string }, token: string, document: unknown, fields: Record<string, string>) {
  const form = new FormData()
  form.append('file', new File([JSON.stringify(document)], 'spec.json', { type: 'application/json' }))
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  const encoded = new Response(form)
  // Read before the body: the multipart boundary is named there.
  const contentType = encoded.headers.get('content-type')!
  const bytes = new Uint8Array(await encoded.arrayBuffer())
  const upload = await fetch(`${instance.base}/api/spec_from_file/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': String(bytes.byteLength) },
    body: bytes,
  })
  return { status: upload.status, body: (await upload.json()) as unknown }
}

/** Only on PostgreSQL: SQLite is one process by design. */
export async function startCluster(options: ClusterOptions): Promise<TestCluster> {
  if (!TEST_DATABASE_URL) throw new Error('a cluster needs AGENTBOX_TEST_DATABASE_URL (PostgreSQL)')
  const root = mkdtempSync(join(tmpdir(), 'agentbox-cluster-'))
  const sharedSecrets = join(root, 'secrets')
  mkdirSync(sharedSecrets, { mode: 0o700 })
  const anchor = join(root, 'anchor')
  const database = await testDatabaseFor(anchor)
  if (database.kind !== 'postgres') throw new Error('unreachable')
  const direct = new URL(database.url)
  const relay = await DatabaseRelay.start({ hostname: direct.hostname, port: Number(direct.port || 5432) })
  const databaseUrl = relay.urlFor(database.url)
  const instances: ClusterInstance[] = []
  const dataDirs: string[] = []

  const add = async (name: string, env: Record<string, string> = {}): Promise<ClusterInstance> => {
    const dataDir = join(root, name)
    mkdirSync(dataDir, { mode: 0o700 })
    dataDirs.push(dataDir)
    const server = await launchServer({
      dataDir,
      env: {
        AGENTBOX_SETUP_TOKEN: CLUSTER_SETUP_TOKEN,
        AGENTBOX_LOG_LEVEL: 'info',
        // The secrets directory on "shared storage".
        AGENTBOX_SECRETS_DIR: sharedSecrets,
        ...options.env,
        ...env,
        AGENTBOX_DATABASE_URL: databaseUrl,
      },
    })
    const instance = Object.assign(server, { name, dataDir }) as ClusterInstance
    instances.push(instance)
    return instance
  }

  const setup = async (instance: ClusterInstance): Promise<string> => {
    const done = await callJson(instance, 'POST', '/api/tenant/setup', CLUSTER_SETUP_TOKEN, {
      license_token: issueTestLicense({ seats: 1000 }),
      admin_email: CLUSTER_ADMIN.email,
      admin_name: CLUSTER_ADMIN.name,
      admin_password: CLUSTER_ADMIN.password,
    })
    if (done.status !== 200) throw new Error(`setup failed: ${done.status} ${JSON.stringify(done.body)}`)
    const login = await callJson(instance, 'POST', '/api/auth/login', undefined, { email: CLUSTER_ADMIN.email, password: CLUSTER_ADMIN.password })
    return login.body.access_token as string
  }

  const first = await add('a')
  const adminToken = options.setup === false ? '' : await setup(first)
  for (let i = 1; i < options.instances; i++) await add(String.fromCharCode(97 + i))

  const alive = (instance: ClusterInstance) => instance.proc.exitCode === null && instance.proc.signalCode === null
  const health = async (instance: ClusterInstance) => {
    const res = await fetch(`${instance.base}/api/health`, { signal: AbortSignal.timeout(10_000) })
    return { status: res.status, body: await res.json() }
  }

  return {
    instances,
    adminToken,
    relay,
    secretsDir: sharedSecrets,
    databaseUrl,
    add,
    setup,
    health,
    leader: (deadlineMs = 30_000) =>
      waitFor(
        'one scheduler leader',
        async () => {
          const live = instances.filter(alive)
          const reports = await Promise.all(
            live.map(async (instance) => ({ instance, leader: (await health(instance)).body.checks.scheduler.leader === true })),
          )
          const leaders = reports.filter((report) => report.leader)
          return leaders.length === 1 ? leaders[0]!.instance : undefined
        },
        deadlineMs,
      ),
    async kill9(instance) {
      await stopServer(instance, 'SIGKILL')
    },
    async stop() {
      for (const instance of instances) if (alive(instance)) await stopServer(instance, 'SIGTERM')
      relay.stop()
      await dropTestDatabase(anchor)
      for (const dataDir of dataDirs) await dropTestDatabase(dataDir)
      rmSync(root, { recursive: true, force: true })
    },
  }
}
