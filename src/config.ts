// loadConfig(argv, env) → one frozen, typed Config. The only reader of process.env and argv flags (README "Commands" lists them).
import { parseArgs } from 'node:util'
import { join, resolve } from 'node:path'
import { LOG_LEVELS, type LogLevel } from './platform/log.ts'
import { AllowEntryError, parseAllowList, type AllowEntry } from './platform/outbound/allow-list.ts'
import type { Cidr } from './platform/outbound/address-policy.ts'
import { parseTrustedProxies, TrustedProxyError } from './platform/http/client-address.ts'
import { isPostgresUrl } from './platform/db/target.ts'

export type Command = 'serve' | 'version' | 'backup' | 'migrate-to-postgres' | 'help'
export type LicenseMode = 'production' | 'test'
export type LlmProviderName = 'mock' | 'openai' | 'anthropic'
export const LLM_PROVIDERS: readonly LlmProviderName[] = ['mock', 'openai', 'anthropic']

/** Where a remote model provider lives. `apiKey` is a getter over a private field, so serialising the config never prints it. */
export interface LlmEndpoint {
  /** null: the client library's default (api.openai.com, api.anthropic.com). */
  readonly baseUrl: string | null
  readonly apiKey: string | null
}

export interface LlmConfig {
  /** The instance default, used by tasks without a chat_model (AGENTBOX_LLM_PROVIDER, default mock). */
  readonly provider: LlmProviderName
  /** AGENTBOX_LLM_MODEL; required when the default provider is not mock. */
  readonly model: string
  /** null when neither its base URL nor its API key is set: the provider is not configured. */
  readonly openai: LlmEndpoint | null
  readonly anthropic: LlmEndpoint | null
  /** How long one model call may take (AGENTBOX_LLM_TIMEOUT_MS, default 60 s). */
  readonly timeoutMs: number
}

export interface Config {
  readonly command: Command
  /** For `backup`: where the copy goes. */
  readonly backupFile: string | null
  /** For `migrate-to-postgres`: the data directory whose SQLite database is copied (--from) and where to (--to). */
  readonly migration: { readonly from: string; readonly to: DatabaseUrl } | null
  readonly port: number
  readonly host: string
  /** Absolute path of the data dir; everything the instance owns lives under it (but the database on PostgreSQL). */
  readonly dataDir: string
  /**
   * AGENTBOX_DATABASE_URL or --database-url: a PostgreSQL server (`postgres://user:pass@host:5432/db`) instead of the
   * SQLite file in the data dir. Null: SQLite.
   */
  readonly databaseUrl: DatabaseUrl | null
  /**
   * AGENTBOX_SECRETS_DIR or --secrets-dir: the secrets directory (signing key, keyring, setup token); absolute. By
   * default the data directory's `secrets/`. Instances sharing one PostgreSQL database must all read the same one.
   */
  readonly secretsDir: string
  readonly logLevel: LogLevel
  readonly licenseMode: LicenseMode
  /** A setup token chosen by the operator instead of a generated one (AGENTBOX_SETUP_TOKEN). */
  readonly setupToken: string | null
  /** Request body limits in bytes (docs/api.md "Conventions"). */
  readonly bodyLimit: number
  readonly uploadBodyLimit: number
  /** How long in-flight requests may finish after SIGTERM. */
  readonly shutdownGraceMs: number
  /** Interactions older than this many days are pruned (AGENTBOX_INTERACTION_RETENTION_DAYS, default 365). */
  readonly interactionRetentionDays: number
  /** Model providers for scheduled tasks (docs/api.md "Tasks"). */
  readonly llm: LlmConfig
  /** Destinations outbound calls may reach although the address policy refuses them (AGENTBOX_OUTBOUND_ALLOW). */
  readonly outboundAllow: readonly AllowEntry[]
  /** AGENTBOX_TASK_MIN_INTERVAL_S: the shortest gap a cron task's runs may have (each run is a model call). */
  readonly taskMinIntervalS: number
  /**
   * AGENTBOX_PUBLIC_URL: the origin users and MCP clients reach the instance at (`https://agentbox.example.com`), for the
   * URLs it hands out (MCP URLs, OAuth issuer and resources). Null: the origin each request came to.
   */
  readonly publicUrl: string | null
  /**
   * AGENTBOX_TRUSTED_PROXIES: peers whose X-Forwarded-For names the client (reverse proxies, load balancers). Empty:
   * the client is always the socket's peer.
   */
  readonly trustedProxies: readonly Cidr[]
}

