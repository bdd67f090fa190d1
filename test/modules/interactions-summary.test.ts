// POST /api/interaction/summary (CONTRACT §6): UTC buckets (ISO weeks at year ends), completeness, scoping, filters, refusals.
import { ON_POSTGRES } from '../helpers/database.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../src/platform/clock.ts'
import { InteractionsService } from '../../src/modules/interactions/service.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
/** Personal API tokens: they do not expire while the clock walks across weeks. */
let admin: { id: string; token: string }
let alice: { id: string; token: string }
let bob: { id: string; token: string }

async function personalToken(accessToken: string): Promise<string> {
  const res = await t.request('POST', '/api/auth/tokens', { token: accessToken, body: { name: 'test' } })
  if (res.status !== 201) throw new Error(`token: ${res.status}`)
  return res.body.token
}

async function recordAt(iso: string, who: { token: string }, mcp_server_name: string): Promise<void> {
  t.clock.set(iso)
  const res = await t.request('POST', '/api/interaction/record-mcp-tool', { token: who.token, body: { tool_name: 'tool', mcp_server_name } })
  if (res.status !== 200) throw new Error(`record: ${res.status} ${JSON.stringify(res.body)}`)
}

const summary = (body: unknown, who: { token: string } = admin) => t.request('POST', '/api/interaction/summary', { token: who.token, body })

beforeAll(async () => {
  t = await startTestServer({ now: '2026-12-01T00:00:00.000Z' })
  const { adminToken } = await t.provision({ days: 3650 })
  admin = { id: (await t.request('GET', '/api/auth/me', { token: adminToken })).body.id, token: await personalToken(adminToken) }
  const a = await t.createUser(adminToken, { email: 'alice@example.com' })
  const b = await t.createUser(adminToken, { email: 'bob@example.com' })
  alice = { id: a.id, token: await personalToken(a.token) }
  bob = { id: b.id, token: await personalToken(b.token) }

  await recordAt('2026-12-01T10:00:00.000Z', admin, 'GitHub')
  await recordAt('2026-12-28T08:00:00.000Z', alice, 'Jira') // Monday of 2026-W53
  await recordAt('2026-12-31T23:59:59.999Z', alice, 'Jira') // the last instant of 2026, still 2026-W53
  await recordAt('2027-01-03T12:00:00.000Z', alice, 'Jira') // Sunday: 2026-W53
  await recordAt('2027-01-04T00:00:00.000Z', alice, 'GitHub') // Monday: 2027-W01 starts
  await recordAt('2027-01-10T23:00:00.000Z', alice, 'GitHub')
  await recordAt('2027-01-11T00:00:00.000Z', bob, 'Jira') // 2027-W02
  await recordAt('2027-01-11T01:00:00.000Z', bob, 'Slack')
  await recordAt('2027-02-01T00:00:00.000Z', bob, 'Slack')
})
afterAll(() => t.close())

const YEAR_END = { start_date: '2026-12-28T00:00:00Z', end_date: '2027-01-11T00:00:00Z' }

describe('weekly: ISO weeks at the 2026/2027 boundary', () => {
  test('2026-12-31 and 2027-01-03 count in 2026-W53, 2027-01-04 in 2027-W01', async () => {
    const res = await summary({ summary_type: 'api_usage', time_frame: 'weekly', ...YEAR_END })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(res.headers.get('x-request-id')).toEqual(expect.any(String))
    expect(res.body).toEqual({ '2026-W53': { Jira: 3 }, '2027-W01': { GitHub: 2 }, '2027-W02': { Jira: 1, Slack: 1 } })
    expect(Object.keys(res.body)).toEqual(['2026-W53', '2027-W01', '2027-W02'])
  })

  test('total gives one integer per week', async () => {
    expect((await summary({ summary_type: 'total', time_frame: 'weekly', ...YEAR_END })).body).toEqual({ '2026-W53': 3, '2027-W01': 2, '2027-W02': 2 })
  })

  test('a member counts only their own', async () => {
    expect((await summary({ time_frame: 'weekly', ...YEAR_END }, alice)).body).toEqual({ '2026-W53': { Jira: 3 }, '2027-W01': { GitHub: 2 }, '2027-W02': {} })
    expect((await summary({ summary_type: 'total', time_frame: 'weekly', ...YEAR_END }, bob)).body).toEqual({ '2026-W53': 0, '2027-W01': 0, '2027-W02': 2 })
  })
})

