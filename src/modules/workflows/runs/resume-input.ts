// A resume request: its type, and the checks a schema cannot express.
import type { Static } from '@sinclair/typebox'
import { invalidInput } from '../../../platform/errors.ts'
import { isReservedKey } from '../expr/errors.ts'
import { isPlainObject } from '../expr/values.ts'
import { MAX_EDITS_CHARS } from '../engine/merge-patch.ts'
import type { ResumeBody } from '../schema.ts'

/** What resuming a run takes: the request body's schema is the definition. */
export type ResumeInput = Static<typeof ResumeBody>

/** The body checks a schema cannot express: edits only with approve, bounded, no prototype keys. */
export function checkResumeBody(body: ResumeInput): void {
  if (body.edits === undefined) return
  // TypeBox's object check lets arrays through; a merge patch must be a JSON object.
  if (!isPlainObject(body.edits)) throw invalidInput({ loc: ['edits'], msg: 'edits must be an object', type: 'model_type', input: body.edits })
  if (body.decision === 'reject') throw invalidInput({ loc: ['edits'], msg: 'edits apply to approve only; send reason with reject', type: 'value_error' })
  if (JSON.stringify(body.edits).length > MAX_EDITS_CHARS)
    throw invalidInput({ loc: ['edits'], msg: `edits may be at most ${MAX_EDITS_CHARS} bytes of JSON`, type: 'value_error' })
  const reserved = findReserved(body.edits)
  if (reserved) throw invalidInput({ loc: ['edits', ...reserved], msg: `The key '${reserved.at(-1)}' is not allowed`, type: 'value_error' })
}

function findReserved(value: unknown, path: string[] = []): string[] | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null
  for (const [key, item] of Object.entries(value)) {
    if (isReservedKey(key) || (path.length === 0 && key === '_approval')) return [...path, key]
    const found = findReserved(item, [...path, key])
    if (found) return found
  }
  return null
}
