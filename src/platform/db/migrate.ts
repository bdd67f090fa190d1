// Brings the schema up to date at boot. SQLite: a VACUUM INTO copy first (Kysely runs SQLite migrations without a
// transaction). PostgreSQL: every pending migration in one transaction, under an advisory lock, so that instances
// booting together migrate once (the others wait, then find nothing pending).
import { Migrator, sql, type Migration, type MigrationResult } from 'kysely'
import { join } from 'node:path'
import pg from 'pg'
import { vacuumInto } from './backup.ts'
import type { DatabaseHandle } from './database.ts'
import { forMigrations } from './dialect.ts'
import { MIGRATIONS } from './migrations/index.ts'

export class MigrationError extends Error {}

export interface MigrationReport {
  /** Names of the migrations this call ran, in order. */
  readonly applied: readonly string[]
  /** The copy taken before migrating, or null when there was nothing to protect (fresh, up to date, or PostgreSQL). */
  readonly backupPath: string | null
}

/** The advisory lock key instances migrate under ("agentbox" in ASCII as a 64-bit integer). */
export const MIGRATION_LOCK_KEY = '7018690069353623416'

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

/**
 * Steps performed:
 * 1. (PostgreSQL) take the migration lock on a connection of its own, waiting while another instance migrates;
 * 2. refuse a database that ran migrations this binary does not know (a downgrade);
 * 3. (SQLite) if some migrations are pending on a database that already holds tables, copy it to backups/;
 * 4. run the pending ones and check the result object: Kysely's Migrator reports failures instead of throwing.
 */
export async function migrateToLatest(
  handle: DatabaseHandle,
  backupDir: string,
  nowMs: number,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<MigrationReport> {
  if (handle.kind === 'sqlite') return migrateSqlite(handle, backupDir, nowMs, migrations)
  const { url } = handle.target as { url: string }
  const lock = new pg.Client({ connectionString: url, application_name: 'agentbox-migrate' })
  await lock.connect()
  try {
    await lock.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
    return await migrate(handle, migrations, async () => null)
  } finally {
    // Ending the session frees the lock even if the unlock statement fails.
    await lock.end().catch(() => {})
  }
}

async function migrateSqlite(
  handle: Extract<DatabaseHandle, { kind: 'sqlite' }>,
  backupDir: string,
  nowMs: number,
  migrations: Readonly<Record<string, Migration>>,
): Promise<MigrationReport> {
  return migrate(handle, migrations, async (pendingFirst) => {
    // Anything but an empty file is worth a copy, including a database whose bookkeeping was lost.
    const hasData =
      handle.writer.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%' LIMIT 1").get() !== null
    if (!hasData) return null
    const backupPath = join(backupDir, `pre-migrate-${stamp(nowMs)}-${pendingFirst}.db`)
    vacuumInto(handle.writer, backupPath)
    return backupPath
  })
}

/** The names in kysely_migration, or none when the table does not exist yet. */
async function executedMigrations(handle: DatabaseHandle): Promise<string[]> {
  if (handle.kind === 'sqlite') {
    const hasBookkeeping = handle.writer.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get() !== null
    return hasBookkeeping ? (handle.writer.query('SELECT name FROM kysely_migration').all() as { name: string }[]).map((row) => row.name) : []
  }
  const exists = await sql<{ present: string | null }>`SELECT to_regclass('kysely_migration')::text AS present`.execute(handle.db)
  if (exists.rows[0]?.present == null) return []
  return (await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(handle.db)).rows.map((row) => row.name)
}

async function migrate(
  handle: DatabaseHandle,
  migrations: Readonly<Record<string, Migration>>,
  backup: (firstPending: string) => Promise<string | null>,
): Promise<MigrationReport> {
  // On PostgreSQL the migrations' SQLite column types are read as PostgreSQL's (dialect.ts).
  const db = forMigrations(handle.db)
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ ...migrations }) } })
  const executed = await executedMigrations(handle)
  const unknown = executed.filter((name) => !(name in migrations))
  if (unknown.length > 0) {
    throw new MigrationError(`the database was migrated by a newer agentbox (unknown migrations: ${unknown.join(', ')}); run that version or restore a backup`)
  }
  const pending = Object.keys(migrations)
    .sort()
    .filter((name) => !executed.includes(name))
  if (pending.length === 0) return { applied: [], backupPath: null }

  const backupPath = await backup(pending[0]!)
  const { error, results } = await migrator.migrateToLatest()
  const applied = (results ?? []).filter((r: MigrationResult) => r.status === 'Success').map((r) => r.migrationName)
  if (error) {
    const failed = (results ?? []).find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    const hint = backupPath ? `; the database before migrating is at ${backupPath}` : ''
    throw new MigrationError(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}${hint}`)
  }
  return { applied, backupPath }
}
