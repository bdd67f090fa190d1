// Zips made byte by byte for the tests, independent of the product's writer: every field can be set to what an attacker
// would send (links, climbing paths, lying sizes, duplicate names, overlapping entries).
import { crc32, deflateRawSync } from 'node:zlib'

export interface CraftEntry {
  name: string | Uint8Array
  data?: Uint8Array | string
  /** 0 stored, 8 deflated (default). */
  method?: number
  /** The high half of the external attributes (a Unix mode: 0o120777 is a link). */
  mode?: number
  madeBy?: number
  /** What the headers claim, whatever the data is. */
  declaredSize?: number
  crc?: number
  flags?: number
  /** Point this entry's central record at another entry's local header (overlapping entries). */
  sameDataAs?: number
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2)
  b.writeUInt16LE(n & 0xffff)
  return b
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32LE(n >>> 0)
  return b
}

export function craftZip(entries: CraftEntry[], options: { trailing?: Uint8Array; entriesField?: number } = {}): Uint8Array {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  const offsets: number[] = []
  const sizes: { compressed: number; crc: number; size: number }[] = []
  let offset = 0
  for (const [index, entry] of entries.entries()) {
    const name = typeof entry.name === 'string' ? Buffer.from(entry.name, 'utf8') : Buffer.from(entry.name)
    const raw = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : Buffer.from(entry.data ?? new Uint8Array())
    const method = entry.method ?? 8
    const data = method === 8 ? deflateRawSync(raw) : raw
    const crc = entry.crc ?? crc32(raw)
    const size = entry.declaredSize ?? raw.byteLength
    const flags = (entry.flags ?? 0) | 0x800
    if (entry.sameDataAs !== undefined) {
      offsets.push(offsets[entry.sameDataAs]!)
      sizes.push(sizes[entry.sameDataAs]!)
    } else {
      const local = Buffer.concat([
        u32(0x04034b50),
        u16(20),
        u16(flags),
        u16(method),
        u16(0),
        u16(0x21),
        u32(crc),
        u32(data.byteLength),
        u32(size),
        u16(name.byteLength),
        u16(0),
        name,
        data,
      ])
      offsets.push(offset)
      sizes.push({ compressed: data.byteLength, crc, size })
      locals.push(local)
      offset += local.byteLength
    }
    const s = sizes[index]!
    const madeBy = entry.madeBy ?? (3 << 8) | 20
    const external = ((entry.mode ?? 0o100644) << 16) >>> 0
    centrals.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(madeBy),
        u16(20),
        u16(flags),
        u16(method),
        u16(0),
        u16(0x21),
        u32(s.crc),
        u32(s.compressed),
        u32(s.size),
        u16(name.byteLength),
        u16(0),
        u16(0),
        u16(0),
        u16(0),
        u32(external),
        u32(offsets[index]!),
        name,
      ]),
    )
  }
  const central = Buffer.concat(centrals)
  const count = options.entriesField ?? entries.length
  const end = Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(count), u16(count), u32(central.byteLength), u32(offset), u16(0)])
  return new Uint8Array(Buffer.concat([...locals, central, end, Buffer.from(options.trailing ?? new Uint8Array())]))
}
