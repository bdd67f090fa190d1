// The agentbox command line: serve (default) | backup FILE | migrate-to-postgres | version | help. Parses argv and dispatches, nothing else.
import { join } from 'node:path'
import { ConfigError, loadConfig, USAGE } from './config.ts'
import { DataDirInUseError } from './platform/data-dir-lock.ts'
import { readFileSync } from 'node:fs'
import { backupDatabaseFile, backupKeys, type SealedSecretsCount, sealedSecretsIn, sealedSecretsInPostgres } from './platform/db/backup.ts'
import { createLogger, errorFields } from './platform/log.ts'
import { backupSecretsReport, credentialKeyFiles } from './platform/secrets/index.ts'
import { migrateToPostgres } from './migrate-to-postgres.ts'
import { SharedKeyError } from './platform/cluster/shared-keys.ts'
import { createServer, DATABASE_FILE, ListenError } from './server.ts'
import { VERSION } from './version.ts'

async function main(argv: string[]): Promise<number> {
  let config
  try {
    config = loadConfig(argv, process.env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`agentbox: ${error.message}\nRun "agentbox help" for usage.\n`)
    return 2
  }

  switch (config.command) {
    case 'help':
      process.stdout.write(USAGE + '\n')
      return 0
    case 'version':
      process.stdout.write(`agentbox ${VERSION}\n`)
      return 0
    case 'migrate-to-postgres':
      return migrateToPostgres(config.migration!.from, config.migration!.to.url, {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
      })
    case 'backup':
      try {
        let keys: string | null
        let sealed: SealedSecretsCount[] | null
        if (config.databaseUrl) {
          keys = backupKeys(config.backupFile!, credentialKeyFiles(config.dataDir, config.secretsDir))
          process.stdout.write(
            `the database is on PostgreSQL: back it up with pg_dump (pg_dump --format=custom --file=${config.backupFile} "$AGENTBOX_DATABASE_URL")\n` +
              (keys
                ? `credential keys written to ${keys}: keep them with the dump, apart from it; sealed secrets open only with them\n`
                : 'no credential keys to write\n'),
          )
          try {
            sealed = await sealedSecretsInPostgres(config.databaseUrl.url)
          } catch (error) {
            process.stderr.write(`agentbox: could not check the database's sealed secrets against the keys: ${(error as Error).message}\n`)
            return 1
          }
        } else {
          keys = backupDatabaseFile(join(config.dataDir, DATABASE_FILE), config.backupFile!, credentialKeyFiles(config.dataDir, config.secretsDir))
          process.stdout.write(`backup written to ${config.backupFile}${keys ? ` (credential keys in ${keys})` : ''}\n`)
          sealed = sealedSecretsIn(config.backupFile!)
        }
        // Every sealed secret, whatever its kind, is in one table under one keyring: check the database against FILE.keys.
        if (sealed) {
          const report = backupSecretsReport(sealed, keys ? readFileSync(keys, 'utf8') : null, keys)
          process.stdout.write(`${report.summary}\n`)
          for (const warning of report.warnings) process.stderr.write(`agentbox: warning: ${warning}\n`)
        }
        return 0
      } catch (error) {
        process.stderr.write(`agentbox: backup failed: ${(error as Error).message}\n`)
        return 1
      }
    case 'serve': {
      const logger = createLogger(config.logLevel)
      let server
      try {
        server = await createServer(config, { logger })
      } catch (error) {
        // Another server on the data dir is an operator's situation, not a bug: the reason alone, no stack.
        logger.error('could not start', error instanceof DataDirInUseError || error instanceof SharedKeyError ? { error: error.message } : errorFields(error))
        return 1
      }
      try {
        server.start()
      } catch (error) {
        // A port in use is one too; close what createServer opened (scheduler, database, lock) before leaving.
        logger.error('could not start', error instanceof ListenError ? { error: error.message } : errorFields(error))
        await server.stop()
        return 1
      }
      const shutdown = (signal: string) => {
        logger.info('shutting down', { signal })
        server.stop().then(
          () => process.exit(0),
          (error) => {
            logger.error('shutdown failed', errorFields(error))
            process.exit(1)
          },
        )
      }
      process.once('SIGTERM', () => shutdown('SIGTERM'))
      process.once('SIGINT', () => shutdown('SIGINT'))
      return -1
    }
  }
}

const code = await main(process.argv.slice(2))
if (code >= 0) process.exit(code)
