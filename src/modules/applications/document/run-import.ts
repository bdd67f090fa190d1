// Runs imports in a worker thread, one at a time: the request thread only waits, and two large uploads never hold two
// documents' worth of memory at once. The worker is kept while imports keep coming (starting one and loading the
// parser costs ~300 ms) and ended after a minute without work, so an idle server does not carry it.
import { WorkerClient } from '../../../platform/worker-client.ts'
import type { ImportedDocument, ImportedOperation } from './import.ts'
import { SpecInvalidError } from './read.ts'

export type ImportRunner = (bytes: ArrayBuffer) => Promise<ImportedDocument>

export type ImportJob = { id: number; bytes: ArrayBuffer } | { close: true }

/**
 * What the worker posts for job `id`: operations a few hundred at a time, then the document without them (or why it
 * failed). Taking 6,000 operations' strings in one message held the request thread ~75 ms.
 */
export type WorkerAnswer = { id: number } & (
  | { ok: true; operations: ImportedOperation[] }
  | { ok: true; result: ImportedDocument }
  | { ok: false; invalid: { message: string; pointer: string } }
  | { ok: false; failure: string }
)

export const OPERATIONS_PER_MESSAGE = 200

const IDLE_MS = 60_000
const LARGE_DOCUMENT_BYTES = 4 * 1024 * 1024

export function createImportRunner(idleMs = IDLE_MS): ImportRunner {
  let queue: Promise<unknown> = Promise.resolve()
  // A worker that failed outside the handler (out of memory) is not trusted with the next import: the next starts another.
  const client: WorkerClient<ImportJob, WorkerAnswer, ImportedDocument, { operations: ImportedOperation[] }> = new WorkerClient({
    entry: 'src/modules/applications/document/import-worker.ts',
    name: 'API description import worker',
    closeMessage: { close: true },
    idleMs,
    onMessage: (answer) => {
      if (answer.ok && 'operations' in answer) {
        const operations = client.waiting(answer.id)?.operations
        for (const operation of answer.operations) operations?.push(operation)
        return
      }
      const job = client.settle(answer.id)
      if (!job) return
      if (answer.ok) job.resolve({ ...answer.result, operations: job.operations })
      else if ('invalid' in answer) job.reject(new SpecInvalidError(answer.invalid.message, answer.invalid.pointer))
      else job.reject(new Error(`API description import failed: ${answer.failure}`))
    },
  })

  function runOnce(bytes: ArrayBuffer): Promise<ImportedDocument> {
    // Read now: the buffer is transferred to the worker, which leaves it empty here.
    const size = bytes.byteLength
    return client
      .submit((id) => ({ id, bytes }), [bytes], { operations: [] })
      .finally(() => {
        // After a large document the worker's heap has grown to hold it: end the worker so the memory goes back.
        if (size > LARGE_DOCUMENT_BYTES) void client.retire()
      })
  }

  return (bytes) => {
    const run = queue.then(() => runOnce(bytes))
    queue = run.catch(() => {})
    return run
  }
}
