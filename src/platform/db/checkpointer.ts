// Starts the SQLite checkpointer (checkpoint-worker.ts) for one database file and speaks to it. The writer runs with
// `wal_autocheckpoint = 0` while the worker lives; if the worker cannot start or dies, the writer's automatic
// checkpoints come back on (`onFailure`), so the WAL never grows without bound.
import { workerUrl } from '../worker-url.ts'

const WORKER_URL = workerUrl(import.meta.url, './checkpoint-worker.ts', 'src/platform/db/checkpoint-worker.ts')

/** How often the worker looks for new commits (a look is one `PRAGMA data_version`; a checkpoint only when it moved). */
export const CHECKPOINT_INTERVAL_MS = 200

export type CheckpointRequest = { type: 'start'; path: string; intervalMs: number } | { type: 'checkpoint'; id: number } | { type: 'close' }

export type CheckpointAnswer =
  | { type: 'ready' }
  | { type: 'checkpointed'; id: number; busy: number; log: number; checkpointed: number }
  | { type: 'failed'; message: string }
  | { type: 'closed' }

export interface CheckpointResult {
  /** 1 when the checkpoint could not run at all (another checkpoint held the lock). */
  readonly busy: number
  /** Frames in the WAL. */
  readonly log: number
  /** Frames of the WAL now in the database file. */
  readonly checkpointed: number
}

export interface Checkpointer {
  /** Resolves once the worker has its connection (rejects if it could not open one). */
  readonly ready: Promise<void>
  /** A PASSIVE checkpoint now, in the worker: never waits for the writer or readers. */
  checkpointNow(): Promise<CheckpointResult>
  /** A final TRUNCATE checkpoint, then the worker's connection closed and the worker ended. */
  close(): Promise<void>
}

/** `onFailure` is called once, with the reason, when the worker fails to start or fails later. */
export function startCheckpointer(path: string, onFailure: (reason: string) => void, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  // smol: the worker only runs pragmas; a small heap keeps it from adding to the server's peak.
  const worker = new Worker(WORKER_URL, { smol: true } as WorkerOptions)
  ;(worker as Worker & { unref(): void }).unref()
  let failed = false
  let nextId = 0
  const pending = new Map<number, { resolve: (result: CheckpointResult) => void; reject: (error: Error) => void }>()
  let markReady: () => void = () => {}
  let refuseReady: (error: Error) => void = () => {}
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve
    refuseReady = reject
  })
  ready.catch(() => {})
  let closing: Promise<void> | null = null
  let markClosed: () => void = () => {}

  const fail = (reason: string) => {
    if (!failed) {
      failed = true
      onFailure(reason)
    }
    refuseReady(new Error(reason))
    for (const waiting of pending.values()) waiting.reject(new Error(reason))
    pending.clear()
    markClosed()
  }

  worker.onmessage = (event: MessageEvent<CheckpointAnswer>) => {
    const answer = event.data
    if (answer.type === 'ready') markReady()
    else if (answer.type === 'closed') markClosed()
    else if (answer.type === 'failed') fail(answer.message)
    else {
      const waiting = pending.get(answer.id)
      pending.delete(answer.id)
      waiting?.resolve({ busy: answer.busy, log: answer.log, checkpointed: answer.checkpointed })
    }
  }
  worker.onerror = (event) => {
    event.preventDefault?.()
    fail(`checkpoint worker failed: ${event.message}`)
  }
  worker.addEventListener('close', () => {
    if (closing) markClosed()
    else fail('checkpoint worker exited')
  })
  worker.postMessage({ type: 'start', path, intervalMs } satisfies CheckpointRequest)

  return {
    ready,
    checkpointNow() {
      if (failed || closing) return Promise.reject(new Error('the checkpointer is not running'))
      const id = ++nextId
      return new Promise<CheckpointResult>((resolve, reject) => {
        pending.set(id, { resolve, reject })
        worker.postMessage({ type: 'checkpoint', id } satisfies CheckpointRequest)
      })
    },
    close() {
      closing ??= failed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            // Unreferenced, the worker would not keep the process alive for its answer: a stopping server whose last
            // handle is this promise would exit before the final checkpoint and before it logs that it stopped.
            ;(worker as Worker & { ref(): void }).ref()
            markClosed = resolve
            worker.postMessage({ type: 'close' } satisfies CheckpointRequest)
          })
      return closing
    },
  }
}
