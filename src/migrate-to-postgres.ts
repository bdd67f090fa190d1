// `agentbox migrate-to-postgres --from DATA_DIR --to URL`: an instance's SQLite database copied into an empty PostgreSQL
// database, verified, with what the operator must do next. The keys stay in the data directory: they are never copied
// into the database, and nothing here prints a secret (the URL's password is masked).
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DataDirInUseError, lockDataDir } from './platform/data-dir-lock.ts'
import { CopyError, copySqliteToPostgres } from './platform/db/copy-to-postgres.ts'
import { MigrationError } from './platform/db/migrate.ts'
import { redactedUrl } from './platform/db/target.ts'
import { DATABASE_FILE } from './server.ts'

export interface Output {
  out(line: string): void
  err(line: string): void
}

/** Runs the command; answers the exit code (0 copied and verified, 1 refused or failed: the target then holds no rows). */
export async function migrateToPostgres(dataDir: string, url: string, io: Output): Promise<number> {
  const fail = (message: string) => {
    io.err(`agentbox: migrate-to-postgres: ${message}`)
    return 1
  }
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) return fail(`no data directory at ${dataDir}`)
  const databasePath = join(dataDir, DATABASE_FILE)
  if (!existsSync(databasePath)) return fail(`no agentbox database in ${dataDir} (expected ${databasePath})`)

  let lock
  try {
    // A server writing while the copy runs would leave its last writes behind: the copy holds the data dir as a server does.
    lock = lockDataDir(dataDir)
  } catch (error) {
    if (error instanceof DataDirInUseError) return fail(`a server is running on ${dataDir}; stop it first, so that no write is left behind`)
    return fail(`cannot lock ${dataDir}: ${(error as Error).message}`)
  }
  const shown = redactedUrl(url)
  try {
    io.out(`copying ${databasePath} into ${shown}`)
    const started = performance.now()
    const report = await copySqliteToPostgres(databasePath, url, {
      onTable: ({ table, rows }) => io.out(`  ${table}: ${rows} rows, count and checksum match`),
    })
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    io.out(`copied ${report.rows} rows in ${report.tables.length} tables in ${seconds} s; every table verified`)
    io.out(
      `next: start agentbox with --database-url (or AGENTBOX_DATABASE_URL) set to ${shown} and --data ${dataDir}. Sealed secrets were copied sealed: ` +
        `they open only with the keys in ${join(dataDir, 'secrets')}, which stay there; every instance on this database must read that same ` +
        'secrets directory (shared storage or an identical copy), which also holds the key that signs sign-in tokens',
    )
    return 0
  } catch (error) {
    if (error instanceof CopyError || error instanceof MigrationError) return fail(error.message)
    return fail(`failed: ${describe(error)}; the target holds no copied rows`)
  } finally {
    lock.release()
  }
}

/** A driver error's message and code, never its detail (which can quote a row's values). */
function describe(error: unknown): string {
  const { message, code } = error as { message?: string; code?: string }
  return `${message ?? String(error)}${code ? ` (${code})` : ''}`
}
