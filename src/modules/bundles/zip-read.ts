// Reading an uploaded zip without trusting it. The central directory is parsed here, field by field, because the checks
// that matter are in fields zip libraries do not hand out (the entry's Unix mode says whether it is a link) or hand out
// and then trust (fflate's unzipSync allocates the size the header declares). Entry data is inflated by node:zlib: an
// entry that declares a large size as a stream on its thread pool, the bytes counted as they come out, so a zip bomb
// stops at the limit whatever its headers say; one that declares a small size in place, never past that size (zlib's
// maxOutputLength), in time slices. fflate's own streaming inflate was measured too: 1.2 s and stalls of 64-148 ms to
// reach 50 MiB of a bomb, against 120 ms and 3.5 ms for zlib's stream.
import { crc32, createInflateRaw, inflateRawSync } from 'node:zlib'
import { TimeSlice } from './time-slice.ts'

export interface ZipLimits {
  /** Entries in the central directory. */
  readonly maxEntries: number
  /** Bytes of all entries once inflated. */
  readonly maxUncompressed: number
}

/** Why an archive was refused, in a sentence for the uploader; `path` names the entry when one is to blame. */
export class ZipRefused extends Error {
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super(message)
    this.name = 'ZipRefused'
  }
}

interface CentralEntry {
  name: string
  method: number
  crc: number
  compressedSize: number
  declaredSize: number
  localOffset: number
  directory: boolean
}

const EOCD_SIGNATURE = 0x06054b50
const CENTRAL_SIGNATURE = 0x02014b50
const LOCAL_SIGNATURE = 0x04034b50
const EOCD_LENGTH = 22
const CENTRAL_LENGTH = 46
const LOCAL_LENGTH = 30
const STORED = 0
/** Entries that declare at most this many bytes are inflated in place (never past what they declare). */
const IN_PLACE_MAX = 256 * 1024
const DEFLATED = 8
/** The file type bits of a Unix mode (the high half of the external attributes): only regular files and directories pass. */
const S_IFMT = 0o170000
const S_IFREG = 0o100000
const S_IFDIR = 0o040000

const utf8 = new TextDecoder('utf-8', { fatal: true })

function findEndOfDirectory(bytes: Uint8Array, view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535: look no further back than that.
  const earliest = Math.max(0, bytes.length - EOCD_LENGTH - 0xffff)
  for (let at = bytes.length - EOCD_LENGTH; at >= earliest; at--) {
    if (view.getUint32(at, true) !== EOCD_SIGNATURE) continue
    // The comment must run exactly to the end, so bytes after the archive (or a signature inside the comment) do not pass.
    if (at + EOCD_LENGTH + view.getUint16(at + 20, true) === bytes.length) return at
  }
  throw new ZipRefused('The file is not a zip archive (no end of central directory record)')
}

/** The entry's name, refused unless it is a plain relative path inside the archive. */
function checkedName(raw: Uint8Array): string {
  let name: string
  try {
    name = utf8.decode(raw)
  } catch {
    throw new ZipRefused('An entry name is not valid UTF-8')
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (name === '' || name.length > 512 || /[\u0000-\u001f\u007f\\]/.test(name))
    throw new ZipRefused(`Entry name not allowed: ${JSON.stringify(name.slice(0, 200))}`, name)
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ZipRefused(`Absolute paths are not allowed: ${name}`, name)
  const segments = name.replace(/\/$/, '').split('/')
  if (segments.some((segment) => segment === '..')) throw new ZipRefused(`Paths may not climb out of the archive (..): ${name}`, name)
  if (segments.some((segment) => segment === '' || segment === '.')) throw new ZipRefused(`Entry name not allowed: ${name}`, name)
  return name
}

function readCentralDirectory(bytes: Uint8Array, limits: ZipLimits): CentralEntry[] {
  if (bytes.length < EOCD_LENGTH) throw new ZipRefused('The file is not a zip archive (too short)')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = findEndOfDirectory(bytes, view)
  const disk = view.getUint16(end + 4, true)
  const directoryDisk = view.getUint16(end + 6, true)
  const entriesHere = view.getUint16(end + 8, true)
  const count = view.getUint16(end + 10, true)
  const size = view.getUint32(end + 12, true)
  const offset = view.getUint32(end + 16, true)
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw new ZipRefused('ZIP64 archives are not accepted (a bundle is far smaller)')
  if (disk !== 0 || directoryDisk !== 0 || entriesHere !== count) throw new ZipRefused('Multi-part (spanned) archives are not accepted')
  if (count > limits.maxEntries) throw new ZipRefused(`The archive has ${count} entries; at most ${limits.maxEntries} are allowed`)
  if (offset + size > end) throw new ZipRefused('The central directory lies outside the archive')

  const entries: CentralEntry[] = []
  const seen = new Set<string>()
  let at = offset
  for (let index = 0; index < count; index++) {
    if (at + CENTRAL_LENGTH > offset + size || view.getUint32(at, true) !== CENTRAL_SIGNATURE) throw new ZipRefused('The central directory is damaged')
    const flags = view.getUint16(at + 8, true)
    const method = view.getUint16(at + 10, true)
    const crc = view.getUint32(at + 16, true)
    const compressedSize = view.getUint32(at + 20, true)
    const declaredSize = view.getUint32(at + 24, true)
    const nameLength = view.getUint16(at + 28, true)
    const extraLength = view.getUint16(at + 30, true)
    const commentLength = view.getUint16(at + 32, true)
    const external = view.getUint32(at + 38, true)
    const localOffset = view.getUint32(at + 42, true)
    const next = at + CENTRAL_LENGTH + nameLength + extraLength + commentLength
    if (next > offset + size) throw new ZipRefused('The central directory is damaged')
    const name = checkedName(bytes.subarray(at + CENTRAL_LENGTH, at + CENTRAL_LENGTH + nameLength))
    const mode = external >>> 16
    const fileType = mode & S_IFMT
    // Unix-made entries keep the mode in the high half of the external attributes; a link or a device is refused.
    if (fileType !== 0 && fileType !== S_IFREG && fileType !== S_IFDIR) {
      throw new ZipRefused(`${fileType === 0o120000 ? 'Links are' : 'Special files are'} not allowed in a bundle: ${name}`, name)
    }
    if (flags & 0x41) throw new ZipRefused(`Encrypted entries are not accepted: ${name}`, name)
    if (method !== STORED && method !== DEFLATED)
      throw new ZipRefused(`Entry ${name} uses compression method ${method}; only stored and deflated entries are accepted`, name)
    const key = name.normalize('NFC')
    if (seen.has(key)) throw new ZipRefused(`The archive holds ${name} twice`, name)
    seen.add(key)
    const directory = name.endsWith('/') || fileType === S_IFDIR
    if (directory && (declaredSize !== 0 || compressedSize > 2)) throw new ZipRefused(`Directory entry ${name} has content`, name)
    entries.push({ name, method, crc, compressedSize, declaredSize, localOffset, directory })
    at = next
  }
  return entries
}

/** Where each entry's data is, after checking that its local header agrees with the directory and no two entries share bytes. */
function locateData(bytes: Uint8Array, entries: CentralEntry[], directoryOffset: number): Map<CentralEntry, number> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const starts = new Map<CentralEntry, number>()
  const byOffset = [...entries].sort((a, b) => a.localOffset - b.localOffset)
  let previousEnd = 0
  for (const entry of byOffset) {
    const at = entry.localOffset
    if (at < previousEnd) throw new ZipRefused(`Entries overlap in the archive (${entry.name})`, entry.name)
    if (at + LOCAL_LENGTH > directoryOffset || view.getUint32(at, true) !== LOCAL_SIGNATURE)
      throw new ZipRefused(`The local header of ${entry.name} is damaged`, entry.name)
    const nameLength = view.getUint16(at + 26, true)
    const extraLength = view.getUint16(at + 28, true)
    const local = bytes.subarray(at + LOCAL_LENGTH, at + LOCAL_LENGTH + nameLength)
    if (Buffer.compare(local, Buffer.from(entry.name, 'utf8')) !== 0) throw new ZipRefused(`The local header of ${entry.name} names another file`, entry.name)
    const start = at + LOCAL_LENGTH + nameLength + extraLength
    const end = start + entry.compressedSize
    if (end > directoryOffset) throw new ZipRefused(`The data of ${entry.name} runs past the archive`, entry.name)
    starts.set(entry, start)
    previousEnd = end
  }
  return starts
}

