// The import worker: reads one API description off the request thread (parsing and validating GitHub's 13 MB
// description takes over a second) and posts back the operations ready to store. One worker per import.
import { importApiDocument } from './import.ts'
import { SpecInvalidError } from './read.ts'

declare const self: Worker

self.onmessage = async (event: MessageEvent<{ bytes: ArrayBuffer } | { close: true }>) => {
  if ('close' in event.data) return process.exit(0)
  try {
    let text: string
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(event.data.bytes)
    } catch {
      throw new SpecInvalidError('The file is not UTF-8 text', '')
    }
    self.postMessage({ ok: true, result: await importApiDocument(text) })
  } catch (error) {
    if (error instanceof SpecInvalidError) self.postMessage({ ok: false, invalid: { message: error.message, pointer: error.pointer } })
    else if (error instanceof RangeError) self.postMessage({ ok: false, invalid: { message: 'The document nests too deeply to read', pointer: '' } })
    else self.postMessage({ ok: false, failure: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
  }
}