describe('completeness and granularity', () => {
  test('daily: every day of the range is present, empty ones as {} (api_usage) or 0 (total)', async () => {
    const range = { start_date: '2026-12-30T00:00:00Z', end_date: '2027-01-05T00:00:00Z' }
    expect((await summary({ time_frame: 'daily', ...range })).body).toEqual({
      '2026-12-30': {},
      '2026-12-31': { Jira: 1 },
      '2027-01-01': {},
      '2027-01-02': {},
      '2027-01-03': { Jira: 1 },
      '2027-01-04': { GitHub: 1 },
      '2027-01-05': {},
    })
    expect((await summary({ summary_type: 'total', time_frame: 'daily', ...range })).body).toEqual({
      '2026-12-30': 0,
      '2026-12-31': 1,
      '2027-01-01': 0,
      '2027-01-02': 0,
      '2027-01-03': 1,
      '2027-01-04': 1,
      '2027-01-05': 0,
    })
  })

  test('monthly, across the year, with an empty month first', async () => {
    const range = { time_frame: 'monthly', start_date: '2026-11-15T00:00:00Z', end_date: '2027-02-01T00:00:00Z' }
    expect((await summary(range)).body).toEqual({
      '2026-11': {},
      '2026-12': { GitHub: 1, Jira: 2 },
      '2027-01': { GitHub: 2, Jira: 2, Slack: 1 },
      '2027-02': { Slack: 1 },
    })
    expect((await summary({ ...range, summary_type: 'total' })).body).toEqual({ '2026-11': 0, '2026-12': 3, '2027-01': 5, '2027-02': 1 })
  })

  test('the range covers whole UTC days: an end at 23:00 still counts 23:59:59.999 of that day', async () => {
    const res = await summary({ start_date: '2026-12-31T23:00:00Z', end_date: '2026-12-31T23:00:00Z' })
    expect(res.body).toEqual({ '2026-12-31': { Jira: 1 } })
  })

  test('dates with an offset are read in UTC; a plain date is that UTC day', async () => {
    // 2027-01-04T01:00+02:00 is 2027-01-03T23:00Z: the day is 2027-01-03.
    expect((await summary({ start_date: '2027-01-04T01:00:00+02:00', end_date: '2027-01-04' })).body).toEqual({
      '2027-01-03': { Jira: 1 },
      '2027-01-04': { GitHub: 1 },
    })
  })

  test('the defaults: api_usage, daily, the 30 days ending today', async () => {
    t.clock.set('2027-02-01T12:00:00.000Z')
    const res = await summary({})
    expect(Object.keys(res.body)).toHaveLength(30)
    expect(Object.keys(res.body)[0]).toBe('2027-01-03')
    expect(res.body['2027-02-01']).toEqual({ Slack: 1 })
    expect(res.body['2027-01-11']).toEqual({ Jira: 1, Slack: 1 })
  })

  test('default ranges of weekly and monthly: 12 buckets ending with the current one; an end without a start counts back from it', async () => {
    t.clock.set('2027-02-01T12:00:00.000Z')
    const weekly = Object.keys((await summary({ time_frame: 'weekly' })).body)
    expect(weekly).toHaveLength(12)
    expect([weekly[0], weekly.at(-1)]).toEqual(['2026-W47', '2027-W05']) // 2026 has 53 weeks
    const monthly = Object.keys((await summary({ time_frame: 'monthly', end_date: '2027-01-15T00:00:00Z' })).body)
    expect([monthly.length, monthly[0], monthly.at(-1)]).toEqual([12, '2026-02', '2027-01'])
  })

  test('a start without an end runs to now', async () => {
    t.clock.set('2027-02-01T12:00:00.000Z')
    expect(Object.keys((await summary({ time_frame: 'monthly', start_date: '2026-12-01T00:00:00Z' })).body)).toEqual(['2026-12', '2027-01', '2027-02'])
  })
})

