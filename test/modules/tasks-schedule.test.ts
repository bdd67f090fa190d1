// Next-run computation without sleeping: wall-clock time across DST, month ends (day 31 in February), year ends, every frequency.
import { describe, expect, test } from 'bun:test'
import { checkSchedule, cronPatterns, nextRunAt, type Schedule } from '../../src/modules/tasks/schedule.ts'

const at = (iso: string) => Date.parse(iso)
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const schedule = (fields: Partial<Schedule>): Schedule => ({ frequency: 'daily', hour: null, day: null, timezone: 'UTC', cron: null, ...fields })

/** The next `count` runs after `from`, each computed from the previous one as the scheduler does. */
function runs(s: Schedule, from: string, count: number): (string | null)[] {
  const out: (string | null)[] = []
  let cursor = at(from)
  for (let i = 0; i < count; i++) {
    const next = nextRunAt(s, cursor)
    out.push(iso(next))
    if (next === null) break
    cursor = next
  }
  return out
}

describe('daily, in a timezone, across DST', () => {
  test('Europe/Berlin 09:00 stays 09:00 local: 08:00Z in winter, 07:00Z after the spring change', () => {
    expect(runs(schedule({ hour: '09:00', timezone: 'Europe/Berlin' }), '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ])
  })

  test('America/New_York 09:00 across the March change and back in November', () => {
    expect(runs(schedule({ hour: '09:00', timezone: 'America/New_York' }), '2026-03-07T00:00:00Z', 2)).toEqual([
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
    ])
    expect(runs(schedule({ hour: '09:00', timezone: 'America/New_York' }), '2026-10-31T00:00:00Z', 2)).toEqual([
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
    ])
  })

  test('a time that does not exist on the spring-forward day (02:30 Berlin) runs at the first valid time after the gap, once', () => {
    expect(runs(schedule({ hour: '02:30', timezone: 'Europe/Berlin' }), '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ])
  })

  test('a time that happens twice on the fall-back day (02:30 Berlin) runs once, at its first occurrence', () => {
    expect(runs(schedule({ hour: '02:30', timezone: 'Europe/Berlin' }), '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ])
  })
})

describe('hourly', () => {
  test('takes the minutes of HH:MM and keeps firing every real hour through a fall-back change', () => {
    expect(runs(schedule({ frequency: 'hourly', hour: '07:15', timezone: 'Europe/Berlin' }), '2026-10-25T00:00:00Z', 3)).toEqual([
      '2026-10-25T00:15:00.000Z',
      '2026-10-25T01:15:00.000Z',
      '2026-10-25T02:15:00.000Z',
    ])
  })

  test('follows local minutes in a half-hour zone (Asia/Kolkata, UTC+5:30)', () => {
    expect(runs(schedule({ frequency: 'hourly', hour: '00:00', timezone: 'Asia/Kolkata' }), '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T01:30:00.000Z',
    ])
  })
})

describe('weekly', () => {
  test('the named day at the local hour, every seven days', () => {
    expect(runs(schedule({ frequency: 'weekly', day: 'friday', hour: '17:45', timezone: 'Asia/Tokyo' }), '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-02T08:45:00.000Z',
      '2026-01-09T08:45:00.000Z',
    ])
  })
})

describe("monthly, clamped to the month's end", () => {
  test('day 31 runs on the last day of shorter months: Feb 28, Mar 31, Apr 30', () => {
    expect(runs(schedule({ frequency: 'monthly', day: '31', hour: '09:00' }), '2027-01-31T10:00:00Z', 4)).toEqual([
      '2027-02-28T09:00:00.000Z',
      '2027-03-31T09:00:00.000Z',
      '2027-04-30T09:00:00.000Z',
      '2027-05-31T09:00:00.000Z',
    ])
  })

  test('day 31 and day 30 run on Feb 29 in a leap year; day 29 on Feb 28 in other years and Feb 29 in leap years', () => {
    expect(runs(schedule({ frequency: 'monthly', day: '31', hour: '09:00' }), '2028-02-01T00:00:00Z', 1)).toEqual(['2028-02-29T09:00:00.000Z'])
    expect(runs(schedule({ frequency: 'monthly', day: '30', hour: '09:00' }), '2028-02-01T00:00:00Z', 2)).toEqual([
      '2028-02-29T09:00:00.000Z',
      '2028-03-30T09:00:00.000Z',
    ])
    expect(runs(schedule({ frequency: 'monthly', day: '29', hour: '09:00' }), '2027-02-01T00:00:00Z', 2)).toEqual([
      '2027-02-28T09:00:00.000Z',
      '2027-03-29T09:00:00.000Z',
    ])
    expect(runs(schedule({ frequency: 'monthly', day: '29', hour: '09:00' }), '2028-02-01T00:00:00Z', 1)).toEqual(['2028-02-29T09:00:00.000Z'])
  })

  test('never runs twice in one month: the clamp applies only to months too short for the day', () => {
    const all = runs(schedule({ frequency: 'monthly', day: '30', hour: '09:00' }), '2027-01-01T00:00:00Z', 12)
    expect(new Set(all.map((x) => x!.slice(0, 7))).size).toBe(12)
    expect(cronPatterns(schedule({ frequency: 'monthly', day: '15', hour: '09:00' }))).toEqual(['0 0 9 15 * *'])
    expect(cronPatterns(schedule({ frequency: 'monthly', day: '31', hour: '09:05' }))).toEqual(['0 5 9 31 * *', '0 5 9 L 2,4,6,9,11 *'])
  })

  test('local time applies: day 1 at 00:30 in Auckland is the previous UTC day', () => {
    expect(runs(schedule({ frequency: 'monthly', day: '1', hour: '00:30', timezone: 'Pacific/Auckland' }), '2026-01-15T00:00:00Z', 1)).toEqual([
      '2026-01-31T11:30:00.000Z',
    ])
  })
})

describe('year ends', () => {
  test('daily runs cross into the new year; a monthly day 31 goes Dec 31 then Jan 31', () => {
    expect(runs(schedule({ hour: '23:59' }), '2026-12-31T12:00:00Z', 2)).toEqual(['2026-12-31T23:59:00.000Z', '2027-01-01T23:59:00.000Z'])
    expect(runs(schedule({ frequency: 'monthly', day: '31', hour: '12:00' }), '2026-12-01T00:00:00Z', 2)).toEqual([
      '2026-12-31T12:00:00.000Z',
      '2027-01-31T12:00:00.000Z',
    ])
  })

  test('New Year in Tokyo happens at 15:00Z on Dec 31', () => {
    expect(runs(schedule({ hour: '00:00', timezone: 'Asia/Tokyo' }), '2026-12-31T00:00:00Z', 1)).toEqual(['2026-12-31T15:00:00.000Z'])
  })
})

describe('cron', () => {
  test('5 fields are minute-first, 6 fields second-first, read in the task timezone', () => {
    expect(runs(schedule({ frequency: 'cron', cron: '30 8 * * 1-5' }), '2026-01-02T09:00:00Z', 2)).toEqual([
      '2026-01-05T08:30:00.000Z',
      '2026-01-06T08:30:00.000Z',
    ])
    expect(runs(schedule({ frequency: 'cron', cron: '*/20 * * * * *' }), '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01T00:00:20.000Z',
      '2026-01-01T00:00:40.000Z',
      '2026-01-01T00:01:00.000Z',
    ])
    expect(runs(schedule({ frequency: 'cron', cron: '0 9 * * *', timezone: 'Europe/London' }), '2026-06-01T00:00:00Z', 1)).toEqual(['2026-06-01T08:00:00.000Z'])
  })

  test('the next run is strictly after the given instant, and manual schedules have none', () => {
    expect(iso(nextRunAt(schedule({ hour: '09:00' }), at('2026-01-01T09:00:00Z')))).toBe('2026-01-02T09:00:00.000Z')
    expect(nextRunAt(schedule({ frequency: 'manual' }), at('2026-01-01T00:00:00Z'))).toBeNull()
  })
})

describe('checkSchedule', () => {
  test('normalises weekday case and month-day zeros and collapses cron spacing', () => {
    const issues: never[] = []
    expect(checkSchedule({ frequency: 'weekly', hour: '07:00', day: ' MONDAY ', timezone: 'UTC', cron: null }, 0, ['body', 'schedule'], issues).day).toBe(
      'monday',
    )
    expect(checkSchedule({ frequency: 'monthly', hour: '07:00', day: '05', timezone: 'UTC', cron: null }, 0, ['body', 'schedule'], issues).day).toBe('5')
    expect(checkSchedule({ frequency: 'cron', hour: null, day: null, timezone: 'UTC', cron: ' 0  9 * * * ' }, 0, ['body', 'schedule'], issues).cron).toBe(
      '0 9 * * *',
    )
    expect(issues).toEqual([])
  })

  test('reports every problem at once under the given location', () => {
    const issues: any[] = []
    checkSchedule({ frequency: 'monthly', hour: '24:00', day: '0', timezone: 'Not/AZone', cron: 'x y z a b' }, 0, ['body', 'schedule'], issues)
    expect(issues.map((i) => i.loc.at(-1))).toEqual(['hour', 'day', 'timezone', 'cron'])
  })
})
