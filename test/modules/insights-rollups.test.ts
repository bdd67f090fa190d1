// Every rollup of the interactions (the insights' and the summary's) equals the same GROUP BY over the interaction rows: after concurrent records (counted
// with each batch on PostgreSQL, folded in after it on SQLite), after retention deletes (the delete triggers take rows out), and after migration 0011 is run
// again on stored rows (its backfill).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Kysely, sql } from 'kysely'
import { pruneInteractions } from '../../src/modules/interactions/retention.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { forMigrations } from '../../src/platform/db/dialect.ts'
import { foldRollups } from '../../src/platform/db/rollup-folder.ts'
import * as m0011 from '../../src/platform/db/migrations/0011_insights_user_monthly_tools.ts'
import * as m0030 from '../../src/platform/db/migrations/0030_daily_usage_by_month.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { compareDailyUsageByMonth, compareRollup, ROLLUPS } from '../helpers/rollups.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const DAY = 86_400_000
const NOW = '2026-11-20T12:00:00.000Z'
let t: TestServer
let users: string[] = []

beforeAll(async () => {
  t = await startTestServer({ now: NOW })
  const { adminToken } = await t.provision()
  const a = await t.createUser(adminToken, { email: 'a@example.com' })
  const b = await t.createUser(adminToken, { email: 'b@example.com' })
  users = await Promise.all([adminToken, a.token, b.token].map(async (token) => (await t.request('GET', '/api/auth/me', { token })).body.id as string))
  // 90 days across three months, recorded 40 at a time so the group commit meets batches of many users, days and tools.
  const service = t.server.modules.interactions.service
  const start = Date.parse(NOW) - 89 * DAY
  for (let day = 0; day < 90; day++) {
    t.clock.set(start + day * DAY)
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        service.record(users[(day + i) % 3]!, {
          kind: i % 4 === 0 ? 'api_action' : 'mcp_tool',
          apiTitle: i % 4 === 0 ? `App ${i % 3}` : `server-${i % 5}`,
          action: `tool_${i % 7}`,
          isError: (day * 40 + i) % 13 === 0,
          durationSeconds: i % 9 === 0 ? undefined : ((day * 40 + i) % 997) / 100,
        }),
      ),
    )
  }
  t.clock.set(Date.parse(NOW))
})
afterAll(() => t.close())

const compare = (rollup: (typeof ROLLUPS)[number]) => compareRollup(t, rollup)