describe('scope and filters', () => {
  const ALL = { time_frame: 'monthly', summary_type: 'total', start_date: '2026-12-01', end_date: '2027-02-28' }

  test("an admin gets the organisation's total, the sum of every user's own", async () => {
    const org = (await summary(ALL)).body
    // Members get their own; the admin's own needs user_id, since an admin's summary is the organisation's.
    const parts = [(await summary({ ...ALL, user_id: admin.id })).body, (await summary(ALL, alice)).body, (await summary(ALL, bob)).body]
    expect(org).toEqual({ '2026-12': 3, '2027-01': 5, '2027-02': 1 })
    for (const month of Object.keys(org)) expect(parts.reduce((sum, p) => sum + p[month], 0)).toBe(org[month])
  })

  test('admins may narrow to one user with user_id; an unknown user is 404', async () => {
    expect((await summary({ ...ALL, user_id: bob.id })).body).toEqual({ '2026-12': 0, '2027-01': 2, '2027-02': 1 })
    const unknown = await summary({ ...ALL, user_id: 'nobody' })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ detail: 'User not found' })
  })

  test("a member may pass their own user_id; another user's is 403", async () => {
    expect((await summary({ ...ALL, user_id: alice.id }, alice)).body).toEqual({ '2026-12': 2, '2027-01': 3, '2027-02': 0 })
    const other = await summary({ ...ALL, user_id: bob.id }, alice)
    expect(other.status).toBe(403)
    expect(other.body).toEqual({ detail: 'Members can only summarise their own interactions' })
  })

  test('api_title keeps only those titles; an empty list means all; for members too', async () => {
    const monthly = { time_frame: 'monthly', start_date: '2026-12-01', end_date: '2027-01-31' }
    expect((await summary({ ...monthly, api_title: ['Jira', 'Unknown'] })).body).toEqual({ '2026-12': { Jira: 2 }, '2027-01': { Jira: 2 } })
    expect((await summary({ ...monthly, api_title: ['Slack'], summary_type: 'total' })).body).toEqual({ '2026-12': 0, '2027-01': 1 })
    expect((await summary({ ...monthly, api_title: [] })).body).toEqual((await summary(monthly)).body)
    expect((await summary({ ...monthly, api_title: ['GitHub'] }, alice)).body).toEqual({ '2026-12': {}, '2027-01': { GitHub: 2 } })
    expect((await summary({ ...monthly, api_title: ['GitHub'], user_id: alice.id })).body).toEqual({ '2026-12': {}, '2027-01': { GitHub: 2 } })
  })

  test('a title like "__proto__" or "constructor" is counted like any other', async () => {
    await recordAt('2027-02-02T00:00:00.000Z', bob, '__proto__')
    await recordAt('2027-02-02T00:00:01.000Z', bob, 'constructor')
    const day = { start_date: '2027-02-02', end_date: '2027-02-02' }
    // Compared as JSON text: JSON.parse keeps "__proto__" as an own key, and so must the server when it builds the body.
    expect(JSON.stringify((await summary(day)).body)).toBe('{"2027-02-02":{"__proto__":1,"constructor":1}}')
    expect(JSON.stringify((await summary({ ...day, api_title: ['__proto__'] }, bob)).body)).toBe('{"2027-02-02":{"__proto__":1}}')
  })
})

