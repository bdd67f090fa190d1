// How many statements an insights answer costs on PostgreSQL, where each is a round trip to another process: the reads
// of a round go together (readTogether), so a member's or the organisation's year is a fixed few plus one per round.
// Counted, not timed: the rounds are counted by the hook computeInsights calls between them. PostgreSQL only (on
// SQLite the same reads run one after another, in the same process).
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
  test.skipIf(!ON_POSTGRES)(`${scope}'s year: one statement per round, plus the coverage, the months and the approvals`, async () => {
    const { db, statements } = counting(t.server.database.db)
    let rounds = 1
    const from = NOW - 364 * DAY
    const insights = await computeInsights(db, { userId: user(), agent: null }, from, NOW, async () => {
      rounds++
    })
    expect(insights.interactions_per_day.reduce((sum, day) => sum + day.total, 0)).toBe(73)
    // Coverage questions (one statement; none when the range is whole months), the monthly or all-time reads, the
    // rounds, the waiting gates with the first page of decisions.
    expect(statements()).toBe(1 + 1 + rounds + 1)
  })

for (const [scope, user] of [
  ['a member', () => member],
  ['the organisation', () => null],
] as const)
  test.skipIf(!ON_POSTGRES)(`${scope}'s year over slow round trips: the rounds still grow (timed from the rows' arrival)`, async () => {
    // Each statement answered 10 ms late, as on a loaded database server: a round timed from before its read would
    // take over 4 ms and halve the next one; timed from the rows' arrival, a month, two, four, eight: four rounds.
    const { db } = counting(t.server.database.db, 10)
    let rounds = 1
    const from = NOW - 364 * DAY
    const insights = await computeInsights(db, { userId: user(), agent: null }, from, NOW, async () => {
      rounds++
    })
    expect(insights.interactions_per_day.reduce((sum, day) => sum + day.total, 0)).toBe(73)
    expect(rounds).toBe(4)
  })
