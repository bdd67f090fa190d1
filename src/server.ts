// createServer(config) → { app, fetch, start(), stop() }: opens the data dir, migrates, and wires the platform with every module.
import { Elysia } from 'elysia'
import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from './config.ts'
import type { PasswordCost } from './modules/auth/passwords.ts'
import { systemClock, type Clock } from './platform/clock.ts'
import { openDatabase, type DatabaseHandle } from './platform/db/database.ts'
import { migrateToLatest } from './platform/db/migrate.ts'
import { startRollupFolder, stopRollupFolder } from './platform/db/rollup-folder.ts'
import type { DatabaseTarget } from './platform/db/target.ts'
import { allowedMethodsOf } from './platform/http/allowed-methods.ts'
import { multipartRoutesOf } from './platform/http/multipart-routes.ts'
import { beforeBodyChecksOf } from './platform/http/before-body.ts'
import { bodySchemaChecksOf } from './platform/http/body-schema-check.ts'
import { httpPlatform } from './platform/http/http-platform.ts'
import { openApiRoutes } from './platform/http/openapi.ts'
import { withRequestTracking, type FetchHandler } from './platform/http/request-tracking.ts'
import { ClientAddresses } from './platform/http/client-address.ts'
import { JobRunner } from './platform/jobs.ts'
import { createLogger, type Logger } from './platform/log.ts'
import type { CapabilityModule } from './modules/module-context.ts'
import { type Cluster, createCluster } from './platform/cluster/index.ts'
import { checkSharedKeyring, SecretStore } from './platform/secrets/index.ts'
import { lockDataDir, type DataDirLock } from './platform/data-dir-lock.ts'
import { createModules, inStartOrder, type Modules, type Platform } from './modules/registry.ts'
import { MCP_PATH } from './modules/mcp/routes.ts'
import { OAUTH_OWN_BODY } from './modules/oauth/request-body.ts'
import { SPEC_UPLOAD_LIMIT, SPEC_UPLOAD_PATH } from './modules/applications/routes.ts'
import { BUNDLE_IMPORT_PATH, BUNDLE_UPLOAD_LIMIT } from './modules/bundles/routes.ts'
import { templateBodyLimit } from './modules/ui-templates/routes.ts'
import { VERSION } from './version.ts'

export const DATABASE_FILE = 'agentbox.db'

/** The PostgreSQL server the config names, else the SQLite file in the data dir. */
export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl.url } : { kind: 'sqlite', path: join(config.dataDir, DATABASE_FILE) }
}

/** The port or address cannot be listened on: an operator's situation, logged as one sentence without a stack. */
export class ListenError extends Error {}
const LAST_RESORT_BODY_LIMIT = 1024 ** 3

export interface ServerOverrides {
  /** Tests pass a ManualClock to move time (licence expiry, rate-limit windows) without sleeping. */
  readonly clock?: Clock
  readonly logger?: Logger
  /** How the login throttle waits before checking a password on an account under attack (tests record instead). */
  readonly sleep?: (ms: number) => Promise<void>
  /** argon2id's cost: only test harnesses lower it (a hash records its cost, so verifying never depends on it). */
  readonly passwordCost?: PasswordCost
  /** The outbound client's resolver and fetch (SSRF tests prove a refused call never reaches fetch). */
  readonly outbound?: Platform['outbound']
  /** How long recorded rows wait before they are counted into the rollups when nothing reads them (SQLite). */
  readonly rollupFoldDelayMs?: number
}

export interface AgentboxServer {
  readonly app: ReturnType<typeof buildApp>
  /** The full request path (request id, access log, then the app); what the listening server calls and tests use. */
  readonly fetch: FetchHandler
  readonly config: Config
  readonly database: DatabaseHandle
  /** This instance among others on one database: its id, the shared revisions, the scheduler's leadership. */
  readonly cluster: Cluster
  /** Every module by name: its service is what tests (and later other transports) call. */
  readonly modules: Modules
  /** The setup link's token while unprovisioned, else null. */
  readonly setupToken: string | null
  /** Starts listening; resolves with the bound port (useful with port 0). */
  start(): number
  /** Stops accepting, lets in-flight requests finish (≤ shutdownGraceMs), then closes the database. */
  stop(): Promise<void>
}

