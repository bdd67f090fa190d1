// Schedules: validation of frequency, hour, day, timezone and cron, and next-run computation in wall-clock time via croner.
import { Cron } from 'croner'
import type { ScheduleFrequency } from '../../platform/db/tables/tasks.ts'
import type { InputIssue } from '../../platform/errors.ts'

export interface Schedule {
  frequency: ScheduleFrequency
  /** "HH:MM" (24-hour). hourly uses only the minutes. */
  hour: string | null
  /** weekly: monday…sunday; monthly: "1"…"31". */
  day: string | null
  /** An IANA name; runs follow its wall clock across DST changes. */
  timezone: string
  /** frequency cron: 5 fields (minute first) or 6 (second first). */
  cron: string | null
}

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const
const HOUR = /^([01]\d|2[0-3]):([0-5]\d)$/
const MONTH_DAY = /^0?([1-9]|[12]\d|3[01])$/
const NEEDS_HOUR: readonly ScheduleFrequency[] = ['hourly', 'daily', 'weekly', 'monthly']

/** Months that can be shorter than `day` (February whenever day > 28): a monthly run on such a day moves to the month's last day. */
const monthsShorterThan = (day: number) => [2, 4, 6, 9, 11].filter((month) => (month === 2 ? day > 28 : day > 30))

/**
 * The croner patterns (6 fields, seconds first) whose earliest next run is the schedule's. One pattern, except for
 * monthly days 29–31: the day itself, plus `L` (last day) in the months too short to have it, so day 31 runs on
 * Feb 28/29, Apr 30… and never twice in one month.
 */
export function cronPatterns(schedule: Schedule): string[] {
  if (schedule.frequency === 'manual') return []
  if (schedule.frequency === 'cron') return [schedule.cron!]
  const [, hh, mm] = HOUR.exec(schedule.hour ?? '')!
  const hour = Number(hh)
  const minute = Number(mm)
  switch (schedule.frequency) {
    case 'hourly':
      return [`0 ${minute} * * * *`]
    case 'daily':
      return [`0 ${minute} ${hour} * * *`]
    case 'weekly':
      return [`0 ${minute} ${hour} * * ${WEEKDAYS.indexOf(schedule.day as (typeof WEEKDAYS)[number])}`]
    case 'monthly': {
      const day = Number(schedule.day)
      const short = monthsShorterThan(day)
      const patterns = [`0 ${minute} ${hour} ${day} * *`]
      if (short.length > 0) patterns.push(`0 ${minute} ${hour} L ${short.join(',')} *`)
      return patterns
    }
  }
}

/** Parsed patterns are reused: many tasks share a schedule, and parsing is most of croner's cost. */
const patternCache = new Map<string, Cron>()
const PATTERN_CACHE_LIMIT = 10_000

function cronFor(pattern: string, timezone: string): Cron {
  const key = `${timezone}\u0000${pattern}`
  let cron = patternCache.get(key)
  if (!cron) {
    // paused: croner only computes here; the dispatcher owns the timer (and reads the injected clock).
    cron = new Cron(pattern, { timezone, paused: true, mode: '5-or-6-parts' })
    if (patternCache.size >= PATTERN_CACHE_LIMIT) patternCache.clear()
    patternCache.set(key, cron)
  }
  return cron
}

/** The first run strictly after `afterMs`, in epoch ms; null for manual schedules and patterns that never fire again. */
export function nextRunAt(schedule: Schedule, afterMs: number): number | null {
  let best: number | null = null
  for (const pattern of cronPatterns(schedule)) {
    const next = cronFor(pattern, schedule.timezone).nextRun(new Date(afterMs))
    if (next && (best === null || next.getTime() < best)) best = next.getTime()
  }
  return best
}

