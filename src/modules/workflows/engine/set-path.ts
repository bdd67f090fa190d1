// Dot/bracket paths of the set node (`a.items[0].b`): parsing, refusing prototype segments, writing into a copy.
import { isReservedKey } from '../expr/errors.ts'
import { isPlainObject } from '../expr/values.ts'

export type PathSegment = string | number

export function parseSetPath(path: string): { segments: PathSegment[]; problem?: string } {
  const segments: PathSegment[] = []
  const pattern = /([^.[\]]+)|\[(\d+)\]/g
  let consumed = 0
  for (const match of path.matchAll(pattern)) {
    const between = path.slice(consumed, match.index)
    if (between !== '' && between !== '.') return { segments, problem: `Invalid path '${path}'` }
    consumed = match.index + match[0].length
    if (match[2] !== undefined) {
      // A huge index would make a sparse list that serialises to millions of nulls.
      if (Number(match[2]) > 10_000) return { segments, problem: `List indexes in paths go up to 10000` }
      segments.push(Number(match[2]))
    } else segments.push(match[1]!)
  }
  if (segments.length === 0 || consumed !== path.length) return { segments, problem: `Invalid path '${path}'` }
  const reserved = segments.find((s) => typeof s === 'string' && isReservedKey(s))
  if (reserved !== undefined) return { segments, problem: `The path segment '${reserved}' is not allowed` }
  return { segments }
}

/** Writes `value` at `segments` inside `target` (already a private copy), creating objects and lists on the way. */
export function writePath(target: Record<string, unknown>, segments: PathSegment[], value: unknown): void {
  // biome-ignore lint/suspicious/noExplicitAny: walks JSON of any shape; every step checks what it finds
  let current: any = target
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1
    if (last) {
      current[segment] = value
      return
    }
    const nextIsIndex = typeof segments[i + 1] === 'number'
    const existing = current[segment]
    if (!(nextIsIndex ? Array.isArray(existing) : isPlainObject(existing))) current[segment] = nextIsIndex ? [] : {}
    current = current[segment]
  })
}
