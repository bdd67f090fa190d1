// The SQLite checkpointer: copies committed pages from the WAL into the database file on a connection of its own, in a
// worker thread, so the request thread's COMMITs only append to the WAL. (With SQLite's automatic checkpoint, the
// COMMIT that crossed 1,000 pages copied the whole WAL into the database file, with its fsyncs, on the request thread:
// 70–500 ms after a large import; docs/benchmarks.md, "Checkpoints off the request thread".)
import { Database as Sqlite } from 'bun:sqlite'
import type { CheckpointAnswer, CheckpointRequest } from './checkpointer.ts'

declare const self: Worker

let connection: Sqlite | null = null
let timer: ReturnType<typeof setInterval> | null = null
let dataVersion: number | null = null
let checkpoint: ReturnType<Sqlite['query']> | null = null
let version: ReturnType<Sqlite['query']> | null = null

const post = (answer: CheckpointAnswer) => self.postMessage(answer)

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const message = event.data
  try {
    if (message.type === 'start') start(message.path, message.intervalMs)
    else if (message.type === 'checkpoint') post({ type: 'checkpointed', id: message.id, ...passive() })
    else close()
  } catch (error) {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) })
  }
}

function start(path: string, intervalMs: number): void {
  connection = new Sqlite(path, { readwrite: true, create: false, strict: true })
  // The final checkpoint at close waits for the writer's last transaction; the periodic ones never wait (PASSIVE).
  connection.run('PRAGMA busy_timeout = 10000')
  connection.run('PRAGMA wal_autocheckpoint = 0')
  checkpoint = connection.query('PRAGMA wal_checkpoint(PASSIVE)')
  // data_version moves when another connection commits: nothing new, no checkpoint.
  version = connection.query('PRAGMA data_version')
  timer = setInterval(tick, intervalMs)
  post({ type: 'ready' })
}

function tick(): void {
  try {
    const now = (version!.get() as { data_version: number }).data_version
    if (now === dataVersion) return
    const result = passive()
    // Pages a reader still needed stay in the WAL: the next tick tries again.
    if (result.busy === 0 && result.checkpointed === result.log) dataVersion = now
  } catch (error) {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) })
  }
}

/** busy: 1 when the checkpoint could not run at all; log: frames in the WAL; checkpointed: frames copied so far. */
function passive(): { busy: number; log: number; checkpointed: number } {
  const row = checkpoint!.get() as { busy: number; log: number; checkpointed: number }
  return { busy: row.busy, log: row.log, checkpointed: row.checkpointed }
}

function close(): void {
  if (timer) clearInterval(timer)
  timer = null
  if (connection) {
    try {
      // Everything into the database file and the WAL emptied, so a stopped server leaves one complete file.
      connection.run('PRAGMA wal_checkpoint(TRUNCATE)')
    } finally {
      checkpoint = null
      version = null
      connection.close()
      connection = null
    }
  }
  post({ type: 'closed' })
  self.onmessage = null
}
