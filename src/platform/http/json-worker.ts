// The JSON worker's entry: parses the large request bodies the request thread hands it (json-off-thread.ts), so that
// decoding and JSON.parse of up to 7 MiB (6 MB of `\u0001` escapes took 40–130 ms) never hold the event loop.
import { parseJsonBytes } from './json-text.ts'

declare const self: Worker

export type JsonJob = { readonly id: number; readonly bytes: ArrayBuffer; readonly maxValues?: number } | { readonly close: true }
export type JsonAnswer =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string }

self.onmessage = (event: MessageEvent<JsonJob>) => {
  const job = event.data
  if ('close' in job) {
    self.onmessage = null
    process.exit(0)
  }
  const result = parseJsonBytes(new Uint8Array(job.bytes), job.maxValues)
  self.postMessage(result.ok ? { id: job.id, ok: true, value: result.value } : { id: job.id, ok: false, error: result.error })
}
