// Parses large JSON request bodies in a worker thread (json-worker.ts): the request thread transfers the bytes and
// waits. One worker, started by the first large body and asked to close after a minute without one, so an idle server
// does not carry it; jobs are answered by id, one after another.
import { workerUrl } from '../worker-url.ts'
import type { JsonBodyResult } from './json-text.ts'
import type { JsonAnswer, JsonJob } from './json-worker.ts'

const WORKER_URL = workerUrl(import.meta.url, './json-worker.ts', 'src/platform/http/json-worker.ts')
const IDLE_MS = 60_000

export type JsonParser = (bytes: Uint8Array, maxValues?: number) => Promise<JsonBodyResult>

export function createJsonWorkerParser(idleMs = IDLE_MS): JsonParser {
  let worker: Worker | null = null
  let nextId = 0
  let idleTimer: ReturnType<typeof setTimeout> | undefined
  const pending = new Map<number, { resolve: (result: JsonBodyResult) => void; reject: (error: Error) => void }>()

  // Asked to close itself: Worker.terminate() blocks the calling thread while the worker's heap is torn down.
  const retire = () => {
    worker?.postMessage({ close: true } satisfies JsonJob)
    worker = null
  }

  const start = (): Worker => {
    const created = new Worker(WORKER_URL)
    // The listening server keeps the process alive; a waiting worker alone must not (tests, CLI commands).
    ;(created as Worker & { unref(): void }).unref()
    created.onmessage = (event: MessageEvent<JsonAnswer>) => {
      const answer = event.data
      const waiting = pending.get(answer.id)
      pending.delete(answer.id)
      waiting?.resolve(answer.ok ? { ok: true, value: answer.value } : { ok: false, error: answer.error })
      if (pending.size === 0) {
        idleTimer = setTimeout(retire, idleMs)
        idleTimer.unref?.()
      }
    }
    created.onerror = (event) => {
      // A worker that failed (out of memory) is replaced by the next body (and asked to close, should it still run);
      // what it held fails now, as a 500.
      created.postMessage({ close: true } satisfies JsonJob)
      if (worker === created) worker = null
      for (const waiting of pending.values()) waiting.reject(new Error(`JSON worker failed: ${event.message}`))
      pending.clear()
    }
    return created
  }

  return (bytes, maxValues) =>
    new Promise<JsonBodyResult>((resolve, reject) => {
      clearTimeout(idleTimer)
      worker ??= start()
      const id = ++nextId
      pending.set(id, { resolve, reject })
      // Transferred, not copied: a view over part of a larger buffer is copied out first.
      const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice()
      const buffer = owned.buffer as ArrayBuffer
      worker.postMessage({ id, bytes: buffer, maxValues } satisfies JsonJob, [buffer])
    })
}
