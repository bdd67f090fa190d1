// Two instances recording into one PostgreSQL database at once: their group-committed batches upsert the same rollup
// rows, and must queue behind each other's row locks without ever deadlocking (PostgreSQL would abort one of them after
// a second, and the batch would be committed row by row: slow, and invisible to the callers, so the test counts the
// transactions the rows were written in), and count every row once.
// PostgreSQL only: a SQLite data directory has one server.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { GroupCommitInserts } from '../../src/modules/interactions/group-commit.ts'
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts'
import { DURATION_BUCKET_SQL } from '../../src/platform/db/migrations/0008_insights.ts'
import type { InteractionsTable } from '../../src/platform/db/tables/interactions.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const BUCKET = DURATION_BUCKET_SQL.replaceAll('{ms}', '(duration_seconds * 1000.0)')

let t: TestServer
let second: DatabaseHandle
let users: string[] = []

beforeAll(async () => {
  if (!ON_POSTGRES) return
  t = await startTestServer({ now: '2026-11-20T12:00:00.000Z' })
  const { adminToken } = await t.provision()
  const a = await t.createUser(adminToken, { email: 'a@example.com' })
  const b = await t.createUser(adminToken, { email: 'b@example.com' })
  users = await Promise.all([adminToken, a.token, b.token].map(async (token) => (await t.request('GET', '/api/auth/me', { token })).body.id as string))
  second = openDatabase(t.server.database.target)
})
afterAll(async () => {
  if (!ON_POSTGRES) return
  await second.close()
  await t.close()
})

let serial = 0
/** A row on one of 3 days, of 3 users, 4 titles and 3 actions: every batch touches most rollup keys. */
function row(i: number): InteractionsTable {
  return {
    id: `two-writers-${String(serial++).padStart(6, '0')}`,
    user_id: users[i % 3]!,
    kind: i % 5 === 0 ? 'api_action' : 'mcp_tool',
    api_title: `title ${i % 4}`,
    action: `action ${(i >> 2) % 3}`,
    is_error: i % 7 === 0 ? 1 : 0,
    duration_seconds: i % 11 === 0 ? null : (i % 97) / 10,
    conversation_id: null,
    client_source: null,
    user_input: null,
    arguments: null,
    result: null,
    created_at: `2026-11-1${i % 3}T08:00:00.000Z`,
  }
}

test.skipIf(!ON_POSTGRES)('batches of two instances on the same rollup rows: every row stored and counted once, no deadlock', async () => {
  const writers = [new GroupCommitInserts(t.server.database.db), new GroupCommitInserts(second.db)]
  // Each writer sends its rows in its own order (one forwards, one backwards), 40 rounds of 60 rows each.
  const sent: Promise<void>[] = []
  for (let round = 0; round < 40; round++)
    for (const [w, writer] of writers.entries()) for (let k = 0; k < 60; k++) sent.push(writer.insert(row(w === 0 ? k + round : 1000 - k - round)))
  const results = await Promise.allSettled(sent)
  expect(results.filter((result) => result.status === 'rejected')).toEqual([])
  const db = t.server.database.db
  // Each writer's 2,400 rows were queued before its first batch: 10 batches of at most 256, each one transaction (one
  // xmin). A batch aborted by a deadlock would have been committed again row by row, a transaction per row.
  const transactions = await sql<{ n: string }>`select count(distinct xmin::text) as n from interactions where id like 'two-writers-%'`.execute(db)
  expect(Number(transactions.rows[0]!.n)).toBe(20)
  const count = Number((await sql<{ n: string }>`select count(*) as n from interactions where id like 'two-writers-%'`.execute(db)).rows[0]!.n)
  expect(count).toBe(4800)
  // Two rollups kept by the batch statement and one by the per-row trigger, against the rows.
  for (const [stored, fromRows] of [
    [
      sql`select day, kind, api_title, action, n, errors from interaction_daily_tools order by 1, 2, 3, 4`,
      sql`select substr(created_at, 1, 10) as day, kind, api_title, action, count(*) as n, sum(is_error) as errors from interactions group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
    ],
    [
      sql`select user_id, day, bucket, n from interaction_user_daily_durations order by 1, 2, 3`,
      sql`select user_id, day, bucket, count(*) as n from (select user_id, substr(created_at, 1, 10) as day, ${sql.raw(BUCKET)} as bucket from interactions where duration_seconds is not null) b group by 1, 2, 3 order by 1, 2, 3`,
    ],
    [
      sql`select user_id, day, api_title, kind, n from interaction_user_daily_usage where n <> 0 order by 1, 2, 3, 4`,
      sql`select user_id, substr(created_at, 1, 10) as day, api_title, kind, count(*) as n from interactions group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
    ],
  ] as const)
    expect((await stored.execute(db)).rows).toEqual((await fromRows.execute(db)).rows)
})
