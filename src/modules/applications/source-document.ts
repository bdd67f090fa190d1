// The API description an application was imported from, kept as uploaded: gzip-compressed with its SHA-256, media
// type and file name, one per revision (bundles export it, a re-import can start from it). Compressed and hashed
// from the uploaded file as a stream, on zlib's thread pool, while the import worker parses its own copy: no second
// copy of a 32 MiB document is made, and the request thread only hands chunks on.
import { createHash } from 'node:crypto'
import { createGunzip, createGzip } from 'node:zlib'
import type { Kysely } from 'kysely'
import type { Database } from '../../platform/db/schema.ts'
import type { ApplicationDocumentsTable } from '../../platform/db/tables/applications.ts'

/** Documents of this many revisions are kept per application (the current one and those before it). */
export const KEPT_DOCUMENT_REVISIONS = 10

const MEDIA_TYPE = /^[A-Za-z0-9][\w.+-]{0,63}\/[A-Za-z0-9][\w.+-]{0,127}$/
/** Types that say nothing about the content: a browser's or curl's default for a file it does not know. */
const UNSPECIFIC = new Set(['application/octet-stream', 'binary/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data'])

/** White space and a UTF-8 byte order mark, skipped to find what the document starts with. */
const LEADING = new Set([0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf])

/** What an import keeps of its upload. */
export interface ArchivedDocument {
  readonly media_type: string
  readonly filename: string | null
  readonly sha256: string
  readonly size: number
  readonly content: Uint8Array
}

/**
 * The upload's own media type (parameters such as charset kept) when it names one, else JSON or YAML by the first
 * character that is not white space: the two forms a description comes in.
 */
function mediaTypeOf(declared: string, firstByte: number | undefined): string {
  const [essence = '', ...parameters] = declared.split(';').map((part) => part.trim())
  if (MEDIA_TYPE.test(essence) && !UNSPECIFIC.has(essence.toLowerCase())) {
    const kept = parameters.filter((parameter) => /^[\w.+-]{1,32}=[\w.+-]{1,64}$/.test(parameter))
    return [essence.toLowerCase(), ...kept].join('; ')
  }
  return firstByte === 0x7b || firstByte === 0x5b ? 'application/json' : 'application/yaml'
}

/** A file name fit to send back in Content-Disposition: no path, no control characters, at most 255 characters. */
function cleanFilename(name: string | undefined): string | null {
  if (!name) return null
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return base === '' ? null : base.slice(0, 255)
}

/** Hashes and compresses the uploaded file as it streams; nothing but the compressed result is held. */
export async function archiveDocument(file: Blob): Promise<ArchivedDocument> {
  const hash = createHash('sha256')
  const gzip = createGzip({ level: 6 })
  const compressed: Buffer[] = []
  gzip.on('data', (chunk: Buffer) => compressed.push(chunk))
  const finished = new Promise<void>((resolve, reject) => {
    gzip.once('end', resolve)
    gzip.once('error', reject)
  })
  let firstByte: number | undefined
  let size = 0
  for await (const chunk of file.stream()) {
    if (firstByte === undefined) firstByte = chunk.find((byte) => !LEADING.has(byte))
    hash.update(chunk)
    size += chunk.byteLength
    if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve))
  }
  gzip.end()
  await finished
  return {
    media_type: mediaTypeOf(file.type, firstByte),
    filename: cleanFilename((file as File).name),
    sha256: hash.digest('hex'),
    size,
    content: new Uint8Array(Buffer.concat(compressed)),
  }
}

/** Stores the document as `revision` of the application and forgets those older than the last ten revisions. */
export async function storeDocument(trx: Kysely<Database>, applicationId: string, revision: number, document: ArchivedDocument, actorId: string, now: string) {
  await trx
    .insertInto('application_documents')
    .values({ application_id: applicationId, revision, ...document, created_at: now, created_by: actorId })
    .onConflict((oc) => oc.columns(['application_id', 'revision']).doUpdateSet({ ...document, created_at: now, created_by: actorId }))
    .execute()
  await trx
    .deleteFrom('application_documents')
    .where('application_id', '=', applicationId)
    .where('revision', '<=', revision - KEPT_DOCUMENT_REVISIONS)
    .execute()
}

export type StoredDocument = Pick<ApplicationDocumentsTable, 'media_type' | 'filename' | 'sha256' | 'size' | 'content' | 'revision'>

/** The document of the application's current revision, or undefined (imported before documents were kept). */
export function readDocument(db: Kysely<Database>, applicationId: string, revision: number): Promise<StoredDocument | undefined> {
  return db
    .selectFrom('application_documents')
    .select(['media_type', 'filename', 'sha256', 'size', 'content', 'revision'])
    .where('application_id', '=', applicationId)
    .where('revision', '=', revision)
    .executeTakeFirst()
}

/** The document as uploaded, decompressed as it is sent (on zlib's thread pool, a chunk at a time). */
export function inflatedStream(content: Uint8Array): ReadableStream<Uint8Array> {
  const gunzip = createGunzip()
  return new ReadableStream<Uint8Array>({
    start(controller) {
      gunzip.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk))
        if ((controller.desiredSize ?? 1) <= 0) gunzip.pause()
      })
      gunzip.once('end', () => controller.close())
      gunzip.once('error', (error) => controller.error(error))
      gunzip.end(content)
    },
    pull() {
      gunzip.resume()
    },
    cancel() {
      gunzip.destroy()
    },
  })
}