/** Inflates one entry's data, stopping as soon as more than `budget` bytes have come out. */
function inflateCounted(data: Uint8Array, budget: number, name: string, tooBig: () => ZipRefused): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw()
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      inflate.destroy()
      reject(error)
    }
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > budget) return fail(tooBig())
      chunks.push(chunk)
    })
    inflate.once('error', () => fail(new ZipRefused(`The data of ${name} is not valid deflate data`, name)))
    inflate.once('end', () => {
      if (settled) return
      settled = true
      resolve(new Uint8Array(Buffer.concat(chunks, size)))
    })
    inflate.end(data)
  })
}

/** A small entry inflated here, stopping at one byte past its declared size (a larger result is a damaged entry). */
function inflateInPlace(data: Uint8Array, entry: CentralEntry): Uint8Array {
  try {
    return new Uint8Array(inflateRawSync(data, { maxOutputLength: entry.declaredSize + 1 }))
  } catch (error) {
    if (error instanceof RangeError) throw new ZipRefused(`${entry.name} is damaged (its size or CRC-32 does not match)`, entry.name)
    throw new ZipRefused(`The data of ${entry.name} is not valid deflate data`, entry.name)
  }
}

/**
 * The archive's files by path (directory entries left out), each inflated and checked against its CRC-32 and declared
 * size. Throws ZipRefused for anything a bundle must not be: links, absolute or climbing paths, duplicates, too many
 * entries, more than `maxUncompressed` bytes once inflated, damaged or overlapping data.
 */
export async function readZip(bytes: Uint8Array, limits: ZipLimits): Promise<Map<string, Uint8Array>> {
  const entries = readCentralDirectory(bytes, limits)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = findEndOfDirectory(bytes, view)
  const starts = locateData(bytes, entries, view.getUint32(end + 16, true))
  const files = new Map<string, Uint8Array>()
  let total = 0
  const tooBig = () => new ZipRefused(`The archive holds more than ${limits.maxUncompressed / 1024 / 1024} MiB once uncompressed`)
  const slice = new TimeSlice()
  for (const entry of entries) {
    await slice.next()
    if (entry.directory) continue
    // A declared size over the budget is refused at once; one under it is not believed: the inflated bytes are counted.
    if (entry.declaredSize > limits.maxUncompressed - total) throw tooBig()
    const start = starts.get(entry)!
    const data = bytes.subarray(start, start + entry.compressedSize)
    const content =
      entry.method === STORED
        ? data.slice()
        : entry.declaredSize <= IN_PLACE_MAX
          ? inflateInPlace(data, entry)
          : await inflateCounted(data, limits.maxUncompressed - total, entry.name, tooBig)
    if (content.byteLength !== entry.declaredSize || crc32(content) !== entry.crc)
      throw new ZipRefused(`${entry.name} is damaged (its size or CRC-32 does not match)`, entry.name)
    total += content.byteLength
    files.set(entry.name, content)
  }
  return files
}
