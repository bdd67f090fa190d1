// Consistent copies of a live database with VACUUM INTO: a snapshot readers and the running server never block on.
import { Database as Sqlite } from 'bun:sqlite'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { createPool } from './postgres.ts'

export class BackupError extends Error {}

/**
 * Runs `write(path)` on a path inside a fresh 0700 directory beside `target`, makes the result 0600, and renames it
 * onto `target`. The copy holds what the database (or keyring) holds, so it is never readable by others, not even
 * for a moment while it is written; the rename (same filesystem) means a crash never leaves half a file under the
 * target's name.
 */
function writePrivately(target: string, write: (path: string) => void): void {
  mkdirSync(dirname(target), { recursive: true })
  const workDir = mkdtempSync(join(dirname(target), `.${basename(target)}.partial-`))
  try {
    chmodSync(workDir, 0o700)
    const temporary = join(workDir, 'copy')
    write(temporary)
    chmodSync(temporary, 0o600)
    renameSync(temporary, target)
  } finally {
    rmSync(workDir, { recursive: true, force: true })
  }
}

/**
 * Steps performed:
 * 1. VACUUM INTO a temporary file in a private directory beside the target (same filesystem, so step 3 is a
 *    rename, not a copy);
 * 2. quick_check the copy, so a backup that cannot be restored is never reported as made;
 * 3. make it 0600 and rename it over the target.
 */
export function vacuumInto(source: Sqlite, target: string): void {
  writePrivately(target, (temporary) => {
    source.prepare('VACUUM INTO ?').run(temporary)
    const copy = new Sqlite(temporary, { readonly: true })
    try {
      const result = copy.query('PRAGMA quick_check').get() as { quick_check: string } | null
      if (result?.quick_check !== 'ok') throw new BackupError(`backup copy failed its integrity check: ${result?.quick_check}`)
    } finally {
      copy.close()
    }
  })
}

/**
 * `agentbox backup FILE`: opens the database read-only beside a possibly running server and copies it to FILE
 * (0600). The key file every sealed secret needs (the one keyring: all of them, whatever their kind, live in one
 * table under it) goes to `FILE.keys` (0600) when there is one; answers the path of that file, or null.
 */
export function backupDatabaseFile(databasePath: string, target: string, keyFiles: readonly string[] = []): string | null {
  if (!existsSync(databasePath)) throw new BackupError(`no database at ${databasePath}`)
  if (keyFiles.length > 1) throw new BackupError(`expected one credentials keyring, found ${keyFiles.length}`)
  const source = new Sqlite(databasePath, { readonly: true })
  try {
    source.run('PRAGMA busy_timeout = 10000')
    vacuumInto(source, target)
  } finally {
    source.close()
  }
  return backupKeys(target, keyFiles)
}

/**
 * The keyring beside a backup, as `FILE.keys` (0600), or null when there is none. On PostgreSQL this is all `agentbox
 * backup` writes: the database itself is copied with pg_dump, and the keys (in the data dir, never in the database)
 * are what pg_dump cannot take.
 */
export function backupKeys(target: string, keyFiles: readonly string[]): string | null {
  if (keyFiles.length > 1) throw new BackupError(`expected one credentials keyring, found ${keyFiles.length}`)
  if (keyFiles.length === 0) return null
  const keysTarget = `${target}.keys`
  const keyring = readFileSync(keyFiles[0]!)
  writePrivately(keysTarget, (temporary) => writeFileSync(temporary, keyring, { mode: 0o600 }))
  return keysTarget
}

/** Sealed secrets in a database file by namespace and the key that sealed them; null when it has no such table. */
export interface SealedSecretsCount {
  readonly namespace: string
  readonly keyId: string
  readonly values: number
}

/** What a backup copy holds of the secrets subsystem's table (read-only; the key id is the envelope's second field). */
export function sealedSecretsIn(databasePath: string): SealedSecretsCount[] | null {
  const copy = new Sqlite(databasePath, { readonly: true })
  try {
    const table = copy.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sealed_secrets'").get()
    if (!table) return null
    return copy
      .query(
        'SELECT namespace, substr(sealed, 4, instr(substr(sealed, 4), \':\') - 1) AS keyId, count(*) AS "values" FROM sealed_secrets GROUP BY 1, 2 ORDER BY 1, 2',
      )
      .all() as SealedSecretsCount[]
  } finally {
    copy.close()
  }
}

/**
 * The same counts from a live PostgreSQL database (what pg_dump copies), so that `agentbox backup` there can still
 * check that FILE.keys opens every sealed secret; null when it has no such table.
 */
export async function sealedSecretsInPostgres(url: string): Promise<SealedSecretsCount[] | null> {
  const pool = createPool(url, { max: 1, readOnly: true, applicationName: 'agentbox-backup', onError: () => {} })
  try {
    const table = await pool.query<{ present: string | null }>(`SELECT to_regclass('sealed_secrets')::text AS present`)
    if (table.rows[0]?.present == null) return null
    const { rows } = await pool.query<SealedSecretsCount>(
      `SELECT namespace, split_part(sealed, ':', 2) AS "keyId", count(*) AS "values" FROM sealed_secrets GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    return rows
  } finally {
    await pool.end()
  }
}
