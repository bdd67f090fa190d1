// The SQLite data layer: pragmas, migrations through the static provider, the pre-migration copy, the downgrade guard,
// backups. These run on SQLite in both test runs (the file is what they test); database-postgres.test.ts checks what
// PostgreSQL does differently, made the same.
import { afterEach, describe, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { CompiledQuery, sql } from 'kysely'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backupDatabaseFile, BackupError } from '../../src/platform/db/backup.ts'
import { openDatabase, type SqliteHandle } from '../../src/platform/db/database.ts'
import { migrateToLatest, MigrationError } from '../../src/platform/db/migrate.ts'
import { MIGRATIONS } from '../../src/platform/db/migrations/index.ts'
import { queryPlan } from '../../src/platform/db/query-plan.ts'
import { writeTransaction } from '../../src/platform/db/write-transaction.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { startTestServer } from '../helpers/server.ts'

const dirs: string[] = []
const handles: SqliteHandle[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentbox-db-'))
  dirs.push(dir)
  return dir
}
const open = (path: string) => {
  const handle = openDatabase({ kind: 'sqlite', path }) as SqliteHandle
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

describe('the change stamp and the read connection (what the authenticator relies on)', () => {
  const setUp = () => {
    const handle = open(join(tempDir(), 'stamp.db'))
    handle.writer.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')
    handle.writer.run("INSERT INTO t (v) VALUES ('a'), ('b')")
    return handle
  }
  const count = (connection: Sqlite) => (connection.query('SELECT count(*) AS n FROM t').get() as { n: number }).n

  test('moves on every write that changes a row, stands still otherwise, and is null inside a transaction', async () => {
    const handle = setUp()
    const first = handle.changeStamp()
    expect(first).toEqual(expect.any(Number))
    expect(handle.changeStamp()).toBe(first)
    handle.writer.run("UPDATE t SET v = 'x' WHERE id = 999")
    expect(handle.changeStamp()).toBe(first)
    handle.writer.run("UPDATE t SET v = 'c' WHERE id = 1")
    const afterUpdate = handle.changeStamp()
    expect(afterUpdate).not.toBe(first)
    await handle.db.transaction().execute(async (trx) => {
      expect(handle.changeStamp()).toBeNull()
      await sql`UPDATE t SET v = 'e' WHERE id = 2`.execute(trx)
      expect(handle.changeStamp()).toBeNull()
    })
    expect(handle.changeStamp()).not.toBe(afterUpdate)
  })

  test('a write transaction moves it once committed, unless it says it writes nothing a cache reads', async () => {
    const handle = setUp()
    const insert = (v: string) => CompiledQuery.raw('INSERT INTO t (v) VALUES (?)', [v])
    const before = handle.changeStamp()
    const rowids = await writeTransaction(handle.db, async (run) => {
      expect(handle.changeStamp()).toBeNull()
      return [(await run(insert('f'))).insertId, (await run(insert('g'))).insertId]
    })
    expect(rowids).toEqual([3, 4])
    const afterStamped = handle.changeStamp()
    expect(afterStamped).not.toBe(before)
    await writeTransaction(
      handle.db,
      async (run) => {
        expect(handle.changeStamp()).toBeNull()
        await run(insert('h'))
      },
      { unstamped: true },
    )
    expect(count(handle.writer)).toBe(5)
    expect(handle.changeStamp()).toBe(afterStamped)
    // A later ordinary write still moves it.
    handle.writer.run("UPDATE t SET v = 'i' WHERE id = 1")
    expect(handle.changeStamp()).not.toBe(afterStamped)
    const afterUpdate = handle.changeStamp()
    // A failed transaction is rolled back whole, and the stamp never goes back to a value a cache may have seen.
    await expect(
      writeTransaction(
        handle.db,
        async (run) => {
          await run(insert('j'))
          throw new Error('stop')
        },
        { unstamped: true },
      ),
    ).rejects.toThrow('stop')
    expect(count(handle.writer)).toBe(5)
    expect(handle.changeStamp()).not.toBeNull()
    expect(handle.writer.inTransaction).toBe(false)
    expect(typeof afterUpdate).toBe('number')
  })

  test('the read connection sees each commit on its next read, also after a query plan was read', () => {
    const handle = setUp()
    expect(count(handle.reader)).toBe(2)
    expect(queryPlan(handle.reader, 'SELECT v FROM t WHERE id = ?', [1]).join(' ')).toContain('INTEGER PRIMARY KEY')
    handle.writer.run('DELETE FROM t')
    expect(count(handle.reader)).toBe(0)
    handle.writer.run("INSERT INTO t (v) VALUES ('d')")
    expect(count(handle.reader)).toBe(1)
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
    handle.writer.run("INSERT INTO instance VALUES (1, '2026-01-01T00:00:00.000Z', 'Keepsake Org', 'c', 'u')")
    const next = { ...MIGRATIONS, '9000_add_notes': { up: async (db: any) => db.schema.createTable('notes').addColumn('v', 'text').execute() } }
    const report = await migrateToLatest(handle, join(dir, 'backups'), Date.parse('2026-11-21T10:00:00Z'), next)
    expect(report.applied).toEqual(['9000_add_notes'])
    expect(report.backupPath).toBe(join(dir, 'backups', 'pre-migrate-20261121T100000Z-9000_add_notes.db'))
    const copy = new Sqlite(report.backupPath!, { readonly: true })
    expect(copy.query('SELECT org_name FROM instance').get()).toEqual({ org_name: 'Keepsake Org' })
    expect(copy.query("SELECT count(*) AS n FROM sqlite_master WHERE name = 'notes'").get()).toEqual({ n: 0 })
    copy.close()
  })

  test('a failing migration is reported as a MigrationError naming it and the backup', async () => {
    const dir = tempDir()
    const handle = open(join(dir, 'a.db'))
    await migrateToLatest(handle, join(dir, 'backups'), Date.now())
    const next = { ...MIGRATIONS, '9000_broken': { up: async (db: any) => db.schema.createTable('users').addColumn('v', 'text').execute() } }
    const failure = migrateToLatest(handle, join(dir, 'backups'), Date.now(), next)
    expect(failure).rejects.toBeInstanceOf(MigrationError)
    expect(failure).rejects.toThrow(/migration 9000_broken failed: .*already exists; the database before migrating is at .*pre-migrate-/)
  })
})

describe('backups', () => {
  // The server under test runs on the suite's database: on PostgreSQL there is no file to copy (pg_dump's job).
  test.skipIf(ON_POSTGRES)('agentbox backup copies a live database consistently, with acknowledged writes in it', async () => {
    const t = await startTestServer()
    try {
      const { adminToken } = await t.provision()
      await t.createUser(adminToken, { email: 'm@example.com' })
      const target = join(tempDir(), 'nested', 'copy.db')
      backupDatabaseFile(join(t.dataDir, 'agentbox.db'), target)
      const copy = new Sqlite(target, { readonly: true })
      expect((copy.query("SELECT email FROM users WHERE kind = 'person' ORDER BY email").all() as { email: string }[]).map((r) => r.email)).toEqual([
        'admin@example.com',
        'm@example.com',
      ])
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
