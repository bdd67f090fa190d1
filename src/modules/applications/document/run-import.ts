// Runs imports in a worker thread, one at a time: the request thread only waits, and two large uploads never hold two
// documents' worth of memory at once. The worker is kept while imports keep coming (starting one and loading the
// parser costs ~300 ms) and ended after a minute without work, so an idle server does not carry it.
import { workerUrl } from '../../../platform/worker-url.ts'
import type { ImportedDocument, ImportedOperation } from './import.ts'
import { SpecInvalidError } from './read.ts'

export type ImportRunner = (bytes: ArrayBuffer) => Promise<ImportedDocument>

/**
 * What the worker posts: operations a few hundred at a time, then the document without them (or why it failed).
 * Taking 6,000 operations' strings in one message held the request thread ~75 ms.
 */
export type WorkerAnswer =
  | { ok: true; operations: ImportedOperation[] }
  | { ok: true; result: ImportedDocument }
  | { ok: false; invalid: { message: string; pointer: string } }
  | { ok: false; failure: string }

export const OPERATIONS_PER_MESSAGE = 200

const WORKER_URL = workerUrl(import.meta.url, './import-worker.ts', 'src/modules/applications/document/import-worker.ts')
const IDLE_MS = 60_000
const LARGE_DOCUMENT_BYTES = 4 * 1024 * 1024

export function createImportRunner(idleMs = IDLE_MS): ImportRunner {
  let queue: Promise<unknown> = Promise.resolve()
  let worker: Worker | null = null
  let idleTimer: ReturnType<typeof setTimeout> | undefined

  // Asked to close itself: Worker.terminate() blocks the calling thread while the worker's heap is torn down
  // (~130 ms after GitHub's description, measured), which would stall every request in flight.
  const retire = () => {
    worker?.postMessage({ close: true })
    worker = null
  }

  function runOnce(bytes: ArrayBuffer): Promise<ImportedDocument> {
    clearTimeout(idleTimer)
    // Read now: the buffer is transferred to the worker, which leaves it empty here.
    const size = bytes.byteLength
    if (!worker) {
      worker = new Worker(WORKER_URL)
      // The listening server keeps the process alive; a waiting worker alone must not (tests, CLI commands).
      ;(worker as Worker & { unref(): void }).unref()
    }
    const current = worker
    const operations: ImportedOperation[] = []
    return new Promise<ImportedDocument>((resolve, reject) => {
      current.onmessage = (event: MessageEvent<WorkerAnswer>) => {
        const answer = event.data
        if (answer.ok && 'operations' in answer) {
          for (const operation of answer.operations) operations.push(operation)
        } else if (answer.ok) resolve({ ...answer.result, operations })
        else if ('invalid' in answer) reject(new SpecInvalidError(answer.invalid.message, answer.invalid.pointer))
        else reject(new Error(`API description import failed: ${answer.failure}`))
      }
      current.onerror = (event) => {
        // A worker that failed outside the handler (out of memory) is not trusted with the next import.
        retire()
        reject(new Error(`API description import worker failed: ${event.message}`))
      }
      current.postMessage({ bytes }, [bytes])
    }).finally(() => {
      // After a large document the worker's heap has grown to hold it: end the worker so the memory goes back.
      if (size > LARGE_DOCUMENT_BYTES) retire()
      else {
        idleTimer = setTimeout(retire, idleMs)
        idleTimer.unref?.()
      }
    })
  }

  return (bytes) => {
    const run = queue.then(() => runOnce(bytes))
    queue = run.catch(() => {})
    return run
  }
}
