// Rollup fold benchmark (SQLite): how long one slice of the rollup folder (src/platform/db/rollup-folder.ts) holds the
// event loop, on a database that already holds --rows counted interactions over a year (the rollups' B-trees at a
// realistic size: 50 users, 2,000 MCP servers × 13 tools), for two backlogs of uncounted rows:
// - recent: what a running server folds, rows recorded in the last minutes (one day and month, every user and tool);
// - spread: the worst case, rows spread over the whole year (nearly every row a new key far from the last one's).
//
//   bun scripts/bench/rollup-fold.ts [--rows 300000] [--backlog 20000] [--calls 20000]
//
// For each slice size (and the folder's own adaptive size), the backlog is recorded, then folded by foldRollups while a
// setImmediate probe measures the longest the event loop went without a turn (the worst slice), with the fold's time
// per row.
//
// Then what every summary and insights request pays when nothing is left to fold: --calls calls of foldRollups against
// the same number of write transactions that read what the fold reads (the watermark and the largest rowid, under
// the writer's lock: what every such fold was before the fast path), alternated in 10 rounds; µs per call, medians.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openDatabase, type SqliteHandle } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import { foldRollups } from '../../src/platform/db/rollup-folder.ts'
import { writeTransaction } from '../../src/platform/db/write-transaction.ts'
import { intOption, median } from './lib.ts'

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: { rows: { type: 'string', default: '300000' }, backlog: { type: 'string', default: '20000' }, calls: { type: 'string', default: '20000' } },
})
const ROWS = intOption(opts.rows!, '--rows')
const BACKLOG = intOption(opts.backlog!, '--backlog')
const CALLS = intOption(opts.calls!, '--calls', 10)
const SLICES: (number | undefined)[] = [undefined, 64, 256, 1000, 4000]

const dir = mkdtempSync(join(tmpdir(), 'agentbox-fold-bench-'))
const handle = openDatabase({ kind: 'sqlite', path: join(dir, 'agentbox.db') }) as SqliteHandle
try {
  await migrateToLatest(handle, join(dir, 'backups'), Date.now())
  const w = handle.writer
  const now = new Date().toISOString()
  const users = Array.from({ length: 50 }, (_, i) => `user-${i}`)
  const addUser = w.query(
    `INSERT INTO users (id, kind, email, name, role, password_hash, active, session_version, created_at, updated_at) VALUES (?, 'person', ?, 'n', 'member', NULL, 1, 0, ?, ?)`,
  )
  for (const id of users) addUser.run(id, `${id}@example.com`, now, now)
  const insert = w.query(
    `INSERT INTO interactions (id, user_id, kind, api_title, action, is_error, duration_seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  let next = 0
  const yearAgo = Date.now() - 365 * 86_400_000
  const record = (n: number, recent = false) =>
    w.transaction(() => {
      for (let k = 0; k < n; k++, next++) {
        const i = next
        insert.run(
          `i${i}`,
          users[i % 50]!,
          i % 3 ? 'mcp_tool' : 'api_action',
          `server-${(i * 7919) % 2000}`,
          `tool-${i % 13}`,
          i % 17 === 0 ? 1 : 0,
          i % 10 === 0 ? null : ((i * 2654435761) % 5000) / 1000 + 0.001,
          new Date(recent ? Date.now() : yearAgo + (i % 365) * 86_400_000 + (i % 86_400) * 1000).toISOString(),
        )
      }
    })()
  // The counted history: recorded, then folded in large slices (not measured).
  for (let done = 0; done < ROWS; done += 50_000) record(Math.min(50_000, ROWS - done))
  await foldRollups(handle.db, { sliceRows: 20_000 })
  console.log(`rollup fold: ${ROWS} rows counted already; a backlog of ${BACKLOG} uncounted rows per case`)
  // The machine's own floor: the longest gap of the same probe with nothing to fold, for 2 s.
  const gapsOf = async (work: () => Promise<unknown>) => {
    const gaps: number[] = []
    let last = performance.now()
    let probing = true
    const probe = () => {
      const at = performance.now()
      gaps.push(at - last)
      last = at
      if (probing) setImmediate(probe)
    }
    setImmediate(probe)
    await work()
    probing = false
    gaps.sort((a, b) => a - b)
    return { worst: gaps.at(-1) ?? 0, p99: gaps[Math.floor(gaps.length * 0.99)] ?? 0 }
  }
  const idle = await gapsOf(() => Bun.sleep(2000))
  console.log(`idle probe for 2 s: worst gap ${idle.worst.toFixed(1)} ms, p99 ${idle.p99.toFixed(2)} ms`)
  console.log('backlog | slice rows | slices | worst event-loop hold (ms) | p99 gap (ms) | µs per row folded')
  for (const recent of [true, false])
    for (const sliceRows of SLICES) {
      record(BACKLOG, recent)
      const began = performance.now()
      let result = { rows: 0, slices: 0 }
      const { worst, p99 } = await gapsOf(async () => {
        result = await foldRollups(handle.db, sliceRows === undefined ? {} : { sliceRows })
      })
      const took = performance.now() - began
      const { rows, slices } = result
      if (rows !== BACKLOG) throw new Error(`folded ${rows} rows, expected ${BACKLOG}`)
      const size = sliceRows === undefined ? 'adaptive' : String(sliceRows)
      console.log(
        `${recent ? 'recent' : 'spread'} | ${size.padStart(10)} | ${String(slices).padStart(6)} | ${worst.toFixed(1).padStart(26)} | ${p99.toFixed(2).padStart(12)} | ${((took * 1000) / rows).toFixed(1)}`,
      )
    }

  // Nothing left to fold: the fold every read of a rollup starts with, against a write transaction of the same reads.
  const largest = w.query<{ e: number }, []>('SELECT coalesce(max(rowid), 0) AS e FROM interactions')
  const counted = w.query<{ w: number }, []>('SELECT last_rowid AS w FROM interaction_rollup_watermark WHERE id = 1')
  const transactionOfReads = () =>
    writeTransaction(handle.db, async () => largest.get()!.e <= counted.get()!.w, { unstamped: true }).then((folded) => {
      if (!folded) throw new Error('rows left to fold')
    })
  const fold = () =>
    foldRollups(handle.db).then((result) => {
      if (result.rows !== 0) throw new Error('rows left to fold')
    })
  const perCall = async (call: () => Promise<unknown>, n: number) => {
    const began = performance.now()
    for (let i = 0; i < n; i++) await call()
    return ((performance.now() - began) * 1000) / n
  }
  await perCall(fold, 1000)
  await perCall(transactionOfReads, 1000)
  const rounds = { fold: [] as number[], transaction: [] as number[] }
  for (let round = 0; round < 10; round++) {
    rounds.fold.push(await perCall(fold, Math.ceil(CALLS / 10)))
    rounds.transaction.push(await perCall(transactionOfReads, Math.ceil(CALLS / 10)))
  }
  const [f, t] = [median(rounds.fold), median(rounds.transaction)]
  console.log(
    `nothing to fold, ${CALLS} calls each in 10 alternated rounds: foldRollups ${f.toFixed(2)} µs a call, a write transaction of the same reads ${t.toFixed(2)} µs (fold / transaction ${(f / t).toFixed(2)}×; rounds: fold ${rounds.fold.map((x) => x.toFixed(1)).join(' ')}, transaction ${rounds.transaction.map((x) => x.toFixed(1)).join(' ')})`,
  )
} finally {
  await handle.close()
  rmSync(dir, { recursive: true, force: true })
}
