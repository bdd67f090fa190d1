// Retention of interactions: whole UTC days older than AGENTBOX_INTERACTION_RETENTION_DAYS go, in batches, and summaries stay exact.
import { afterEach, describe, expect, test } from 'bun:test'
import { createInteractionsModule, RETENTION_CHECK_MS } from '../../src/modules/interactions/module.ts'
import { pruneInteractions, retentionCutoffDay } from '../../src/modules/interactions/retention.ts'
import { InteractionsService } from '../../src/modules/interactions/service.ts'
import { authGuard } from '../../src/platform/auth/guard.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { foldRollups } from '../../src/platform/db/rollup-folder.ts'
import { notAuthenticated } from '../../src/platform/http/http-error.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const DAY = 86_400_000
const NOW = '2027-03-15T09:30:00.000Z'

let t: TestServer
afterEach(() => t?.close())

/** `perDay` interactions on each of the `days` UTC days before today and today, spread over the day, users and titles. */
async function seed(days: number, perDay: number): Promise<{ adminToken: string }> {
  t = await startTestServer({ now: NOW, env: { AGENTBOX_INTERACTION_RETENTION_DAYS: '30' } })
  const { adminToken, orgToken } = await t.provision()
  const member = await t.createUser(adminToken, { email: 'm@example.com' })
  const ids = await Promise.all(
    [adminToken, orgToken, member.token].map(async (token) => (await t.request('GET', '/api/auth/me', { token })).body.id as string),
  )
  const clock = new ManualClock(0)
  const store = new InteractionsService(t.server.database.db, clock)
  const start = Date.parse(NOW) - days * DAY
  // A day's interactions at once (each takes its instant from the clock when called): the group commit writes them in
  // a few batches.
  for (let d = 0; d <= days; d++) {
    const recording: Promise<unknown>[] = []
    for (let i = 0; i < perDay; i++) {
      clock.set(start + d * DAY + Math.floor((i / perDay) * DAY) - (Date.parse(NOW) % DAY))
      recording.push(store.record(ids[i % 3]!, { kind: i % 4 ? 'mcp_tool' : 'api_action', apiTitle: `t${i % 5}`, action: 'a', isError: false }))
    }
    await Promise.all(recording)
  }
  return { adminToken }
}

const count = async (where = 'true') => ((await t.sql.get(`SELECT count(*) AS n FROM interactions WHERE ${where}`)) as { n: number }).n
const rollupSum = async (where = 'true') => {
  // As every reader of a rollup does (SQLite counts recorded rows a little later).
  await foldRollups(t.server.database.db)
  return ((await t.sql.get(`SELECT coalesce(sum(n), 0) AS n FROM interaction_daily_usage WHERE ${where}`)) as { n: number }).n
}

/** The admin's summary (from the rollup) against a GROUP BY over the raw rows, over the whole seeded range. */
async function expectSummaryExact(token: string): Promise<void> {
  const res = await t.request('POST', '/api/interaction/summary', { token, body: { time_frame: 'monthly', start_date: '2026-12-01', end_date: '2027-03-31' } })
  const raw = (await t.sql.all('SELECT substr(created_at, 1, 7) AS m, api_title, count(*) AS n FROM interactions GROUP BY 1, 2')) as {
    m: string
    api_title: string
    n: number
  }[]
  const expected: Record<string, Record<string, number>> = { '2026-12': {}, '2027-01': {}, '2027-02': {}, '2027-03': {} }
  for (const row of raw) expected[row.m]![row.api_title] = row.n
  expect(res.body).toEqual(expected)
}

describe('retentionCutoffDay', () => {
  test('keeps today and the N days before it, so a row lives at least N × 24 h', () => {
    expect(retentionCutoffDay(Date.parse('2027-03-15T09:30:00Z'), 30)).toBe('2027-02-13')
    expect(retentionCutoffDay(Date.parse('2027-03-15T00:00:00Z'), 365)).toBe('2026-03-15')
    expect(retentionCutoffDay(Date.parse('2028-03-01T23:59:59Z'), 1)).toBe('2028-02-29')
  })
})