describe('refusals', () => {
  const cases: [string, Record<string, unknown>, [string, string][]][] = [
    ['an unknown time_frame', { time_frame: 'yearly' }, [['time_frame', 'literal_error']]],
    ['an unknown summary_type', { summary_type: 'per_user' }, [['summary_type', 'literal_error']]],
    ['start_date after end_date', { start_date: '2027-01-02T00:00:00Z', end_date: '2027-01-01T00:00:00Z' }, [['start_date', 'value_error']]],
    ['start_date after end_date within one day', { start_date: '2027-01-01T10:00:00Z', end_date: '2027-01-01T09:59:59Z' }, [['start_date', 'value_error']]],
    ['start_date in the future with no end_date', { start_date: '2099-01-01T00:00:00Z' }, [['start_date', 'value_error']]],
    [
      'words for dates',
      { start_date: 'yesterday', end_date: 'today' },
      [
        ['end_date', 'value_error'],
        ['start_date', 'value_error'],
      ],
    ],
    ['a date-time without a zone', { start_date: '2027-01-01T10:00:00' }, [['start_date', 'value_error']]],
    [
      'slashes, or a space and no zone',
      { start_date: '2027/01/01', end_date: '2027-01-02 10:00' },
      [
        ['end_date', 'value_error'],
        ['start_date', 'value_error'],
      ],
    ],
    ['an impossible day', { start_date: '2027-02-30' }, [['start_date', 'value_error']]],
    [
      'dates that are not strings',
      { start_date: 20270101, end_date: true },
      [
        ['end_date', 'string_type'],
        ['start_date', 'string_type'],
      ],
    ],
    ['api_title as a string', { api_title: 'Jira' }, [['api_title', 'list_type']]],
    ['api_title with a number', { api_title: ['Jira', 7] }, [['api_title.1', 'string_type']]],
    ['api_title as an object', { api_title: { 0: 'Jira' } }, [['api_title', 'list_type']]],
    ['user_id not a string', { user_id: 5 }, [['user_id', 'string_type']]],
    ['more than 1000 daily buckets', { start_date: '2024-01-01', end_date: '2026-12-31' }, [['end_date', 'value_error']]],
    [
      'several problems at once',
      { time_frame: 'hourly', summary_type: 'x', api_title: 'x' },
      [
        ['api_title', 'list_type'],
        ['summary_type', 'literal_error'],
        ['time_frame', 'literal_error'],
      ],
    ],
  ]
  for (const [name, body, expected] of cases) {
    test(`${name}: 422`, async () => {
      const res = await summary(body)
      expect(res.status).toBe(422)
      expect(res.body.detail.map((d: any) => [d.loc.slice(1).join('.'), d.type]).sort()).toEqual(expected)
      for (const d of res.body.detail) expect(d.msg).toEqual(expect.any(String))
    })
  }

  test('the messages say what is wrong', async () => {
    expect((await summary({ start_date: '2027-01-02', end_date: '2027-01-01' })).body.detail[0].msg).toBe('start_date must not be after end_date')
    expect((await summary({ start_date: '2027/01/01' })).body.detail[0].msg).toBe('Input should be a valid date-time')
    expect((await summary({ time_frame: 'yearly' })).body.detail[0].msg).toBe("Input should be 'daily', 'weekly' or 'monthly'")
    expect((await summary({ start_date: '2024-01-01', end_date: '2026-12-31' })).body.detail[0].msg).toContain('at most 1000')
  })

  test('the same long range is fine weekly or monthly', async () => {
    expect((await summary({ time_frame: 'weekly', start_date: '2024-01-01', end_date: '2026-12-31' })).status).toBe(200)
    expect(Object.keys((await summary({ time_frame: 'monthly', start_date: '2024-01-01', end_date: '2026-12-31' })).body)).toHaveLength(36)
  })

  test('no token is 401, before the body is looked at', async () => {
    const res = await t.request('POST', '/api/interaction/summary', { body: { time_frame: 'yearly' } })
    expect(res.status).toBe(401)
  })
})

