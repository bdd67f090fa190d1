// RFC 7386 JSON Merge Patch for approval edits: objects merge deeply, null deletes, anything else replaces; no prototype keys.
import { isReservedKey } from '../expr/errors.ts'
import { cloneJson, isPlainObject } from '../expr/values.ts'

export const MAX_EDITS_CHARS = 64 * 1024

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return cloneJson(patch)
  const result: Record<string, unknown> = isPlainObject(target) ? cloneJson(target) : {}
  for (const [key, value] of Object.entries(patch)) {
    if (isReservedKey(key)) continue
    if (value === null) delete result[key]
    else result[key] = mergePatch(result[key], value)
  }
  return result
}
