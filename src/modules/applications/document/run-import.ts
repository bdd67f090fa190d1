// Runs an import in its own worker thread, one at a time: the request thread only waits, and two large uploads never
// hold two documents' worth of memory at once.
import { workerUrl } from '../../../platform/worker-url.ts'
import type { ImportedDocument } from './import.ts'
import { SpecInvalidError } from './read.ts'

export type ImportRunner = (bytes: ArrayBuffer) => Promise<ImportedDocument>

type WorkerAnswer = { ok: true; result: ImportedDocument } | { ok: false; invalid: { message: string; pointer: string } } | { ok: false; failure: string }

const WORKER_URL = workerUrl(import.meta.url, './import-worker.ts', 'src/modules/applications/document/import-worker.ts')

function runInWorker(bytes: ArrayBuffer): Promise<ImportedDocument> {
  const worker = new Worker(WORKER_URL)
  return new Promise<ImportedDocument>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerAnswer>) => {
      const answer = event.data
      if (answer.ok) resolve(answer.result)
      else if ('invalid' in answer) reject(new SpecInvalidError(answer.invalid.message, answer.invalid.pointer))
      else reject(new Error(`API description import failed: ${answer.failure}`))
    }
    worker.onerror = (event) => reject(new Error(`API description import worker failed: ${event.message}`))
    worker.postMessage({ bytes }, [bytes])
  }).finally(() => worker.terminate())
}

export function createImportRunner(): ImportRunner {
  let queue: Promise<unknown> = Promise.resolve()
  return (bytes) => {
    const run = queue.then(() => runInWorker(bytes))
    queue = run.catch(() => {})
    return run
  }
}
