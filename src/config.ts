// loadConfig(argv, env) → one frozen, typed Config. The only reader of process.env and argv flags (CONTRACT §1).
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { LOG_LEVELS, type LogLevel } from './platform/log.ts'

export type Command = 'serve' | 'version' | 'backup' | 'help'
export type LicenseMode = 'production' | 'test'

export interface Config {
  readonly command: Command
  /** For `backup`: where the copy goes. */
  readonly backupFile: string | null
  readonly port: number
  readonly host: string
  /** Absolute path of the data dir; everything the instance owns lives under it. */
  readonly dataDir: string
  readonly logLevel: LogLevel
  readonly licenseMode: LicenseMode
  /** A setup token chosen by the operator instead of a generated one (AGENTBOX_SETUP_TOKEN). */
  readonly setupToken: string | null
  /** Request body limits in bytes (CONTRACT §0). */
  readonly bodyLimit: number
  readonly uploadBodyLimit: number
  /** How long in-flight requests may finish after SIGTERM. */
  readonly shutdownGraceMs: number
  /** Interactions older than this many days are pruned (AGENTBOX_INTERACTION_RETENTION_DAYS, default 365). */
  readonly interactionRetentionDays: number
}

export class ConfigError extends Error {}

export const USAGE = `agentbox — the self-hosted agent platform in one binary

Usage:
  agentbox [serve] [--port N] [--host ADDR] [--data DIR]   serve the platform (default)
  agentbox backup FILE [--data DIR]                        write a consistent copy of the database
  agentbox version                                         print the version
  agentbox help                                            this text

Flags override environment variables:
  --port  AGENTBOX_PORT      (8080)
  --host  AGENTBOX_HOST      (0.0.0.0)
  --data  AGENTBOX_DATA_DIR  (./data; $STATE_DIRECTORY under systemd)
Other settings: AGENTBOX_LOG_LEVEL (debug|info|warn|error), AGENTBOX_LICENSE_MODE (production|test),
AGENTBOX_SETUP_TOKEN, AGENTBOX_INTERACTION_RETENTION_DAYS (365).`

const COMMANDS: readonly Command[] = ['serve', 'version', 'backup', 'help']

function parsePort(raw: string, source: string): number {
  const port = Number(raw)
  if (!/^\d+$/.test(raw) || port < 0 || port > 65535) throw new ConfigError(`${source} must be a port number (0-65535), got "${raw}"`)
  return port
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
  const backupFile = command === 'backup' ? positionals[1] ?? null : null
  if (command === 'backup' && !backupFile) throw new ConfigError('backup needs a target file: agentbox backup FILE')
  if (positionals.length > (command === 'backup' ? 2 : 1)) throw new ConfigError(`unexpected argument "${positionals.at(-1)}"`)

  const logLevel = (env.AGENTBOX_LOG_LEVEL ?? 'info').toLowerCase()
  if (!LOG_LEVELS.includes(logLevel as LogLevel)) throw new ConfigError(`AGENTBOX_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)
  const licenseMode = (env.AGENTBOX_LICENSE_MODE ?? 'production').toLowerCase()
  if (licenseMode !== 'production' && licenseMode !== 'test') throw new ConfigError('AGENTBOX_LICENSE_MODE must be production or test')

  const port = values.port !== undefined ? parsePort(values.port, '--port') : env.AGENTBOX_PORT ? parsePort(env.AGENTBOX_PORT, 'AGENTBOX_PORT') : 8080
  const dataDir = values.data ?? env.AGENTBOX_DATA_DIR ?? env.STATE_DIRECTORY ?? './data'
  const retention = env.AGENTBOX_INTERACTION_RETENTION_DAYS ?? '365'
  if (!/^[1-9]\d*$/.test(retention)) throw new ConfigError(`AGENTBOX_INTERACTION_RETENTION_DAYS must be a whole number of days (1 or more), got "${retention}"`)

  return Object.freeze({
    command,
    backupFile: backupFile ? resolve(backupFile) : null,
    port,
    host: values.host ?? env.AGENTBOX_HOST ?? '0.0.0.0',
    dataDir: resolve(dataDir),
    logLevel: logLevel as LogLevel,
    licenseMode,
    setupToken: env.AGENTBOX_SETUP_TOKEN || null,
    bodyLimit: 1024 * 1024,
    uploadBodyLimit: 10 * 1024 * 1024,
    shutdownGraceMs: 10_000,
    interactionRetentionDays: Number(retention),
  })
}