export class ConfigError extends Error {}

export const USAGE = `agentbox — the self-hosted agent platform in one binary

Usage:
  agentbox [serve] [--port N] [--host ADDR] [--data DIR] [--database-url URL] [--secrets-dir DIR]   serve the platform (default)
  agentbox backup FILE [--data DIR] [--database-url URL] [--secrets-dir DIR]   write a consistent copy of the database
  agentbox migrate-to-postgres --from DIR --to URL         copy a stopped instance's SQLite database into an empty
                                                           PostgreSQL database, verified (the keys stay in DIR/secrets)
  agentbox version                                         print the version
  agentbox help                                            this text

Flags override environment variables:
  --port  AGENTBOX_PORT      (8080)
  --host  AGENTBOX_HOST      (0.0.0.0)
  --data  AGENTBOX_DATA_DIR  (./data; $STATE_DIRECTORY under systemd)
  --database-url  AGENTBOX_DATABASE_URL  (unset: SQLite in the data dir; postgres://user:pass@host:5432/db: PostgreSQL 13+)
  --secrets-dir  AGENTBOX_SECRETS_DIR  (DATA/secrets; several instances on one database must share it)
Other settings: AGENTBOX_LOG_LEVEL (debug|info|warn|error), AGENTBOX_LICENSE_MODE (production|test),
AGENTBOX_SETUP_TOKEN, AGENTBOX_INTERACTION_RETENTION_DAYS (365).
AGENTBOX_OUTBOUND_ALLOW: private destinations outbound calls may reach, comma-separated hosts, host:port and
CIDRs (e.g. api.internal,10.1.0.0/16); loopback, private and link-local addresses are refused otherwise.
AGENTBOX_PUBLIC_URL: the origin clients use (https://agentbox.example.com) when a proxy terminates TLS.
AGENTBOX_TRUSTED_PROXIES: reverse proxies whose X-Forwarded-For names the client, comma-separated addresses or CIDRs
(e.g. 127.0.0.1,10.0.0.0/8; none by default).
Model providers: AGENTBOX_LLM_PROVIDER (mock|openai|anthropic; mock), AGENTBOX_LLM_MODEL (required unless mock),
AGENTBOX_OPENAI_BASE_URL (an OpenAI-compatible server, e.g. http://localhost:11434/v1), AGENTBOX_OPENAI_API_KEY,
AGENTBOX_ANTHROPIC_BASE_URL, AGENTBOX_ANTHROPIC_API_KEY, AGENTBOX_LLM_TIMEOUT_MS (60000).`

const COMMANDS: readonly Command[] = ['serve', 'version', 'backup', 'migrate-to-postgres', 'help']

function parsePort(raw: string, source: string): number {
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || port < 0 || port > 65535) throw new ConfigError(`${source} must be a port number (0-65535), got "${raw}"`)
  return port
}

/** The URL (it holds the password) lives in a private field behind a getter, like an API key: never printed with the config. */
export class DatabaseUrl {
  readonly #url: string
  constructor(url: string) {
    this.#url = url
  }
  get url(): string {
    return this.#url
  }
}

function loadDatabaseUrl(raw: string | undefined, source: string): DatabaseUrl | null {
  if (raw === undefined || raw === '') return null
  if (!isPostgresUrl(raw)) throw new ConfigError(`${source} must be a PostgreSQL URL (postgres://user:password@host:5432/database)`)
  try {
    new URL(raw)
  } catch {
    throw new ConfigError(`${source} is not a valid URL`)
  }
  return new DatabaseUrl(raw)
}

