// UTC calendar arithmetic for summaries: strict date parsing, bucket keys (day, ISO week, month) and complete bucket lists.

export type TimeFrame = 'daily' | 'weekly' | 'monthly'

export const DAY_MS = 86_400_000

/**
 * RFC 3339 date-time with a zone (Z or ±HH:MM), or a plain date meaning that UTC day. Anything looser (no zone, other
 * separators, RFC 2822 strings) is refused rather than read in the server's local time zone.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2}))?$/

const pad = (n: number, width: number) => String(n).padStart(width, '0')

/** Midnight UTC of a calendar date; setUTCFullYear keeps years 0–99 literal (Date.UTC would map them to 19xx). */
export function utcDate(year: number, monthIndex: number, day: number): number {
  const date = new Date(0)
  date.setUTCFullYear(year, monthIndex, day)
  return date.getTime()
}

/** Years 0001–9999 in UTC, where every key has four year digits and SQLite's date functions agree with ours. */
const inRange = (ms: number) => ms >= utcDate(1, 0, 1) && ms < utcDate(10_000, 0, 1)

const daysInMonth = (year: number, monthIndex: number) => new Date(utcDate(year, monthIndex + 1, 0)).getUTCDate()

/** Milliseconds since the epoch, or null when `value` is not a real instant in the accepted forms. */
export function parseInstant(value: string): number | null {
  const m = DATE_TIME.exec(value)
  if (!m) return null
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month - 1)) return null
  const midnight = utcDate(year, month - 1, day)
  if (m[4] === undefined) return inRange(midnight) ? midnight : null
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])]
  if (hour > 23 || minute > 59 || second > 59) return null
  const fraction = m[7] ? Math.floor(Number(m[7]) * 1000) : 0
  const zone = m[8]!.toUpperCase()
  const offsetMinutes = zone === 'Z' ? 0 : (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)))
  if (Math.abs(offsetMinutes) > 23 * 60 + 59) return null
  const ms = midnight + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fraction
  return inRange(ms) ? ms : null
}

/** Midnight UTC of the day holding `ms`. */
export const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS

/** `2026-11-21`: the same text as the first 10 characters of a stored created_at. */
export function dayKey(ms: number): string {
  const d = new Date(ms)
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`
}

/** Monday = 0 … Sunday = 6. */
const isoWeekday = (ms: number) => (new Date(ms).getUTCDay() + 6) % 7

/** Midnight UTC of the Monday of the ISO week holding `ms`. */
export const startOfIsoWeek = (ms: number) => startOfDay(ms) - isoWeekday(ms) * DAY_MS

/**
 * `2026-W53`, identical to SQLite's strftime('%G-W%V'): the week belongs to the year of its Thursday, and its number is
 * that Thursday's day-of-year divided into weeks (so 2026-12-31 and 2027-01-03 are 2026-W53; 2027-01-04 is 2027-W01).
 */
export function isoWeekKey(ms: number): string {
  const thursday = startOfIsoWeek(ms) + 3 * DAY_MS
  const year = new Date(thursday).getUTCFullYear()
  const week = Math.floor((thursday - utcDate(year, 0, 1)) / DAY_MS / 7) + 1
  return `${pad(year, 4)}-W${pad(week, 2)}`
}

/** `2026-11`. */
export const monthKey = (ms: number) => dayKey(ms).slice(0, 7)

export function bucketKey(frame: TimeFrame, ms: number): string {
  return frame === 'daily' ? dayKey(ms) : frame === 'weekly' ? isoWeekKey(ms) : monthKey(ms)
}

const monthIndexOf = (ms: number) => {
  const d = new Date(ms)
  return d.getUTCFullYear() * 12 + d.getUTCMonth()
}

/** How many buckets the days of [startMs, endMs] touch, computed without listing them (the range may be huge). */
export function bucketCount(frame: TimeFrame, startMs: number, endMs: number): number {
  if (frame === 'daily') return (startOfDay(endMs) - startOfDay(startMs)) / DAY_MS + 1
  if (frame === 'weekly') return (startOfIsoWeek(endMs) - startOfIsoWeek(startMs)) / (7 * DAY_MS) + 1
  return monthIndexOf(endMs) - monthIndexOf(startMs) + 1
}

/** Every bucket key the days of [startMs, endMs] touch, oldest first. */
export function bucketKeys(frame: TimeFrame, startMs: number, endMs: number): string[] {
  const keys: string[] = []
  if (frame === 'monthly') {
    for (let index = monthIndexOf(startMs); index <= monthIndexOf(endMs); index++) keys.push(monthKey(utcDate(Math.floor(index / 12), index % 12, 1)))
    return keys
  }
  const step = frame === 'daily' ? DAY_MS : 7 * DAY_MS
  const first = frame === 'daily' ? startOfDay(startMs) : startOfIsoWeek(startMs)
  for (let ms = first; ms <= endMs; ms += step) keys.push(bucketKey(frame, ms))
  return keys
}

/** The first day of the bucket `count - 1` buckets before the one holding `endMs`: the default start of a range. */
export function defaultStart(frame: TimeFrame, endMs: number, count: number): number {
  if (frame === 'daily') return startOfDay(endMs) - (count - 1) * DAY_MS
  if (frame === 'weekly') return startOfIsoWeek(endMs) - (count - 1) * 7 * DAY_MS
  const index = monthIndexOf(endMs) - (count - 1)
  return utcDate(Math.floor(index / 12), index % 12, 1)
}
