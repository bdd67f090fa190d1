// The import worker: reads one API description off the request thread (parsing and validating GitHub's 13 MB
// description takes over a second) and posts back the operations ready to store, a few hundred per message so the
// request thread takes them in small turns. One worker per import.
import { asciiText } from './ascii-text.ts'
import { importApiDocument } from './import.ts'
import { type DocumentSource, MAX_NESTING, SpecInvalidError } from './read.ts'
import { type ImportJob, OPERATIONS_PER_MESSAGE, type WorkerAnswer } from './run-import.ts'

declare const self: Worker

const answer = (message: WorkerAnswer) => self.postMessage(message)

/** The upload as text. The bytes are moved out of the message first, so that neither they nor the text outlive their use. */
function sourceOf(data: { bytes: ArrayBuffer }): DocumentSource {
  let bytes: ArrayBuffer | null = data.bytes.transfer()
  try {
    // YAML with characters past ASCII: one byte a character (ascii-text.ts), half the text's memory while it parses.
    const ascii = asciiText(new Uint8Array(bytes))
    const text = ascii ?? { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }
    return { ...text, collect: () => Bun.gc(true), collectSoon: () => Bun.gc(false) }
  } catch (error) {
    if (error instanceof SpecInvalidError) throw error
    throw new SpecInvalidError('The file is not UTF-8 text', '')
  } finally {
    bytes = null
  }
}

self.onmessage = async (event: MessageEvent<ImportJob>) => {
  // Emptied first: tearing a worker down holds the thread that created it while the worker's heap is freed, and
  // collecting here costs only this thread.
  if ('close' in event.data) {
    Bun.gc(true)
    return process.exit(0)
  }
  const { id } = event.data
  try {
    const source = sourceOf(event.data)
    // The upload's bytes are garbage now (the text is what is parsed): 32 MiB that would otherwise live through the parse.
    Bun.gc(true)
    const { operations, ...document } = await importApiDocument(source)
    // The parsed tree is garbage now (the operations are strings): collected here, on this thread, before the request
    // thread starts storing, so that the two never hold their peaks at once.
    Bun.gc(true)
    for (let start = 0; start < operations.length; start += OPERATIONS_PER_MESSAGE)
      answer({ id, ok: true, operations: operations.slice(start, start + OPERATIONS_PER_MESSAGE) })
    answer({ id, ok: true, result: { ...document, operations: [] } })
  } catch (error) {
    if (error instanceof SpecInvalidError) answer({ id, ok: false, invalid: { message: error.message, pointer: error.pointer } })
    else if (error instanceof RangeError) answer({ id, ok: false, invalid: { message: `The document nests deeper than ${MAX_NESTING} levels`, pointer: '' } })
    else answer({ id, ok: false, failure: error instanceof Error ? `${error.name}: ${error.message}` : String(error) })
  }
}