export function isTimezone(name: string): boolean {
  // Offsets such as "+02:00" are accepted by Intl but follow no DST rules; the contract asks for IANA names.
  if (!/^[A-Za-z]/.test(name)) return false
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

export interface ScheduleFields {
  frequency: ScheduleFrequency
  hour: string | null
  day: string | null
  timezone: string
  cron: string | null
}

/**
 * Checks a complete schedule and returns it normalised (weekday lower-case, month day without a leading zero),
 * pushing one 422 entry per problem under `loc` (all of them, not only the first).
 */
export function checkSchedule(input: ScheduleFields, nowMs: number, loc: (string | number)[], issues: InputIssue[], minIntervalS = 60): Schedule {
  const { frequency } = input
  const at = (field: string) => [...loc, field]
  const schedule: Schedule = { ...input }

  if (input.hour !== null && !HOUR.test(input.hour)) {
    issues.push({ loc: at('hour'), msg: 'Hour must be HH:MM on a 24-hour clock (00:00 to 23:59)', type: 'value_error', input: input.hour })
  } else if (input.hour === null && NEEDS_HOUR.includes(frequency)) {
    issues.push({ loc: at('hour'), msg: `Field required for a ${frequency} schedule (HH:MM)`, type: 'missing' })
  }

  if (input.day !== null) {
    const weekday = input.day.trim().toLowerCase()
    const monthDay = MONTH_DAY.exec(input.day.trim())
    if (frequency === 'monthly') {
      if (monthDay) schedule.day = monthDay[1]!
      else
        issues.push({
          loc: at('day'),
          msg: 'Day must be a day of the month, "1" to "31" (days past the month\'s end run on its last day)',
          type: 'value_error',
          input: input.day,
        })
    } else if (frequency === 'weekly' || !monthDay) {
      if ((WEEKDAYS as readonly string[]).includes(weekday)) schedule.day = weekday
      else issues.push({ loc: at('day'), msg: 'Day must be a weekday name, monday to sunday', type: 'value_error', input: input.day })
    } else schedule.day = monthDay[1]!
  } else if (frequency === 'weekly' || frequency === 'monthly') {
    issues.push({
      loc: at('day'),
      msg: `Field required for a ${frequency} schedule (${frequency === 'weekly' ? 'monday to sunday' : '"1" to "31"'})`,
      type: 'missing',
    })
  }

  if (!isTimezone(input.timezone)) {
    issues.push({ loc: at('timezone'), msg: 'Unknown time zone: use an IANA name such as UTC or Europe/Berlin', type: 'value_error', input: input.timezone })
  }

  if (input.cron !== null) {
    const problem = cronProblem(input.cron, isTimezone(input.timezone) ? input.timezone : 'UTC', nowMs, minIntervalS)
    if (problem) issues.push({ loc: at('cron'), msg: problem, type: 'value_error', input: input.cron })
    else schedule.cron = input.cron.trim().replace(/\s+/g, ' ')
  } else if (frequency === 'cron') {
    issues.push({ loc: at('cron'), msg: 'Field required for a cron schedule (5 or 6 fields)', type: 'missing' })
  }
  return schedule
}

/** How many upcoming runs are compared to find a cron's shortest gap (enough to see a burst within an hour or a day). */
const GAP_SAMPLE_RUNS = 30

function cronProblem(expression: string, timezone: string, nowMs: number, minIntervalS: number): string | null {
  const fields = expression.trim().split(/\s+/)
  if (fields.length !== 5 && fields.length !== 6) return 'Cron expression must have 5 fields (minute hour day month weekday) or 6 (seconds first)'
  try {
    const cron = new Cron(fields.join(' '), { timezone, paused: true, mode: '5-or-6-parts' })
    const runs = cron.nextRuns(GAP_SAMPLE_RUNS, new Date(nowMs)).map((d) => d.getTime())
    if (runs.length === 0) return 'Cron expression never fires'
    // Every run is a model call: a seconds field must not turn one task into a flood.
    for (let i = 1; i < runs.length; i++) {
      if (runs[i]! - runs[i - 1]! < minIntervalS * 1000)
        return `Cron expression fires more often than every ${minIntervalS} s, the shortest interval this server allows`
    }
    return null
  } catch (error) {
    return `Invalid cron expression: ${(error as Error).message.replace(/^CronPattern:\s*/, '')}`
  }
}
