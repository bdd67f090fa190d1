// The insights worker: computes insights on its own read-only connection to the database, so a year of rollups never
// holds the request thread. One per server, kept while the server runs.
import { Database as Sqlite } from 'bun:sqlite'
import { Kysely } from 'kysely'
import { BunSqliteDialect } from 'kysely-bun-sqlite'
import type { Database } from '../../platform/db/schema.ts'
import { computeInsights, type InsightsScope } from './compute.ts'

declare const self: Worker

let db: Kysely<Database> | null = null

/**
 * Analytics may take half a core when they come in a stream: once the worker has been busy for more than BURST_MS (300 ms)
 * of the last second or so, it rests as long as each round worked. A single request runs at full speed; a client
 * looping the heaviest request leaves the request thread and the machine's other core to everyone else.
 */
const BURST_MS = 300
let busyMs = 0
let busySince = performance.now()
async function betweenRounds(tookMs: number): Promise<void> {
  const now = performance.now()
  busyMs = busyMs * Math.exp(-(now - busySince) / 1000) + tookMs
  busySince = now
  if (busyMs > BURST_MS) await Bun.sleep(tookMs)
}

interface Job {
  id: number
  path: string
  scope: InsightsScope
  fromMs: number
  toMs: number
}

self.onmessage = async (event: MessageEvent<Job | { close: true }>) => {
  if ('close' in event.data) {
    await db?.destroy()
    return process.exit(0)
  }
  const job = event.data
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
    self.postMessage({ id: job.id, ok: true, json: JSON.stringify(await computeInsights(db, job.scope, job.fromMs, job.toMs, betweenRounds)) })
  } catch (error) {
    self.postMessage({ id: job.id, ok: false, failure: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
  }
}
