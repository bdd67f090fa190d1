// String formats an argument is checked against: @cfworker/json-schema's checks for the formats API descriptions use,
// on strings of at most FORMAT_MAX_CHARS. Left out: `url` (its regular expression backtracks exponentially: 1.3 s on
// 4,096 characters) and `regex` (it would compile a pattern the caller sends); unknown formats are not checked, as
// JSON Schema says. Each kept check was measured under 2 ms on 4,096 crafted characters.
import { format as checks } from '@cfworker/json-schema'

/** Longer strings are not matched against a format's regular expression. */
export const FORMAT_MAX_CHARS = 4096

/** Formats no valid value of which is longer than this: a longer string fails without being matched. */
const LONGEST_VALID: Readonly<Record<string, number>> = {
  date: 10,
  time: 64,
  'date-time': 80,
  duration: 256,
  email: 320,
  hostname: 253,
  ipv4: 15,
  ipv6: 64,
  uuid: 36,
}

const CHECKED = new Set([...Object.keys(LONGEST_VALID), 'uri', 'uri-reference', 'uri-template', 'json-pointer', 'relative-json-pointer'])

export const isCheckedFormat = (name: unknown): name is string => typeof name === 'string' && CHECKED.has(name)

/** False when `value` is not of `name`'s format; true for formats not checked and for long values of open-ended ones. */
export function matchesFormat(name: string, value: string): boolean {
  const longest = LONGEST_VALID[name]
  if (longest !== undefined && value.length > longest) return false
  if (value.length > FORMAT_MAX_CHARS) return true
  const check = (checks as Record<string, ((text: string) => boolean) | undefined>)[name]
  return check === undefined || check(value)
}
