// The SQLite checkpointer: the writer never checkpoints itself, a worker copies committed pages into the database
// file, a close leaves one complete file, a failed worker gives the writer its automatic checkpoints back, and a
// process killed with SIGKILL in the middle of a large transaction reopens with every commit and none of the rest.
// These run on SQLite in both test runs (the file is what they test).
import { afterEach, describe, expect, test } from 'bun:test'
import { Database as Sqlite } from 'bun:sqlite'
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startCheckpointer } from '../../src/platform/db/checkpointer.ts'
import { openDatabase, type SqliteHandle } from '../../src/platform/db/database.ts'

const dirs: string[] = []
const handles: SqliteHandle[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentbox-ckpt-'))
  dirs.push(dir)
  return dir
}
const open = (path: string, checkpointIntervalMs?: number) => {
  const handle = openDatabase({ kind: 'sqlite', path }, { checkpointIntervalMs }) as SqliteHandle
  handles.push(handle)
  return handle
}
afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The rows of `table` in the database file alone: a copy without its WAL shows only what was checkpointed. */
function rowsInFileAlone(path: string, table: string): number {
  const copy = join(tempDir(), 'file-alone.db')
  copyFileSync(path, copy)
  const connection = new Sqlite(copy, { readonly: true })
  try {
    const exists = connection.query('SELECT 1 FROM sqlite_master WHERE name = ?').get(table)
    return exists ? (connection.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n : 0
  } finally {
    connection.close()
  }
}

function writeRows(handle: SqliteHandle, count: number): void {
  handle.writer.run('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)')
  const insert = handle.writer.prepare('INSERT INTO t (body) VALUES (randomblob(4000))')
  handle.writer.transaction(() => {
    for (let i = 0; i < count; i++) insert.run()
  })()
}

describe('the checkpointer', () => {
  test('the writer does not checkpoint: 2,000 pages committed stay in the WAL until the worker copies them', async () => {
    const path = join(tempDir(), 'a.db')
    // No periodic checkpoint during the test: only the ones it asks for.
    const handle = open(path, 3_600_000)
    expect(handle.writer.query('PRAGMA wal_autocheckpoint').get()).toEqual({ wal_autocheckpoint: 0 })
    // A checkpoint first, so the table's creation is in the file and only the rows below are in question.
    writeRows(handle, 0)
    await handle.checkpointNow()
    writeRows(handle, 2000)
    // Over 2,000 pages: SQLite's automatic checkpoint (at 1,000) would have copied them during the COMMIT.
    expect(rowsInFileAlone(path, 't')).toBe(0)
    const result = await handle.checkpointNow()
    expect(result.busy).toBe(0)
    expect(result.log).toBeGreaterThan(2000)
    expect(result.checkpointed).toBe(result.log)
    expect(rowsInFileAlone(path, 't')).toBe(2000)
  })

  test('a close leaves every commit in the database file and no WAL', async () => {
    const path = join(tempDir(), 'b.db')
    const handle = openDatabase({ kind: 'sqlite', path }) as SqliteHandle
    writeRows(handle, 1500)
    await handle.close()
    expect(!existsSync(`${path}-wal`) || statSync(`${path}-wal`).size === 0).toBe(true)
    expect(rowsInFileAlone(path, 't')).toBe(1500)
  })

  test('a worker that cannot open the database reports it once, and the ready promise rejects', async () => {
    const reasons: string[] = []
    const checkpointer = startCheckpointer(join(tempDir(), 'missing', 'none.db'), (reason) => reasons.push(reason))
    await expect(checkpointer.ready).rejects.toThrow()
    expect(reasons).toHaveLength(1)
    await expect(checkpointer.checkpointNow()).rejects.toThrow('not running')
    await checkpointer.close()
  })
})

describe('kill -9', () => {
  test('a writer killed inside a 48 MB transaction, with batches before it partly checkpointed, reopens with exactly its commits', async () => {
    const path = join(tempDir(), 'killed.db')
    const child = Bun.spawn([process.execPath, resolve(import.meta.dir, 'fixtures/checkpoint-writer.ts'), path], {
      stdout: 'pipe',
      stderr: 'inherit',
    })
    let committed = 0
    let walBefore = 0
    let inTransaction = false
    const decoder = new TextDecoder()
    const reader = child.stdout.getReader()
    let buffered = ''
    while (!inTransaction) {
      const { value, done } = await reader.read()
      if (done) break
      buffered += decoder.decode(value)
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        if (line.startsWith('committed ')) {
          committed = Number(line.slice('committed '.length))
          walBefore = statSync(`${path}-wal`).size
        }
        if (line === 'in transaction') inTransaction = true
      }
    }
    expect(inTransaction).toBe(true)
    // The open transaction (48 MB, more than the 8 MB page cache) spilled pages into the WAL: there, uncommitted.
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(walBefore + 8_000_000)
    child.kill('SIGKILL')
    expect(await child.exited).not.toBe(0)
    reader.releaseLock()

    const handle = open(path)
    expect(handle.writer.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
    const batches = handle.writer.query('SELECT batch, count(*) AS n FROM pages GROUP BY batch ORDER BY batch').all()
    expect(committed).toBe(2000)
    expect(batches).toEqual([1, 2, 3, 4].map((batch) => ({ batch, n: 500 })))
    const result = await handle.checkpointNow()
    expect(result.checkpointed).toBe(result.log)
    expect(rowsInFileAlone(path, 'pages')).toBe(2000)
  })
})
