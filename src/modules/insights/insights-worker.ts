// The insights worker: computes insights on its own read-only connection to the database, so a year of rollups never
// holds the request thread. One per server, kept while the server runs.
import type { Kysely } from 'kysely'
import { openReadOnly } from '../../platform/db/read-only.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { DatabaseTarget } from '../../platform/db/target.ts'
import { FairShare } from '../../platform/fair-share.ts'
import type { InsightsScope } from './compute.ts'
import { computeInShare } from './compute-in-share.ts'

declare const self: Worker

let db: Kysely<Database> | null = null

/**
 * Analytics may take a share of a core when they come in a stream: once the worker has worked more than 150 ms of the
 * last second or so, work beside other traffic is followed by a rest (compute-in-share.ts). A single request runs at
 * full speed, and so does a client looping them alone; one looping them beside other traffic leaves the request
 * thread and the machine's other core to everyone else (docs/benchmarks.md, "Insights"). Made with the first job,
 * which brings the request thread's count of requests started (platform/http/traffic.ts).
 */
let share: FairShare | null = null

interface Job {
  id: number
  target: DatabaseTarget
  traffic: SharedArrayBuffer
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
  if (!share) {
    const traffic = new Int32Array(job.traffic)
    share = new FairShare(150, () => Atomics.load(traffic, 0))
  }
  try {
    db ??= openReadOnly(job.target)
    // Sent as JSON text: a string crosses to the request thread as one copy, where a year of day objects would be
    // cloned one by one and then serialised there.
    self.postMessage({ id: job.id, ok: true, json: await computeInShare(db, job, share) })
  } catch (error) {
    self.postMessage({ id: job.id, ok: false, failure: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
  }
}