describe('pruneInteractions', () => {
  test('deletes whole days before the cutoff for every user, in small batches, and the summaries stay exact', async () => {
    const { adminToken } = await seed(45, 24)
    const before = await count()
    const old = await count("created_at < '2027-02-13'")
    expect(old).toBeGreaterThan(0)
    await expectSummaryExact(adminToken)

    const result = await pruneInteractions(t.server.database.db, t.clock, 30, { batchSize: 7 })
    expect(result).toEqual({ cutoffDay: '2027-02-13', deleted: old })
    expect(await count()).toBe(before - old)
    expect(await count("created_at < '2027-02-13'")).toBe(0)
    expect(await count("created_at >= '2027-02-13' AND created_at < '2027-02-14'")).toBe(24)
    // The rollup lost exactly what was deleted, and its emptied days are gone.
    expect(await rollupSum()).toBe(await count())
    expect(await rollupSum("day < '2027-02-13'")).toBe(0)
    expect(((await t.sql.get("SELECT count(*) AS n FROM interaction_daily_usage WHERE day < '2027-02-13'")) as { n: number }).n).toBe(0)
    await expectSummaryExact(adminToken)

    expect(await pruneInteractions(t.server.database.db, t.clock, 30, { batchSize: 7 })).toEqual({ cutoffDay: '2027-02-13', deleted: 0 })
  })

  test('the boundary is midnight UTC: 23:59:59.999 of the day before the cutoff goes, 00:00:00.000 of the cutoff day stays', async () => {
    t = await startTestServer({ now: NOW })
    const { orgToken } = await t.provision()
    const orgId = (await t.request('GET', '/api/auth/me', { token: orgToken })).body.id
    const clock = new ManualClock('2027-02-12T23:59:59.999Z')
    const store = new InteractionsService(t.server.database.db, clock)
    await store.record(orgId, { kind: 'mcp_tool', apiTitle: 'x', action: 'a', isError: false })
    clock.set('2027-02-13T00:00:00.000Z')
    await store.record(orgId, { kind: 'mcp_tool', apiTitle: 'x', action: 'a', isError: false })
    expect((await pruneInteractions(t.server.database.db, t.clock, 30)).deleted).toBe(1)
    expect(await t.sql.all('SELECT created_at FROM interactions')).toEqual([{ created_at: '2027-02-13T00:00:00.000Z' }])
    const res = await t.request('POST', '/api/interaction/summary', { token: orgToken, body: { start_date: '2027-02-12', end_date: '2027-02-13' } })
    expect(res.body).toEqual({ '2027-02-12': {}, '2027-02-13': { x: 1 } })
  })
})

describe('the retention job', () => {
  test('is registered hourly and prunes with AGENTBOX_INTERACTION_RETENTION_DAYS', async () => {
    await seed(40, 6)
    const jobs: { name: string; ms: number; run: () => Promise<void> | void }[] = []
    const guard = authGuard({
      authenticate: () => {
        throw notAuthenticated()
      },
      licenseLapsed: () => false,
      synchronous: true,
    })
    createInteractionsModule({
      config: t.server.config,
      clock: t.clock,
      logger: t.log,
      database: t.server.database,
      guard,
      jobs: { every: (name, ms, run) => void jobs.push({ name, ms, run }) },
      cluster: t.server.cluster,
    })
    expect(jobs.map((j) => [j.name, j.ms])).toEqual([['interaction-retention', RETENTION_CHECK_MS]])
    expect(RETENTION_CHECK_MS).toBe(60 * 60 * 1000)
    expect(t.server.config.interactionRetentionDays).toBe(30)

    const old = await count("created_at < '2027-02-13'")
    await jobs[0]!.run()
    expect(await count("created_at < '2027-02-13'")).toBe(0)
    expect(t.log.lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'interactions pruned', cutoff_day: '2027-02-13', deleted: old }))

    // A day later the cutoff moves by one whole day.
    t.clock.advance(DAY)
    await jobs[0]!.run()
    expect(await count("created_at < '2027-02-14'")).toBe(0)
    expect(await count("created_at >= '2027-02-14' AND created_at < '2027-02-15'")).toBe(6)
  })

  test('the retention defaults to 365 days', async () => {
    t = await startTestServer()
    expect(t.server.config.interactionRetentionDays).toBe(365)
  })
})