/** The order routes are registered in, which is also the order of paths in the OpenAPI document. */
const routeOrder = (m: Modules): CapabilityModule[] => [
  m.health,
  m.tenant,
  m.console,
  m.license,
  m.auth,
  m.users,
  m.settings,
  m.contextTypes,
  m.interactions,
  m.agents,
  m.skills,
  m.workflows,
  m.organisation,
  m.tasks,
  m.threads,
  m.applications,
  m.insights,
  m.uiTemplates,
  m.toolbox,
  m.mcp,
  m.oauth,
  m.bundles,
  m.marketplace,
  m.mcpServers,
  m.chat,
  m.gpts,
]

function buildApp(config: Config, logger: Logger, modules: Modules) {
  // normalize 'typebox': Elysia's default (exact-mirror) rebuilds a body from the schema before validating it, so `[]`
  // where an object belongs became `{}` and passed. TypeBox's Clean validates what was sent and still drops unknown fields.
  const app: Elysia = new Elysia({ name: 'agentbox', normalize: 'typebox' })
  let routes = app
    .use(
      httpPlatform({
        logger,
        limits: {
          json: config.bodyLimit,
          upload: config.uploadBodyLimit,
          largeUploads: { [SPEC_UPLOAD_PATH]: SPEC_UPLOAD_LIMIT, [BUNDLE_IMPORT_PATH]: BUNDLE_UPLOAD_LIMIT },
          largeJson: templateBodyLimit,
          ownBody: new RegExp(`${MCP_PATH.source}|${OAUTH_OWN_BODY.source}`),
          acceptsMultipart: multipartRoutesOf(() => app.routes),
          beforeBody: beforeBodyChecksOf(() => app.routes),
          bodySchemaCheck: bodySchemaChecksOf(() => app.routes),
        },
        allowedMethods: allowedMethodsOf(() => app.routes),
      }),
    )
    .use(openApiRoutes(() => app, VERSION))
  for (const module of routeOrder(modules)) routes = routes.use(module.routes)
  return routes
}

function prepareDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o750 })
  for (const sub of ['backups', 'git']) mkdirSync(join(dataDir, sub), { recursive: true, mode: 0o750 })
}

/** Starts every module in order; if one fails, those already started are stopped, so nothing runs on a closed database. */
async function startModules(modules: CapabilityModule[], jobs: JobRunner): Promise<void> {
  const started: CapabilityModule[] = []
  try {
    for (const module of modules) {
      await module.start?.()
      started.push(module)
    }
  } catch (error) {
    await jobs.stop()
    for (const module of started.reverse()) await module.stop?.()
    throw error
  }
}

/**
 * Everything that can fail at boot (the data dir and its lock, migrations) fails here, before a port is opened, and
 * leaves the data dir unlocked and the database closed, so a corrected retry in the same process works.
 */
export async function createServer(config: Config, overrides: ServerOverrides = {}): Promise<AgentboxServer> {
  const clock = overrides.clock ?? systemClock
  const logger = overrides.logger ?? createLogger(config.logLevel)
  prepareDataDir(config.dataDir)
  const dataDirLock = lockDataDir(config.dataDir)
  let database: DatabaseHandle | undefined
  try {
    database = openDatabase(databaseTarget(config), {
      onConnectionError: (error) => logger.warn('database connection lost', { error: error.message }),
      onCheckpointerFailure: (reason) => logger.warn('database checkpointer failed; the writer checkpoints the WAL itself again', { error: reason }),
    })
    return await bootOn(config, clock, logger, database, dataDirLock, overrides)
  } catch (error) {
    await database?.close()
    dataDirLock.release()
    throw error
  }
}