/** The key lives in a private field behind a getter: JSON.stringify, console.log and Bun.inspect of the config never show it. */
class Endpoint implements LlmEndpoint {
  readonly baseUrl: string | null
  readonly #apiKey: string | null
  constructor(baseUrl: string | null, apiKey: string | null) {
    this.baseUrl = baseUrl
    this.#apiKey = apiKey
  }
  get apiKey(): string | null {
    return this.#apiKey
  }
}

function llmEndpoint(env: Readonly<Record<string, string | undefined>>, prefix: 'OPENAI' | 'ANTHROPIC'): LlmEndpoint | null {
  const baseUrl = env[`AGENTBOX_${prefix}_BASE_URL`] || null
  const apiKey = env[`AGENTBOX_${prefix}_API_KEY`] || null
  if (!baseUrl && !apiKey) return null
  if (baseUrl) {
    let url: URL | null = null
    try {
      url = new URL(baseUrl)
    } catch {
      url = null
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new ConfigError(`AGENTBOX_${prefix}_BASE_URL must be an http(s) URL, got "${baseUrl}"`)
  }
  return Object.freeze(new Endpoint(baseUrl?.replace(/\/+$/, '') ?? null, apiKey))
}

function loadLlmConfig(env: Readonly<Record<string, string | undefined>>): LlmConfig {
  const provider = (env.AGENTBOX_LLM_PROVIDER || 'mock').toLowerCase() as LlmProviderName
  if (!LLM_PROVIDERS.includes(provider)) throw new ConfigError(`AGENTBOX_LLM_PROVIDER must be one of ${LLM_PROVIDERS.join(', ')}`)
  const openai = llmEndpoint(env, 'OPENAI')
  const anthropic = llmEndpoint(env, 'ANTHROPIC')
  if ((provider === 'openai' && !openai) || (provider === 'anthropic' && !anthropic)) {
    const prefix = `AGENTBOX_${provider.toUpperCase()}`
    throw new ConfigError(`AGENTBOX_LLM_PROVIDER is ${provider}, but neither ${prefix}_BASE_URL nor ${prefix}_API_KEY is set`)
  }
  const model = env.AGENTBOX_LLM_MODEL || (provider === 'mock' ? 'mock' : '')
  if (!model) throw new ConfigError(`AGENTBOX_LLM_MODEL must name the default model when AGENTBOX_LLM_PROVIDER is ${provider}`)
  const timeout = env.AGENTBOX_LLM_TIMEOUT_MS ?? '60000'
  if (!/^[1-9]\d*$/.test(timeout)) throw new ConfigError(`AGENTBOX_LLM_TIMEOUT_MS must be a whole number of milliseconds (1 or more), got "${timeout}"`)
  return Object.freeze({ provider, model, openai, anthropic, timeoutMs: Number(timeout) })
}

function loadTrustedProxies(text: string): readonly Cidr[] {
  try {
    return Object.freeze(parseTrustedProxies(text))
  } catch (error) {
    if (error instanceof TrustedProxyError) throw new ConfigError(`AGENTBOX_TRUSTED_PROXIES: ${error.message}`)
    throw error
  }
}

function loadOutboundAllow(text: string): readonly AllowEntry[] {
  try {
    return Object.freeze(parseAllowList(text))
  } catch (error) {
    if (error instanceof AllowEntryError) throw new ConfigError(`AGENTBOX_OUTBOUND_ALLOW: ${error.message}`)
    throw error
  }
}

/** An http(s) origin (behind a TLS proxy, the https one clients use); a trailing slash is dropped, a path refused. */
function loadPublicUrl(raw: string | undefined): string | null {
  if (!raw) return null
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`AGENTBOX_PUBLIC_URL must be an http(s) origin like https://agentbox.example.com, got "${raw}"`)
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.pathname !== '/' || url.search || url.hash || url.username || url.password)
    throw new ConfigError(`AGENTBOX_PUBLIC_URL must be an http(s) origin like https://agentbox.example.com (no path), got "${raw}"`)
  return url.origin
}

