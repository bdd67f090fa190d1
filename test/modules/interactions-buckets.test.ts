// Bucket arithmetic of interaction summaries: strict dates, ISO weeks at year boundaries, complete bucket lists, and agreement with SQLite.
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/platform/db/database.ts'
import { isoWeekOfDay } from '../../src/platform/db/dialect.ts'
import { dropTestDatabase, emptyTestDatabase, ON_POSTGRES } from '../helpers/database.ts'
import { bucketCount, bucketKeys, dayKey, defaultStart, isoWeekKey, monthKey, parseInstant } from '../../src/modules/interactions/buckets.ts'

const at = (iso: string) => Date.parse(iso)

describe('isoWeekKey', () => {
  test('2026-12-31 and 2027-01-03 are in 2026-W53; 2027-01-04 starts 2027-W01', () => {
    expect(isoWeekKey(at('2026-12-28T00:00:00Z'))).toBe('2026-W53')
    expect(isoWeekKey(at('2026-12-31T12:00:00Z'))).toBe('2026-W53')
    expect(isoWeekKey(at('2027-01-01T00:00:00Z'))).toBe('2026-W53')
    expect(isoWeekKey(at('2027-01-03T23:59:59.999Z'))).toBe('2026-W53')
    expect(isoWeekKey(at('2027-01-04T00:00:00Z'))).toBe('2027-W01')
    expect(isoWeekKey(at('2027-01-10T23:59:59Z'))).toBe('2027-W01')
    expect(isoWeekKey(at('2027-01-11T00:00:00Z'))).toBe('2027-W02')
  })

  test("other boundaries: late-December days in next year's W01, early-January days in last year's W52/W53", () => {
    expect(isoWeekKey(at('2025-12-29T00:00:00Z'))).toBe('2026-W01') // a Monday of December opens 2026-W01
    expect(isoWeekKey(at('2024-12-30T00:00:00Z'))).toBe('2025-W01')
    expect(isoWeekKey(at('2021-01-03T00:00:00Z'))).toBe('2020-W53')
    expect(isoWeekKey(at('2022-01-02T00:00:00Z'))).toBe('2021-W52')
    expect(isoWeekKey(at('2026-11-21T10:00:00Z'))).toBe('2026-W47')
  })

  test("agrees with SQLite strftime('%G-W%V') on every day from 1995 to 2045 and at the ends of the calendar", () => {
    const sqlite = new Database(':memory:')
    const rows = sqlite
      .query(
        `WITH RECURSIVE d(day) AS (SELECT '1995-01-01' UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < '2045-12-31')
         SELECT day, strftime('%G-W%V', day) AS week, substr(day, 1, 7) AS month FROM d`,
      )
      .all() as { day: string; week: string; month: string }[]
    expect(rows.length).toBeGreaterThan(18_000)
    const mismatches = rows.filter(
      (r) => isoWeekKey(at(`${r.day}T00:00:00Z`)) !== r.week || monthKey(at(`${r.day}T00:00:00Z`)) !== r.month || dayKey(at(`${r.day}T12:00:00Z`)) !== r.day,
    )
    expect(mismatches).toEqual([])
    for (const day of ['0001-01-01', '0001-01-07', '9999-12-31', '2000-02-29']) {
      const ms = parseInstant(day)!
      expect(isoWeekKey(ms)).toBe((sqlite.query(`SELECT strftime('%G-W%V', ?) AS w`).get(day) as { w: string }).w)
    }
    sqlite.close()
  })

  // The summaries' weekly buckets on PostgreSQL come from platform/db/dialect.ts's isoWeekOfDay: the same keys.
  test.skipIf(!ON_POSTGRES)('agrees with the PostgreSQL week expression on every day from 1995 to 2045 and at the ends of the calendar', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentbox-weeks-'))
    const handle = openDatabase(await emptyTestDatabase(dir))
    try {
      // In parentheses: Kysely writes a raw subquery as it is.
      const days = sql<{
        day: string
      }>`(select to_char(d, 'YYYY-MM-DD') as day from generate_series(date '1995-01-01', date '2045-12-31', interval '1 day') as d)`
      const rows = await handle.db
        .selectFrom(days.as('d'))
        .select(['d.day', isoWeekOfDay('postgres', 'd.day').as('week')])
        .execute()
      expect(rows.length).toBeGreaterThan(18_000)
      expect(rows.filter((r) => isoWeekKey(at(`${r.day}T00:00:00Z`)) !== r.week)).toEqual([])
      for (const day of ['0001-01-01', '0001-01-07', '9999-12-31', '2000-02-29']) {
        const one = await sql<{ w: string }>`select ${isoWeekOfDay('postgres', 'day')} as w from (select cast(${day} as text) as day) as x`.execute(handle.db)
        expect(isoWeekKey(parseInstant(day)!)).toBe(one.rows[0]!.w)
      }
    } finally {
      await handle.close()
      rmSync(dir, { recursive: true, force: true })
      await dropTestDatabase(dir)
    }
  })
})

