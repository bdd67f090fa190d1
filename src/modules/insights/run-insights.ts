// Runs insights in a worker thread with its own read-only database connection: the request thread only posts the
// job and waits, so analytics over a year of rollups cannot stall other requests (docs/benchmarks.md, "Insights").
// Members' insights on the request thread were tried: no faster within the noise, and a client looping them there
// took the thread from everyone else.
import type { DatabaseTarget } from '../../platform/db/target.ts'
import { requestTraffic } from '../../platform/http/traffic.ts'
import { WorkerClient } from '../../platform/worker-client.ts'
import type { InsightsJob } from './compute-in-share.ts'

export type { InsightsJob }

/** Answers the insights of a job as JSON text (an `Insights`). */
export type InsightsRunner = ((job: InsightsJob) => Promise<string>) & { close(): void }

type ToWorker = ({ id: number; target: DatabaseTarget; traffic: SharedArrayBuffer } & InsightsJob) | { close: true }
type Answer = { id: number; ok: true; json: string } | { id: number; ok: false; failure: string }

/**
 * One worker, started on the first request and kept while the server runs; jobs are answered by id (the worker runs
 * them one after another).
 */
export function createInsightsRunner(target: DatabaseTarget): InsightsRunner {
  const client: WorkerClient<ToWorker, Answer, string> = new WorkerClient({
    entry: 'src/modules/insights/insights-worker.ts',
    name: 'insights worker',
    closeMessage: { close: true },
    onMessage: (answer) => {
      const waiting = client.settle(answer.id)
      if (answer.ok) waiting?.resolve(answer.json)
      else waiting?.reject(new Error(`insights failed: ${answer.failure}`))
    },
  })
  // The count of requests started travels with each job: the worker's fair share asks it whether others came.
  const run = ((job: InsightsJob) => client.submit((id) => ({ id, target, traffic: requestTraffic.buffer, ...job }))) as InsightsRunner
  run.close = () => void client.retire()
  return run
}
