// Starts the SQLite checkpointer (checkpoint-worker.ts) for one database file and speaks to it. The writer runs with
// `wal_autocheckpoint = 0` while the worker lives; if the worker cannot start or dies, the writer's automatic
// checkpoints come back on (`onFailure`), so the WAL never grows without bound.
import { WorkerClient } from '../worker-client.ts'

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
  let failed = false
  let markReady: () => void = () => {}
  let refuseReady: (error: Error) => void = () => {}
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve
    refuseReady = reject
  })
  ready.catch(() => {})
  let closing: Promise<void> | null = null
  let markClosed: () => void = () => {}

  // Not started again after a failure: the writer's automatic checkpoints have taken over.
  const fail = (reason: string) => {
    if (!failed) {
      failed = true
      onFailure(reason)
    }
    refuseReady(new Error(reason))
    client.abandon(new Error(reason))
    markClosed()
  }

  const client: WorkerClient<CheckpointRequest, CheckpointAnswer, CheckpointResult> = new WorkerClient({
    entry: 'src/platform/db/checkpoint-worker.ts',
    name: 'checkpoint worker',
    closeMessage: { type: 'close' },
    // The worker only runs pragmas; a small heap keeps it from adding to the server's peak.
    smol: true,
    onMessage: (answer) => {
      if (answer.type === 'ready') markReady()
      else if (answer.type === 'closed') markClosed()
      else if (answer.type === 'failed') fail(answer.message)
      else client.settle(answer.id)?.resolve({ busy: answer.busy, log: answer.log, checkpointed: answer.checkpointed })
    },
    onFailure: fail,
  })
  client.post({ type: 'start', path, intervalMs })

  return {
    ready,
    checkpointNow() {
      if (failed || closing) return Promise.reject(new Error('the checkpointer is not running'))
      return client.submit((id) => ({ type: 'checkpoint', id }))
    },
    close() {
      closing ??= failed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            markClosed = resolve
            // Held: unreferenced, the worker would not keep the process alive for its answer, and a stopping server whose
            // last handle is this promise would exit before the final checkpoint and before it logs that it stopped.
            void client.retire({ holdProcess: true }).then(resolve)
          })
      return closing
    },
  }
}
