// Parses large JSON request bodies in a worker thread (json-worker.ts): the request thread transfers the bytes and
// waits. One worker, started by the first large body and asked to close after a minute without one, so an idle server
// does not carry it; jobs are answered by id, one after another.
import { WorkerClient } from '../worker-client.ts'
import type { JsonBodyResult } from './json-text.ts'
import type { JsonAnswer, JsonJob } from './json-worker.ts'

const IDLE_MS = 60_000

export type JsonParser = (bytes: Uint8Array, maxValues?: number) => Promise<JsonBodyResult>

export function createJsonWorkerParser(idleMs = IDLE_MS): JsonParser {
  // A worker that failed (out of memory) is replaced by the next body; what it held fails now, as a 500.
  const client: WorkerClient<JsonJob, JsonAnswer, JsonBodyResult> = new WorkerClient({
    entry: 'src/platform/http/json-worker.ts',
    name: 'JSON worker',
    closeMessage: { close: true },
    idleMs,
    onMessage: (answer) => client.settle(answer.id)?.resolve(answer.ok ? { ok: true, value: answer.value } : { ok: false, error: answer.error }),
  })
  return function parseInWorker(bytes, maxValues) {
    // Transferred, not copied: a view over part of a larger buffer is copied out first.
    const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice()
    const buffer = owned.buffer as ArrayBuffer
    return client.submit((id) => ({ id, bytes: buffer, maxValues }), [buffer])
  }
}
