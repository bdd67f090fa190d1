// One server per data dir: a second `agentbox serve` on the same directory refuses to start instead of sharing it.
import { Database as Sqlite } from 'bun:sqlite'
import { chmodSync } from 'node:fs'
import { join } from 'node:path'

export const LOCK_FILE = 'agentbox.lock'

export class DataDirInUseError extends Error {
  constructor(dataDir: string) {
    super(`another agentbox process is serving the data dir ${dataDir}; stop it first (agentbox backup works beside it)`)
    this.name = 'DataDirInUseError'
  }
}

export interface DataDirLock {
  release(): void
}

/**
 * Two servers on one data dir would both run the scheduler, and each would trust caches that only its own writes
 * invalidate (the authenticator remembers principals until this process writes). So the server holds an exclusive
 * lock for its whole life.
 *
 * The lock is SQLite's own on a small file of its own: with `locking_mode = EXCLUSIVE` the first write transaction
 * takes a POSIX lock that is kept until the connection closes. The kernel drops it when the process dies, kill -9
 * included, so a crash never leaves a stale lock behind (a pid file would). SQLite also sees its other connections
 * in the same process, so a second server in one test process is refused too.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE)
  const lock = new Sqlite(path, { create: true, readwrite: true })
  try {
    lock.run('PRAGMA busy_timeout = 0')
    lock.run('PRAGMA locking_mode = EXCLUSIVE')
    lock.run('BEGIN EXCLUSIVE')
    lock.run('COMMIT')
    chmodSync(path, 0o600)
  } catch (error) {
    lock.close()
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dataDir)
    throw error
  }
  let held = true
  return {
    release() {
      if (!held) return
      held = false
      lock.close()
    },
  }
}
