// How many statements an insights answer costs on PostgreSQL, where each is a round trip to another process: the whole
// range is read in one pass (one statement), and only the tools and durations of days outside whole months are left
// for rounds. Counted, not timed: the rounds are counted by the hook computeInsights calls between them. PostgreSQL
// only (on SQLite the same reads run one after another, in the same process, a round of days at a time).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Kysely } from 'kysely'
import { computeInsights } from '../../src/modules/insights/compute.ts'
import type { Database } from '../../src/platform/db/schema.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const DAY = 86_400_000
const NOW = Date.parse('2026-11-20T12:00:00.000Z')
let t: TestServer
let member = ''

beforeAll(async () => {
  if (!ON_POSTGRES) return
  t = await startTestServer({ now: new Date(NOW).toISOString() })
  const { adminToken } = await t.provision()
  const a = await t.createUser(adminToken, { email: 'a@example.com' })
  member = (await t.request('GET', '/api/auth/me', { token: a.token })).body.id as string
  const service = t.server.modules.interactions.service
  // A call every fifth day of the last year, some with a duration.
  for (let day = 360; day >= 0; day -= 5) {
    t.clock.set(NOW - day * DAY)
    await service.record(member, {
      kind: day % 2 ? 'mcp_tool' : 'api_action',
      apiTitle: `app ${day % 3}`,
      action: 'go',
      isError: day % 7 === 0,
      durationSeconds: day % 4 ? 0.5 : undefined,
    })
  }
  t.clock.set(NOW)
})
afterAll(async () => {
  if (ON_POSTGRES) await t.close()
})

/** The database, counting the statements sent through it; each answered `delayMs` later (a slow round trip). */
function counting(db: Kysely<Database>, delayMs = 0): { db: Kysely<Database>; statements: () => number } {
  let statements = 0
  const proxy = new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (property === 'executeQuery')
        return async (...args: unknown[]) => {
          statements++
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
          return result
        }
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { db: proxy, statements: () => statements }
}

for (const [scope, user] of [
  ['a member', () => member],
  ['the organisation', () => null],
] as const)
  for (const delayMs of [0, 10])
    test.skipIf(!ON_POSTGRES)(`${scope}'s year${delayMs ? ' over slow round trips' : ''}: one statement, no rounds`, async () => {
      // The year, "the last 365 days" with nothing stored before or after it: the one pass reads the per-day series,
      // runs, active users, waiting gates, first page of decisions, the coverage questions and the monthly (or a
      // member's all-time) figures they were expected to allow, in one statement; nothing is left for rounds.
      const { db, statements } = counting(t.server.database.db, delayMs)
      let rounds = 0
      const insights = await computeInsights(db, { userId: user(), agent: null }, NOW - 364 * DAY, NOW, async () => {
        rounds++
      })
      expect(insights.interactions_per_day.reduce((sum, day) => sum + day.total, 0)).toBe(73)
      expect(statements()).toBe(1)
      expect(rounds).toBe(0)
    })

for (const [scope, user] of [
  ['a member', () => member],
  ['the organisation', () => null],
] as const)
  test.skipIf(!ON_POSTGRES)(`${scope}, from the middle of a month with calls before it: the one pass, the months again, one round`, async () => {
    // Calls before the range (and in its first month before it): the monthly figures expected were not the right ones,
    // so they are read again (a member's months instead of their totals; the organisation's from the next month on),
    // then the days of the first month inside the range in one round; the rest of the year came with the one pass.
    const { db, statements } = counting(t.server.database.db)
    let rounds = 0
    const insights = await computeInsights(db, { userId: user(), agent: null }, NOW - 198 * DAY, NOW, async () => {
      rounds++
    })
    expect(insights.interactions_per_day.reduce((sum, day) => sum + day.total, 0)).toBe(40)
    expect(insights.top_applications.reduce((sum, app) => sum + app.count, 0) + insights.top_tools.reduce((sum, tool) => sum + tool.count, 0)).toBe(40)
    expect(statements()).toBe(3)
    expect(rounds).toBe(1)
  })
