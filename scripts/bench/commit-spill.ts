// The COMMIT of a large transaction against the writer's page cache size, with bun:sqlite alone (the server's pragmas,
// automatic checkpoints off as the server runs them): 6,100 rows of 6.5 KB in one transaction, in chunks of 100, the
// shape of a 32 MiB import's storing. Prints the worst chunk, the COMMIT and the whole transaction per cache size.
//   bun scripts/bench/commit-spill.ts [cache sizes in KiB, default 32000 8000 4000]
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [32000, 8000, 4000]
const dir = mkdtempSync(join(tmpdir(), 'agentbox-spill-'))
try {
  for (const kib of sizes) {
    const db = new Database(join(dir, `${kib}.db`), { create: true })
    for (const pragma of ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL', `PRAGMA cache_size = -${kib}`, 'PRAGMA wal_autocheckpoint = 0']) {
      db.run(pragma)
    }
    db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)')
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)')
    const body = 'x'.repeat(6500)
    db.run('BEGIN')
    let worst = 0
    const started = performance.now()
    for (let chunk = 0; chunk < 61; chunk++) {
      const chunkStarted = performance.now()
      for (let i = 0; i < 100; i++) insert.run(`${body}${chunk}.${i}`)
      worst = Math.max(worst, performance.now() - chunkStarted)
    }
    const commitStarted = performance.now()
    db.run('COMMIT')
    const commitMs = performance.now() - commitStarted
    console.log(
      JSON.stringify({ cache_kib: kib, worst_chunk_ms: +worst.toFixed(1), commit_ms: +commitMs.toFixed(1), total_ms: Math.round(performance.now() - started) }),
    )
    db.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