describe('insights rollups', () => {
  test('each equals a GROUP BY over the rows after concurrent records', async () => {
    expect(((await t.sql.get('SELECT count(*) AS n FROM interactions')) as { n: number }).n).toBe(3600)
    for (const rollup of ROLLUPS) {
      const { stored, fromRows } = await compare(rollup)
      expect(stored.length).toBeGreaterThan(0)
      expect({ table: rollup.table, rows: stored }).toEqual({ table: rollup.table, rows: fromRows })
    }
    if (ON_POSTGRES)
      for (const of of ['organisation', 'users'] as const) {
        const { stored, fromRows } = await compareDailyUsageByMonth(t, of)
        expect(stored.length).toBeGreaterThanOrEqual(90 * 8)
        expect(stored).toEqual(fromRows)
      }
  })

  test('each still equals the rows after retention deleted the oldest days', async () => {
    const { deleted } = await pruneInteractions(t.server.database.db, new ManualClock(Date.parse(NOW)), 45, { batchSize: 97 })
    expect(deleted).toBeGreaterThan(1000)
    // The emptied daily usage rows are gone (insights ask them whether anything precedes a range).
    expect(await t.sql.get('SELECT count(*) AS n FROM interaction_user_daily_usage WHERE n = 0')).toEqual({ n: 0 })
    for (const rollup of ROLLUPS) {
      const { stored, fromRows } = await compare(rollup)
      expect({ table: rollup.table, rows: stored }).toEqual({ table: rollup.table, rows: fromRows })
    }
    if (ON_POSTGRES)
      for (const of of ['organisation', 'users'] as const) {
        const { stored, fromRows } = await compareDailyUsageByMonth(t, of)
        expect(stored.length).toBeGreaterThanOrEqual(46 * 8)
        expect(stored).toEqual(fromRows)
        // The months wholly before the cutoff (2026-10-06) held only pruned days: their rows are gone; October's stays.
        const table = of === 'users' ? 'interaction_user_daily_usage_by_month' : 'interaction_daily_usage_by_month'
        expect(await t.sql.all(`SELECT min(month) AS month FROM ${table}`)).toEqual([{ month: '2026-10' }])
      }
  })

  test.if(ON_POSTGRES)('PostgreSQL: migration 0030 run again on stored rows fills the same days, and its trigger takes deletes out', async () => {
    const db = t.server.database.db
    const scopes = ['organisation', 'users'] as const
    const before = await Promise.all(scopes.map((of) => compareDailyUsageByMonth(t, of)))
    await m0030.down(forMigrations(db) as Kysely<unknown>)
    await m0030.up(forMigrations(db) as Kysely<unknown>)
    for (const [i, of] of scopes.entries()) {
      const refilled = await compareDailyUsageByMonth(t, of)
      expect(refilled.stored).toEqual(before[i]!.stored)
      expect(refilled.stored).toEqual(refilled.fromRows)
    }
    await sql`delete from interactions where user_id = ${users[2]!} and substr(created_at, 1, 10) in ('2026-10-31', '2026-11-15')`.execute(db)
    for (const [i, of] of scopes.entries()) {
      const after = await compareDailyUsageByMonth(t, of)
      expect(after.stored).toEqual(after.fromRows)
      expect(after.stored).not.toEqual(before[i]!.stored)
    }
  })

  test('migration 0011 run again on stored rows fills its rollups to the same counts, and its trigger takes deletes out', async () => {
    const db = t.server.database.db
    // As the migrator runs it: on PostgreSQL with the migrations' column types read as PostgreSQL's.
    // Its backfill counts every stored row: the rows recorded so far are counted in the other rollups first.
    await foldRollups(db)
    await m0011.down(forMigrations(db) as Kysely<unknown>)
    await m0011.up(forMigrations(db) as Kysely<unknown>)
    // On SQLite migration 0029 replaced 0011's delete trigger by one for every rollup (which still stands): as it did.
    if (t.server.database.kind === 'sqlite') await sql`drop trigger interactions_user_monthly_tools_delete`.execute(db)
    for (const table of ['interaction_user_monthly_tools', 'interaction_user_tools', 'interaction_user_durations']) {
      const rollup = ROLLUPS.find((candidate) => candidate.table === table)!
      const before = await compare(rollup)
      expect(before.stored).toEqual(before.fromRows)
      await sql`delete from interactions where user_id = ${users[1]!} and substr(created_at, 1, 10) = ${`2026-11-0${ROLLUPS.indexOf(rollup) % 9}`}`.execute(db)
      const after = await compare(rollup)
      expect(after.stored).toEqual(after.fromRows)
      expect(after.stored).not.toEqual(before.stored)
    }
  })
})

describe('a group-committed batch', () => {
  test('with a faulty row: only that row fails, the others are stored as sent and counted once', async () => {
    const service = t.server.modules.interactions.service
    const before = ((await t.sql.get('SELECT count(*) AS n FROM interactions')) as { n: number }).n
    // Text PostgreSQL cannot hold as it is (U+0000) and its escape character, through the batch's arrays.
    const titles = ['nul\u0000server', 'ffff\uffffserver', 'plain server']
    const calls = Array.from({ length: 30 }, (_, i) =>
      service.record(users[i % 3]!, {
        kind: 'mcp_tool',
        apiTitle: titles[i % 3]!,
        action: `tool\u0000${i % 4}`,
        isError: i % 5 === 0,
        durationSeconds: i % 6 === 0 ? undefined : i / 7,
        userInput: `input ${i}\u0000`,
      }),
    )
    // A user id no row refers to: the foreign key refuses it, inside the same batch as the others.
    const faulty = service.record('no-such-user', { kind: 'mcp_tool', apiTitle: 'plain server', action: 'tool', isError: false })
    const results = await Promise.allSettled([...calls, faulty])
    expect(results.slice(0, 30).every((result) => result.status === 'fulfilled')).toBe(true)
    expect(results[30]!.status).toBe('rejected')
    expect(((await t.sql.get('SELECT count(*) AS n FROM interactions')) as { n: number }).n).toBe(before + 30)
    const stored = (
      await sql<{ api_title: string; action: string; user_input: string }>`select api_title, action, user_input from interactions
      where user_input like ${'input %'} order by api_title, action, user_input`.execute(t.server.database.db)
    ).rows
    expect(stored.length).toBe(30)
    expect(new Set(stored.map((row) => row.api_title))).toEqual(new Set(titles))
    expect(stored.filter((row) => row.user_input === 'input 7\u0000')).toEqual([{ api_title: titles[1]!, action: 'tool\u00003', user_input: 'input 7\u0000' }])
    for (const rollup of ROLLUPS) {
      const { stored, fromRows } = await compare(rollup)
      expect({ table: rollup.table, rows: stored }).toEqual({ table: rollup.table, rows: fromRows })
    }
  })
})