describe('licence lapsed', () => {
  test('past expiry and grace, summaries still answer (a read sent as POST) while recording is blocked (402)', async () => {
    const lapsed = await startTestServer({ now: '2027-01-01T00:00:00Z' })
    try {
      const { orgToken } = await lapsed.provision({ days: 1 })
      lapsed.clock.advance(16 * 86_400_000)
      const read = await lapsed.request('POST', '/api/interaction/summary', { token: orgToken, body: { summary_type: 'total' } })
      expect(read.status).toBe(200)
      const write = await lapsed.request('POST', '/api/interaction/record-mcp-tool', { token: orgToken, body: { tool_name: 't', mcp_server_name: 's' } })
      expect(write.status).toBe(402)
    } finally {
      await lapsed.close()
    }
  })
})

describe('exactness of the organisation rollup', () => {
  test('matches a GROUP BY over the raw rows for thousands of interactions at random instants, users and titles', async () => {
    const clock = new ManualClock('2027-03-01T00:00:00Z')
    const store = new InteractionsService(t.server.database.db, clock)
    let seed = 42
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
    const users = [admin.id, alice.id, bob.id]
    // Recorded 100 at a time (each takes its instant from the clock when called): the group commit writes them and
    // their rollups in batches that span many days, users and titles.
    const recording: Promise<unknown>[] = []
    for (let i = 0; i < 3000; i++) {
      clock.set(Date.parse('2027-03-01T00:00:00Z') + Math.floor(random() * 120 * 86_400_000))
      recording.push(
        store.record(users[Math.floor(random() * 3)]!, {
          kind: i % 2 ? 'api_action' : 'mcp_tool',
          apiTitle: `title-${Math.floor(random() * 7)}`,
          action: 'a',
          isError: false,
        }),
      )
      if (recording.length === 100) await Promise.all(recording.splice(0))
    }
    await Promise.all(recording)
    expect(await t.sql.count('interactions', "created_at >= '2027-03-01'")).toBe(3000)
    const range = { start_date: '2027-03-01', end_date: '2027-06-28' }
    // The rows themselves, not an index or a rollup (NOT INDEXED is SQLite's; PostgreSQL reads the table here anyway).
    const notIndexed = ON_POSTGRES ? '' : 'NOT INDEXED'
    const naive = async (bucket: string) =>
      (await t.sql.all(
        `SELECT ${bucket} AS b, api_title, count(*) AS n FROM interactions ${notIndexed} WHERE created_at >= '2027-03-01' AND created_at < '2027-06-29' GROUP BY 1, 2`,
      )) as { b: string; api_title: string; n: number }[]
    for (const [frame, bucket] of FRAMES) {
      const res = await summary({ time_frame: frame, ...range })
      const expected: Record<string, Record<string, number>> = Object.fromEntries(Object.keys(res.body).map((k) => [k, {}]))
      for (const row of await naive(bucket)) expected[row.b]![row.api_title] = row.n
      expect(res.body).toEqual(expected)
      // One user's, as an admin narrows to them (their own rollup: every kind of call counted together).
      const ofAlice = await summary({ time_frame: frame, ...range, user_id: alice.id })
      const expectedOfAlice: Record<string, Record<string, number>> = Object.fromEntries(Object.keys(ofAlice.body).map((k) => [k, {}]))
      for (const row of (await t.sql.all(
        `SELECT ${bucket} AS b, api_title, count(*) AS n FROM interactions ${notIndexed} WHERE created_at >= '2027-03-01' AND created_at < '2027-06-29' AND user_id = '${alice.id}' GROUP BY 1, 2`,
      )) as { b: string; api_title: string; n: number }[])
        expectedOfAlice[row.b]![row.api_title] = row.n
      expect(ofAlice.body).toEqual(expectedOfAlice)
    }
    // A range that starts and ends inside months, a title filter, and totals: the days outside it never count.
    const within = "created_at >= '2027-03-15' AND created_at < '2027-05-11'"
    for (const [frame, bucket] of FRAMES) {
      const body = { time_frame: frame, start_date: '2027-03-15T10:00:00Z', end_date: '2027-05-10' }
      const filtered = await summary({ ...body, api_title: ['title-2', 'title-5'] })
      const totals = await summary({ ...body, summary_type: 'total' })
      const expectedFiltered: Record<string, Record<string, number>> = Object.fromEntries(Object.keys(filtered.body).map((k) => [k, {}]))
      const expectedTotals: Record<string, number> = Object.fromEntries(Object.keys(totals.body).map((k) => [k, 0]))
      for (const row of (await t.sql.all(`SELECT ${bucket} AS b, api_title, count(*) AS n FROM interactions ${notIndexed} WHERE ${within} GROUP BY 1, 2`)) as {
        b: string
        api_title: string
        n: number
      }[]) {
        if (row.api_title === 'title-2' || row.api_title === 'title-5') expectedFiltered[row.b]![row.api_title] = row.n
        expectedTotals[row.b] = expectedTotals[row.b]! + row.n
      }
      expect(Object.keys(filtered.body)[0]).toBe(frame === 'daily' ? '2027-03-15' : frame === 'weekly' ? '2027-W11' : '2027-03')
      expect(filtered.body).toEqual(expectedFiltered)
      expect(totals.body).toEqual(expectedTotals)
    }
  })

  test('a month of more titles than PostgreSQL reads by month at once (1,000) is read by days, as exactly', async () => {
    const clock = new ManualClock('2028-01-01T00:00:00Z')
    const store = new InteractionsService(t.server.database.db, clock)
    const recording: Promise<unknown>[] = []
    for (let i = 0; i < 1100; i++) {
      clock.set(Date.parse('2028-01-01T00:00:00Z') + (i % 31) * 86_400_000 + i)
      recording.push(store.record(admin.id, { kind: 'mcp_tool', apiTitle: `server-${i}`, action: 'a', isError: false }))
      if (recording.length === 100) await Promise.all(recording.splice(0))
    }
    await Promise.all(recording)
    for (const [frame, bucket] of FRAMES) {
      const res = await summary({ time_frame: frame, start_date: '2028-01-01', end_date: '2028-01-31' })
      const expected: Record<string, Record<string, number>> = Object.fromEntries(Object.keys(res.body).map((k) => [k, {}]))
      for (const row of (await t.sql.all(
        `SELECT ${bucket} AS b, api_title, count(*) AS n FROM interactions WHERE created_at >= '2028-01-01' AND created_at < '2028-02-01' GROUP BY 1, 2`,
      )) as { b: string; api_title: string; n: number }[])
        expected[row.b]![row.api_title] = row.n
      expect(Object.values(res.body as Record<string, object>).reduce((n: number, titles) => n + Object.keys(titles).length, 0)).toBe(1100)
      expect(res.body).toEqual(expected)
    }
  })
})