export function loadConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Config {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        'database-url': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'secrets-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    })
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
  const { values, positionals } = parsed
  const first = positionals[0]
  let command: Command = 'serve'
  if (values.help) command = 'help'
  else if (values.version) command = 'version'
  else if (first !== undefined) {
    if (first === '--help') command = 'help'
    else if (!COMMANDS.includes(first as Command)) throw new ConfigError(`unknown command "${first}"`)
    else command = first as Command
  }
  const backupFile = command === 'backup' ? (positionals[1] ?? null) : null
  if (command === 'backup' && !backupFile) throw new ConfigError('backup needs a target file: agentbox backup FILE')
  if (positionals.length > (command === 'backup' ? 2 : 1)) throw new ConfigError(`unexpected argument "${positionals.at(-1)}"`)
  if ((values.from !== undefined || values.to !== undefined) && command !== 'migrate-to-postgres')
    throw new ConfigError('--from and --to belong to migrate-to-postgres')
  let migration: Config['migration'] = null
  if (command === 'migrate-to-postgres') {
    if (!values.from) throw new ConfigError('migrate-to-postgres needs the data directory to copy: --from DIR')
    if (!values.to) throw new ConfigError('migrate-to-postgres needs the PostgreSQL database to copy into: --to postgres://user:password@host:5432/database')
    migration = { from: resolve(values.from), to: loadDatabaseUrl(values.to, '--to')! }
  }

  const logLevel = (env.AGENTBOX_LOG_LEVEL ?? 'info').toLowerCase()
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) throw new ConfigError(`AGENTBOX_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)
  const licenseMode = (env.AGENTBOX_LICENSE_MODE ?? 'production').toLowerCase()
  if (licenseMode !== 'production' && licenseMode !== 'test') throw new ConfigError('AGENTBOX_LICENSE_MODE must be production or test')

  const port = values.port !== undefined ? parsePort(values.port, '--port') : env.AGENTBOX_PORT ? parsePort(env.AGENTBOX_PORT, 'AGENTBOX_PORT') : 8080
  const dataDir = values.data ?? env.AGENTBOX_DATA_DIR ?? env.STATE_DIRECTORY ?? './data'
  const retention = env.AGENTBOX_INTERACTION_RETENTION_DAYS ?? '365'
  if (!/^[1-9]\d*$/.test(retention)) throw new ConfigError(`AGENTBOX_INTERACTION_RETENTION_DAYS must be a whole number of days (1 or more), got "${retention}"`)
  const taskMinInterval = env.AGENTBOX_TASK_MIN_INTERVAL_S ?? '60'
  if (!/^[1-9]\d*$/.test(taskMinInterval))
    throw new ConfigError(`AGENTBOX_TASK_MIN_INTERVAL_S must be a whole number of seconds (1 or more), got "${taskMinInterval}"`)

  const publicUrl = loadPublicUrl(env.AGENTBOX_PUBLIC_URL)

  return Object.freeze({
    command,
    backupFile: backupFile ? resolve(backupFile) : null,
    migration,
    port,
    host: values.host ?? env.AGENTBOX_HOST ?? '0.0.0.0',
    dataDir: resolve(dataDir),
    secretsDir: resolve(values['secrets-dir'] || env.AGENTBOX_SECRETS_DIR || join(dataDir, 'secrets')),
    databaseUrl:
      values['database-url'] !== undefined
        ? loadDatabaseUrl(values['database-url'], '--database-url')
        : loadDatabaseUrl(env.AGENTBOX_DATABASE_URL, 'AGENTBOX_DATABASE_URL'),
    logLevel: logLevel as LogLevel,
    licenseMode,
    setupToken: env.AGENTBOX_SETUP_TOKEN || null,
    bodyLimit: 1024 * 1024,
    uploadBodyLimit: 10 * 1024 * 1024,
    shutdownGraceMs: 10_000,
    interactionRetentionDays: Number(retention),
    llm: loadLlmConfig(env),
    outboundAllow: loadOutboundAllow(env.AGENTBOX_OUTBOUND_ALLOW ?? ''),
    taskMinIntervalS: Number(taskMinInterval),
    publicUrl,
    trustedProxies: loadTrustedProxies(env.AGENTBOX_TRUSTED_PROXIES ?? ''),
  })
}
