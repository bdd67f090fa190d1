// The data layer: pragmas, migrations through the static provider, the pre-migration copy, the downgrade guard, backups.
import { afterEach, describe, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backupDatabaseFile, BackupError } from '../../src/platform/db/backup.ts'
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts'
import { migrateToLatest, MigrationError } from '../../src/platform/db/migrate.ts'
import { MIGRATIONS } from '../../src/platform/db/migrations/index.ts'
import { startTestServer } from '../helpers/server.ts'

const dirs: string[] = []
const handles: DatabaseHandle[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentbox-db-'))
  dirs.push(dir)
  return dir
}
const open = (path: string) => {
  const handle = openDatabase(path)
  handles.push(handle)
  return handle
}
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('openDatabase', () => {
  test('uses WAL, synchronous NORMAL, foreign keys and a busy timeout', () => {
    const handle = open(join(tempDir(), 'a.db'))
    const pragma = (name: string) => Object.values(handle.writer.query(`PRAGMA ${name}`).get() as object)[0]
    expect(pragma('journal_mode')).toBe('wal')
    expect(pragma('synchronous')).toBe(1)
    expect(pragma('foreign_keys')).toBe(1)
    expect(pragma('busy_timeout')).toBe(10000)
  })

  test('the read connection cannot write', () => {
    const handle = open(join(tempDir(), 'a.db'))
    expect(() => handle.reader.run('CREATE TABLE x (id INTEGER)')).toThrow()
  })
})

describe('migrateToLatest', () => {
  test('a fresh database runs every migration and takes no backup', async () => {
    const dir = tempDir()
    const handle = open(join(dir, 'a.db'))
    const report = await migrateToLatest(handle, join(dir, 'backups'), Date.now())
    expect(report).toEqual({ applied: Object.keys(MIGRATIONS), backupPath: null })
    expect(await migrateToLatest(handle, join(dir, 'backups'), Date.now())).toEqual({ applied: [], backupPath: null })
  })

  test('a database migrated by a newer binary is refused with a clear message', async () => {
    const dir = tempDir()
    const handle = open(join(dir, 'a.db'))
    await migrateToLatest(handle, join(dir, 'backups'), Date.now())
    handle.writer.run("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_the_future', '2030-01-01T00:00:00.000Z')")
    expect(migrateToLatest(handle, join(dir, 'backups'), Date.now())).rejects.toThrow(/newer agentbox.*9999_from_the_future/)
  })

  test('pending migrations on a database with data are preceded by a VACUUM INTO copy', async () => {
    const dir = tempDir()
    const handle = open(join(dir, 'a.db'))
    await migrateToLatest(handle, join(dir, 'backups'), Date.now())
    // Pretend the newest migration has not run yet: forget it and drop what it made.
    const last = Object.keys(MIGRATIONS).at(-1)!
    await MIGRATIONS[last]!.down!(handle.db as never)
    handle.writer.run('DELETE FROM kysely_migration WHERE name = ?', [last])
    handle.writer.run("CREATE TABLE keepsake (v TEXT)")
    handle.writer.run("INSERT INTO keepsake VALUES ('precious')")
    const report = await migrateToLatest(handle, join(dir, 'backups'), Date.parse('2026-11-21T10:00:00Z'))
    expect(report.applied).toEqual([last])
    expect(report.backupPath).toBe(join(dir, 'backups', `pre-migrate-20261121T100000Z-${last}.db`))
    const copy = new Sqlite(report.backupPath!, { readonly: true })
    expect(copy.query('SELECT v FROM keepsake').get()).toEqual({ v: 'precious' })
    copy.close()
  })

  test('a failing migration is reported as a MigrationError naming it and the backup', async () => {
    const dir = tempDir()
    const handle = open(join(dir, 'a.db'))
    await migrateToLatest(handle, join(dir, 'backups'), Date.now())
    const last = Object.keys(MIGRATIONS).at(-1)!
    handle.writer.run('DELETE FROM kysely_migration WHERE name = ?', [last])
    // Its tables still exist, so running it again fails.
    const failure = migrateToLatest(handle, join(dir, 'backups'), Date.now())
    expect(failure).rejects.toBeInstanceOf(MigrationError)
    expect(failure).rejects.toThrow(new RegExp(`migration ${last} failed.*pre-migrate-`))
  })
})

describe('backups', () => {
  test('agentbox backup copies a live database consistently, with acknowledged writes in it', async () => {
    const t = await startTestServer()
    try {
      const { adminToken } = await t.provision()
      await t.createUser(adminToken, { email: 'm@example.com' })
      const target = join(tempDir(), 'nested', 'copy.db')
      backupDatabaseFile(join(t.dataDir, 'agentbox.db'), target)
      const copy = new Sqlite(target, { readonly: true })
      expect((copy.query("SELECT email FROM users WHERE kind = 'person' ORDER BY email").all() as { email: string }[]).map((r) => r.email)).toEqual(['admin@example.com', 'm@example.com'])
      expect(copy.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
      copy.close()
      expect(readdirSync(join(target, '..'))).toEqual(['copy.db'])
      // A second backup to the same file replaces it.
      backupDatabaseFile(join(t.dataDir, 'agentbox.db'), target)
      expect(existsSync(target)).toBe(true)
    } finally {
      await t.close()
    }
  })

  test('backing up a data dir with no database fails clearly', () => {
    const dir = tempDir()
    expect(() => backupDatabaseFile(join(dir, 'agentbox.db'), join(dir, 'x.db'))).toThrow(BackupError)
    expect(existsSync(join(dir, 'agentbox.db'))).toBe(false)
  })
})
