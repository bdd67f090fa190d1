// Brings the schema up to date at boot, with a VACUUM INTO copy first: Kysely runs SQLite migrations without a transaction.
import { Migrator, type Migration, type MigrationResult } from 'kysely'
import { join } from 'node:path'
import { vacuumInto } from './backup.ts'
import type { DatabaseHandle } from './database.ts'
import { MIGRATIONS } from './migrations/index.ts'

export class MigrationError extends Error {}

export interface MigrationReport {
  /** Names of the migrations this call ran, in order. */
  readonly applied: readonly string[]
  /** The copy taken before migrating, or null when there was nothing to protect (fresh or up to date). */
  readonly backupPath: string | null
}

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

/**
 * Steps performed:
 * 1. refuse a database that ran migrations this binary does not know (a downgrade);
 * 2. if some migrations are pending on a database that already holds tables, copy it to backups/;
 * 3. run the pending ones and check the result object: Kysely's Migrator reports failures instead of throwing.
 */
export async function migrateToLatest(
  handle: DatabaseHandle,
  backupDir: string,
  nowMs: number,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<MigrationReport> {
  const migrator = new Migrator({ db: handle.db, provider: { getMigrations: async () => ({ ...migrations }) } })
  const known = await migrator.getMigrations()
  const hasBookkeeping = handle.writer.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get() !== null
  const executed = hasBookkeeping ? (handle.writer.query('SELECT name FROM kysely_migration').all() as { name: string }[]) : []
  const unknown = executed.map((row) => row.name).filter((name) => !(name in migrations))
  if (unknown.length > 0) {
    throw new MigrationError(`the database was migrated by a newer agentbox (unknown migrations: ${unknown.join(', ')}); run that version or restore a backup`)
  }
  const pending = known.filter((m) => m.executedAt === undefined)
  if (pending.length === 0) return { applied: [], backupPath: null }

  // Anything but an empty file is worth a copy, including a database whose bookkeeping was lost.
  const hasData =
    handle.writer.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%' LIMIT 1").get() !== null
  let backupPath: string | null = null
  if (hasData) {
    backupPath = join(backupDir, `pre-migrate-${stamp(nowMs)}-${pending[0]!.name}.db`)
    vacuumInto(handle.writer, backupPath)
  }
  const { error, results } = await migrator.migrateToLatest()
  const applied = (results ?? []).filter((r: MigrationResult) => r.status === 'Success').map((r) => r.migrationName)
  if (error) {
    const failed = (results ?? []).find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    const hint = backupPath ? `; the database before migrating is at ${backupPath}` : ''
    throw new MigrationError(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}${hint}`)
  }
  return { applied, backupPath }
}
