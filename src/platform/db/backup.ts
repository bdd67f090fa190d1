// Consistent copies of a live database with VACUUM INTO: a snapshot readers and the running server never block on.
import { Database as Sqlite } from 'bun:sqlite'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'

export class BackupError extends Error {}

/**
 * Steps performed:
 * 1. VACUUM INTO a temporary file beside the target (same filesystem, so step 3 is a rename, not a copy);
 * 2. quick_check the copy, so a backup that cannot be restored is never reported as made;
 * 3. rename it over the target, so a crash mid-way never leaves a half-written file under the target's name.
 */
export function vacuumInto(source: Sqlite, target: string): void {
  mkdirSync(dirname(target), { recursive: true })
  const temporary = `${target}.partial-${process.pid}-${Date.now()}`
  try {
    source.prepare('VACUUM INTO ?').run(temporary)
    const copy = new Sqlite(temporary, { readonly: true })
    try {
      const result = copy.query('PRAGMA quick_check').get() as { quick_check: string } | null
      if (result?.quick_check !== 'ok') throw new BackupError(`backup copy failed its integrity check: ${result?.quick_check}`)
    } finally {
      copy.close()
    }
    renameSync(temporary, target)
  } finally {
    rmSync(temporary, { force: true })
  }
}

/** `agentbox backup FILE`: opens the database read-only beside a possibly running server and copies it. */
export function backupDatabaseFile(databasePath: string, target: string): void {
  if (!existsSync(databasePath)) throw new BackupError(`no database at ${databasePath}`)
  const source = new Sqlite(databasePath, { readonly: true })
  try {
    source.run('PRAGMA busy_timeout = 10000')
    vacuumInto(source, target)
  } finally {
    source.close()
  }
}