describe('parseInstant', () => {
  test('RFC 3339 with Z or an offset, fractions to the millisecond, or a plain date (that UTC day)', () => {
    expect(parseInstant('2026-11-21T10:00:00Z')).toBe(at('2026-11-21T10:00:00Z'))
    expect(parseInstant('2026-11-21T10:00:00.123Z')).toBe(at('2026-11-21T10:00:00.123Z'))
    expect(parseInstant('2026-11-21T10:00:00.123456789z')).toBe(at('2026-11-21T10:00:00.123Z'))
    expect(parseInstant('2026-11-21T01:00:00+02:00')).toBe(at('2026-11-20T23:00:00Z'))
    expect(parseInstant('2026-11-21t22:30:00-05:30')).toBe(at('2026-11-22T04:00:00Z'))
    expect(parseInstant('2026-11-21 10:00:00Z')).toBe(at('2026-11-21T10:00:00Z'))
    expect(parseInstant('2026-11-21')).toBe(at('2026-11-21T00:00:00Z'))
    expect(parseInstant('2028-02-29')).toBe(at('2028-02-29T00:00:00Z'))
    expect(parseInstant('0001-01-01')).toBe(new Date('0001-01-01T00:00:00Z').getTime())
  })

  test('refuses anything without a zone, impossible calendar values, other formats and years outside 0001–9999', () => {
    for (const value of [
      '2026-11-21T10:00:00',
      '2026-11-21 10:00',
      '2026/11/21',
      'Sat Nov 21 2026 10:00:00 GMT+0000',
      'yesterday',
      '',
      '2026-02-29',
      '2026-13-01',
      '2026-11-31',
      '2026-11-21T24:00:00Z',
      '2026-11-21T10:60:00Z',
      '2026-11-21T10:00:60Z',
      '2026-11-21T10:00:00+24:00',
      '0000-12-31',
      '9999-12-31T23:00:00-05:00',
      '12026-01-01',
      ' 2026-11-21',
      '2026-11-21T10:00:00Zjunk',
    ]) {
      expect({ value, ms: parseInstant(value) }).toEqual({ value, ms: null })
    }
  })
})

describe('bucketKeys and bucketCount', () => {
  test('daily: every day of the range, both ends included, whatever the times of day', () => {
    expect(bucketKeys('daily', at('2028-02-27T23:00:00Z'), at('2028-03-01T00:00:00Z'))).toEqual(['2028-02-27', '2028-02-28', '2028-02-29', '2028-03-01'])
    expect(bucketKeys('daily', at('2026-11-21T10:00:00Z'), at('2026-11-21T11:00:00Z'))).toEqual(['2026-11-21'])
  })

  test('weekly: each ISO week the days touch, across the 2026/2027 boundary', () => {
    expect(bucketKeys('weekly', at('2026-12-20T00:00:00Z'), at('2027-01-12T00:00:00Z'))).toEqual(['2026-W51', '2026-W52', '2026-W53', '2027-W01', '2027-W02'])
    expect(bucketKeys('weekly', at('2026-12-31T00:00:00Z'), at('2027-01-03T00:00:00Z'))).toEqual(['2026-W53'])
    expect(bucketKeys('weekly', at('2027-01-03T00:00:00Z'), at('2027-01-04T00:00:00Z'))).toEqual(['2026-W53', '2027-W01'])
  })

  test('monthly: each month the days touch, across a year', () => {
    expect(bucketKeys('monthly', at('2026-11-30T00:00:00Z'), at('2027-02-01T00:00:00Z'))).toEqual(['2026-11', '2026-12', '2027-01', '2027-02'])
  })

  test("the count computed without listing equals the list's length, for many ranges", () => {
    let seed = 7
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    for (let i = 0; i < 300; i++) {
      const start = at('2020-01-01T00:00:00Z') + Math.floor(random() * 3000 * 86_400_000)
      const end = start + Math.floor(random() * 900 * 86_400_000)
      for (const frame of ['daily', 'weekly', 'monthly'] as const) expect(bucketCount(frame, start, end)).toBe(bucketKeys(frame, start, end).length)
    }
  })

  test('default start: 30 days, 12 ISO weeks or 12 months ending with the bucket of the end', () => {
    const end = at('2027-01-05T10:00:00Z')
    expect(bucketKeys('daily', defaultStart('daily', end, 30), end)).toHaveLength(30)
    expect(dayKey(defaultStart('daily', end, 30))).toBe('2026-12-07')
    expect(bucketKeys('weekly', defaultStart('weekly', end, 12), end)).toEqual([
      '2026-W43',
      '2026-W44',
      '2026-W45',
      '2026-W46',
      '2026-W47',
      '2026-W48',
      '2026-W49',
      '2026-W50',
      '2026-W51',
      '2026-W52',
      '2026-W53',
      '2027-W01',
    ])
    expect(bucketKeys('monthly', defaultStart('monthly', end, 12), end)).toEqual([
      '2026-02',
      '2026-03',
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
      '2026-12',
      '2027-01',
    ])
  })
})
