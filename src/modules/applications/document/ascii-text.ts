// A YAML upload as one-byte text. A string with a single character past U+00FF takes two bytes a character, and the
// YAML parser copies the whole text once more (it appends a terminator): a 27 MiB description with a few curly quotes
// was 2 × 55 MB of text beside its tree. Written in ASCII, with every other character spelled as a marker and its code
// point, the same text is 2 × 27 MB. YAML gives ASCII letters and digits no meaning of their own, so the placeholders
// parse exactly where the characters were (inside scalars and keys); restoreCharacters puts the characters back.
import { SpecInvalidError } from './read.ts'

/** The UTF-8 text with characters past ASCII as `marker` + six hex digits, and the marker; null when nothing is gained. */
export interface AsciiText {
  readonly text: string
  readonly marker: string
}

const HEX_DIGITS = 6
const LEADING_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])

/** Characters the YAML parser refuses (C1 controls but NEL, U+FFFE, U+FFFF): left to it, with the text as uploaded. */
const refusedByYaml = (codePoint: number): boolean =>
  (codePoint >= 0x80 && codePoint <= 0x9f && codePoint !== 0x85) || codePoint === 0xfffe || codePoint === 0xffff

const notUtf8 = () => new SpecInvalidError('The file is not UTF-8 text', '')

function markerFor(bytes: Uint8Array): string {
  for (;;) {
    const marker = `Zu${Math.random().toString(36).slice(2, 8).padEnd(6, 'q')}x`
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(marker) < 0) return marker
  }
}

/**
 * `bytes` (UTF-8, checked as strictly as a fatal TextDecoder) as ASCII text, for a document that is not JSON and has
 * characters past ASCII; null otherwise (the caller decodes as usual). A leading byte order mark is dropped.
 */
export function asciiText(bytes: Uint8Array): AsciiText | null {
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  let first = start
  while (first < bytes.length && LEADING_SPACE.has(bytes[first]!)) first++
  if (bytes[first] === 0x7b || bytes[first] === 0x5b) return null
  let wide = 0
  for (let i = start; i < bytes.length; i++) if (bytes[i]! >= 0x80) wide++
  if (wide === 0) return null
  const marker = markerFor(bytes)
  // At most 4 bytes a character become marker + 6 digits.
  const out = Buffer.allocUnsafe(bytes.length - start + Math.ceil(wide / 2) * (marker.length + HEX_DIGITS))
  let at = 0
  while (start < bytes.length) {
    const byte = bytes[start]!
    if (byte < 0x80) {
      out[at++] = byte
      start++
      continue
    }
    let codePoint: number
    let size: number
    let min: number
    if (byte >= 0xc2 && byte <= 0xdf) [codePoint, size, min] = [byte & 0x1f, 2, 0x80]
    else if (byte >= 0xe0 && byte <= 0xef) [codePoint, size, min] = [byte & 0x0f, 3, 0x800]
    else if (byte >= 0xf0 && byte <= 0xf4) [codePoint, size, min] = [byte & 0x07, 4, 0x10000]
    else throw notUtf8()
    if (start + size > bytes.length) throw notUtf8()
    for (let k = 1; k < size; k++) {
      const next = bytes[start + k]!
      if ((next & 0xc0) !== 0x80) throw notUtf8()
      codePoint = (codePoint << 6) | (next & 0x3f)
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) throw notUtf8()
    if (refusedByYaml(codePoint)) return null
    at += out.write(marker, at, 'latin1')
    at += out.write(codePoint.toString(16).padStart(HEX_DIGITS, '0'), at, 'latin1')
    start += size
  }
  return { text: out.toString('latin1', 0, at), marker }
}

/** The characters a placeholder stands for, in `text`. */
function restored(text: string, marker: string, pattern: RegExp): string {
  return text.includes(marker) ? text.replace(pattern, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16))) : text
}

/** Puts the characters back in every string and key of a tree parsed from asciiText's text, in place. */
export function restoreCharacters(tree: unknown, marker: string): unknown {
  const pattern = new RegExp(`${marker}([0-9a-f]{${HEX_DIGITS}})`, 'g')
  if (typeof tree === 'string') return restored(tree, marker, pattern)
  const stack: object[] = tree !== null && typeof tree === 'object' ? [tree] : []
  // Aliases share values: each is restored once.
  const seen = new Set<object>()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const value = node[index]
        if (typeof value === 'string') node[index] = restored(value, marker, pattern)
        else if (value !== null && typeof value === 'object') stack.push(value)
      }
      continue
    }
    const record = node as Record<string, unknown>
    const keys = Object.keys(record)
    const renamed = keys.some((key) => key.includes(marker))
    for (const key of keys) {
      const value = record[key]
      if (typeof value === 'string') record[key] = restored(value, marker, pattern)
      else if (value !== null && typeof value === 'object') stack.push(value)
    }
    if (renamed) {
      // Keys keep their order: every key is taken out and put back, renamed where it had a placeholder.
      const entries = keys.map((key) => [restored(key, marker, pattern), record[key]] as const)
      for (const key of keys) delete record[key]
      for (const [key, value] of entries) record[key] = value
    }
  }
  return tree
}

/** js-yaml's `reason (line:column)` with the column counted in the text as uploaded (a placeholder is one character). */
export function uploadedColumnMessage(
  error: { reason?: unknown; mark?: { line: number; column: number; position: number } },
  text: string,
  marker: string,
): string | null {
  if (typeof error.reason !== 'string' || !error.mark) return null
  const { line, column, position } = error.mark
  const lineText = text.slice(position - column, position)
  let shift = 0
  for (let at = lineText.indexOf(marker); at >= 0; at = lineText.indexOf(marker, at + 1)) {
    const codePoint = Number.parseInt(lineText.slice(at + marker.length, at + marker.length + HEX_DIGITS), 16)
    shift += marker.length + HEX_DIGITS - (codePoint > 0xffff ? 2 : 1)
  }
  return `${error.reason} (${line + 1}:${Math.max(0, column - shift) + 1})`
}
