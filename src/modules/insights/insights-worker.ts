// The insights worker: computes insights on its own read-only connection to the database, so a year of rollups never
// holds the request thread. One per server, kept while the server runs.
import { Database as Sqlite } from 'bun:sqlite'
import { Kysely } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import type { Database } from '../../platform/db/schema.ts'
import { FairShare } from '../../platform/fair-share.ts'
import { computeInsights, type InsightsScope } from './compute.ts'

declare const self: Worker

let db: Kysely<Database> | null = null

/**
 * Analytics may take a share of a core when they come in a stream: once the worker has worked more than 150 ms of
 * the last second or so, it rests between rounds of days as long as the round took, and after each job as long as the
 * job took (at least MIN_REST_MS). A single request runs at full speed; a client looping even the cheapest request
 * leaves the request thread and the machine's other core to everyone else (docs/benchmarks.md, "Insights").
 */
const SHARE = new FairShare(150)
const MIN_REST_MS = 2
async function betweenRounds(tookMs: number): Promise<void> {
  if (SHARE.count(tookMs)) await Bun.sleep(tookMs)
}

interface Job {
  id: number
  path: string
  scope: InsightsScope
  fromMs: number
  toMs: number
}

// One job at a time, in the order they came (a job awaits between its queries).
let queue = Promise.resolve()
self.onmessage = (event: MessageEvent<Job | { close: true }>) => {
  const message = event.data
  queue = queue.then(() => ('close' in message ? close() : run(message)))
}

async function close(): Promise<void> {
  await db?.destroy()
  process.exit(0)
}

async function run(job: Job): Promise<void> {
  const began = performance.now()
  let rested = 0
  let counted = 0
  const restBetweenRounds = async (tookMs: number) => {
    const before = performance.now()
    counted += tookMs
    await betweenRounds(tookMs)
    rested += performance.now() - before
  }
  try {
    if (!db) {
      const connection = new Sqlite(job.path, { readonly: true, strict: true })
      connection.run('PRAGMA busy_timeout = 1000')
      // bun:sqlite's cached statements, as the server's own connections use them (platform/db/database.ts).
      db = new Kysely<Database>({
        dialect: new BunSqliteDialect({ database: { prepare: (sql: string) => connection.query(sql), close: () => connection.close() } as unknown as Sqlite }),
      })
    }
    // Sent as JSON text: a string crosses to the request thread as one copy, where a year of day objects would be
    // cloned one by one and then serialised there.
    self.postMessage({ id: job.id, ok: true, json: JSON.stringify(await computeInsights(db, job.scope, job.fromMs, job.toMs, restBetweenRounds)) })
  } catch (error) {
    self.postMessage({ id: job.id, ok: false, failure: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
  }
  // The rounds before the last were counted as they ended; the rest of the job's work is counted here.
  const worked = performance.now() - began - rested
  if (SHARE.count(worked - counted)) await Bun.sleep(Math.max(worked, MIN_REST_MS))
}