async function bootOn(
  config: Config,
  clock: Clock,
  logger: Logger,
  database: DatabaseHandle,
  dataDirLock: DataDirLock,
  overrides: ServerOverrides,
): Promise<AgentboxServer> {
  if (database.kind === 'sqlite') chmodSync(database.path, 0o600)
  const secrets = new SecretStore(config.dataDir, config.secretsDir)
  const migration = await migrateToLatest(database, join(config.dataDir, 'backups'), clock.now())
  if (migration.applied.length > 0) logger.info('database migrated', { applied: migration.applied, backup: migration.backupPath })
  // Instances on one PostgreSQL database must read one keyring: a secrets directory that is not the shared one stops
  // the boot here, not later as secrets that do not open.
  if (database.kind === 'postgres') await checkSharedKeyring(database.db, secrets)
  // SQLite: rows a previous run recorded and did not count into the rollups yet (it stopped between the two) are counted.
  const folded = await startRollupFolder(
    database.db,
    (error) => logger.warn('counting recorded interactions into their rollups failed; the next read or record retries', { error: (error as Error).message }),
    overrides.rollupFoldDelayMs,
  )
  if (folded.rows > 0) logger.info('interactions counted into their rollups at start-up', { rows: folded.rows })

  let closing = false
  const jobs = new JobRunner(logger)
  const cluster = createCluster(database, logger, clock)
  const clientAddresses = new ClientAddresses(config.trustedProxies, clock, logger)
  const modules = createModules({
    config,
    clock,
    logger,
    database,
    jobs,
    secrets,
    cluster,
    clientAddresses,
    isReady: () => !closing,
    sleep: overrides.sleep ?? ((ms) => Bun.sleep(ms)),
    passwordCost: overrides.passwordCost,
    outbound: overrides.outbound,
  })
  const app = buildApp(config, logger, modules)
  await cluster.start()
  try {
    await startModules(inStartOrder(modules), jobs)
  } catch (error) {
    await cluster.stop()
    throw error
  }
  const setupToken = modules.tenant.setupTokenAtBoot()
  const tenant = modules.tenant.service
  // Several instances: what another instance may have changed without this one's caches knowing (setup ran there, a
  // licence was applied) is brought up to date before each request. A failure here (the database away) leaves the
  // kept state, and the request itself meets the database and answers as it must.
  const shared = database.kind === 'postgres' ? () => Promise.all([tenant.refresh(), modules.license.service.refresh()]) : null
  const handle = shared
    ? async (request: Request) => {
        if (!new URL(request.url).pathname.startsWith('/api/health')) await shared().catch(() => {})
        return app.handle(request)
      }
    : (request: Request) => app.handle(request)
  const fetch = withRequestTracking(handle, logger, clientAddresses)
  let listener: ReturnType<typeof Bun.serve> | undefined

  return {
    app,
    fetch,
    config,
    database,
    cluster,
    modules,
    setupToken,
    start() {
      // Bun's own limit answers a bare 413 with no body or request id, so it sits far above ours: the body parser
      // enforces the contract's limits (and streams and counts bodies without a length); this is only a last resort.
      try {
        listener = Bun.serve({ port: config.port, hostname: config.host, maxRequestBodySize: LAST_RESORT_BODY_LIMIT, fetch })
      } catch (error) {
        const code = (error as { code?: unknown }).code
        if (code === 'EADDRINUSE')
          throw new ListenError(`Port ${config.port} on ${config.host} is already in use: stop what listens there or choose another with --port`)
        if (code === 'EACCES') throw new ListenError(`Not allowed to listen on port ${config.port} on ${config.host}: choose a port above 1023 with --port`)
        if (code === 'EADDRNOTAVAIL') throw new ListenError(`${config.host} is not an address of this machine: choose another with --host`)
        throw error
      }
      const port = listener.port!
      const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host
      logger.info('listening', {
        host: config.host,
        port,
        version: VERSION,
        data_dir: config.dataDir,
        database: database.kind,
        license_mode: config.licenseMode,
      })
      if (setupToken && !tenant.provisioned) logger.info(`Open http://${shownHost}:${port}/setup?token=${setupToken} to finish setup`)
      return port
    },
    async stop() {
      if (closing) return
      closing = true
      const server = listener
      if (server) {
        const drained = server.stop(false)
        const timedOut = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), config.shutdownGraceMs).unref())
        if ((await Promise.race([drained.then(() => 'drained' as const), timedOut])) === 'timeout') {
          logger.warn('in-flight requests did not finish in time; closing them')
          await server.stop(true)
        }
      }
      await jobs.stop()
      for (const module of inStartOrder(modules).reverse()) await module.stop?.()
      // After the last record: what it left uncounted is counted now (else at the next start-up).
      await stopRollupFolder(database.db)
      await cluster.stop()
      await database.close()
      dataDirLock.release()
      logger.info('stopped')
    },
  }
}
