// Runs insights in a worker thread with its own read-only database connection: the request thread only posts the
// job and waits, so analytics over a year of rollups cannot stall other requests (docs/benchmarks.md, "Insights").
// Members' insights on the request thread were tried: no faster within the noise, and a client looping them there
// took the thread from everyone else.
import type { DatabaseTarget } from '../../platform/db/target.ts'
import { requestTraffic } from '../../platform/http/traffic.ts'
import { workerUrl } from '../../platform/worker-url.ts'
import type { InsightsJob } from './compute-in-share.ts'

export type { InsightsJob }

/** Answers the insights of a job as JSON text (an `Insights`). */
export type InsightsRunner = ((job: InsightsJob) => Promise<string>) & { close(): void }

const WORKER_URL = workerUrl(import.meta.url, './insights-worker.ts', 'src/modules/insights/insights-worker.ts')

type Answer = { id: number; ok: true; json: string } | { id: number; ok: false; failure: string }

/** One worker, started on the first request; jobs are answered by id (the worker runs them one after another). */
export function createInsightsRunner(target: DatabaseTarget): InsightsRunner {
  let worker: Worker | null = null
  let nextId = 0
  const pending = new Map<number, { resolve: (json: string) => void; reject: (error: Error) => void }>()

  const start = (): Worker => {
    const created = new Worker(WORKER_URL)
    ;(created as Worker & { unref(): void }).unref()
    created.onmessage = (event: MessageEvent<Answer>) => {
      const waiting = pending.get(event.data.id)
      if (!waiting) return
      pending.delete(event.data.id)
      if (event.data.ok) waiting.resolve(event.data.json)
      else waiting.reject(new Error(`insights failed: ${event.data.failure}`))
    }
    created.onerror = (event) => {
      // A worker that died is replaced by the next request; everything it held fails now.
      worker = null
      for (const waiting of pending.values()) waiting.reject(new Error(`insights worker failed: ${event.message}`))
      pending.clear()
    }
    return created
  }

  const run = ((job: InsightsJob) =>
    new Promise<string>((resolve, reject) => {
      worker ??= start()
      const id = ++nextId
      pending.set(id, { resolve, reject })
      // The count of requests started travels with each job: the worker's fair share asks it whether others came.
      worker.postMessage({ id, target, traffic: requestTraffic.buffer, ...job })
    })) as InsightsRunner
  // Asked to close itself: Worker.terminate() would block the caller while the worker is torn down.
  run.close = () => {
    worker?.postMessage({ close: true })
    worker = null
  }
  return run
}