const FRAMES = [
  ['daily', 'substr(created_at, 1, 10)'],
  ['weekly', ON_POSTGRES ? `to_char(cast(substr(created_at, 1, 10) as date), 'IYYY-"W"IW')` : "strftime('%G-W%V', created_at)"],
  ['monthly', 'substr(created_at, 1, 7)'],
] as const

describe('dates far ahead (issue 14, item 23)', () => {
  test('plain dates and date-times from the year 2100 on are accepted; nonsense still gets the date error', async () => {
    const t = await startTestServer()
    const { adminToken } = await t.provision()
    for (const [start_date, end_date] of [
      ['2100-01-01', '2100-01-02'],
      ['2099-12-31', '2100-01-01T10:00:00Z'],
      ['9999-12-30', '9999-12-31'],
    ] as const) {
      const res = await t.request('POST', '/api/interaction/summary', { token: adminToken, body: { start_date, end_date } })
      expect(res.status).toBe(200)
      expect(Object.keys(res.body)).toContain(end_date.slice(0, 10))
    }
    const bad = await t.request('POST', '/api/interaction/summary', { token: adminToken, body: { start_date: '2100-02-30', end_date: 'soon' } })
    expect(bad.status).toBe(422)
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.at(-1))).toEqual(['start_date', 'end_date'])
    await t.close()
  })
})
