// The per-user rollup (issue 14, item 8): member summaries read it, it is filled from existing rows by its migration, and
// it stays equal to a GROUP BY over the rows through inserts and retention deletes.
import { afterEach, describe, expect, test } from 'bun:test'
import type { Kysely } from 'kysely'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import { MIGRATIONS } from '../../src/platform/db/migrations/index.ts'
import { fillDailyUsageByMonth } from '../../src/platform/db/migrations/0030_daily_usage_by_month.ts'
import { explain } from '../../src/platform/db/query-plan.ts'
import { foldRollups } from '../../src/platform/db/rollup-folder.ts'
import { dropTestDatabase, emptyTestDatabase, ON_POSTGRES, testSql } from '../helpers/database.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const DAY = 86_400_000
const rollupQuery = 'SELECT user_id, day, api_title, kind, n FROM interaction_user_daily_usage WHERE n > 0 ORDER BY 1, 2, 3, 4'
const naiveQuery = 'SELECT user_id, substr(created_at, 1, 10) AS day, api_title, kind, count(*) AS n FROM interactions GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4'

let t: TestServer | undefined
let dir: string | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
  if (dir) {
    rmSync(dir, { recursive: true, force: true })
    await dropTestDatabase(dir)
  }
  dir = undefined
})

describe('per-user rollup', () => {
  test('its migration counts the rows stored before it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentbox-rollup-'))
    const handle = openDatabase(await emptyTestDatabase(dir))
    const sql = testSql(handle.db, handle.kind)
    // Every migration before this one: the database as an instance that had not yet applied it.
    const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '0006_interaction_user_rollup'))
    await migrateToLatest(handle, join(dir, 'backups'), 0, before)
    const now = '2026-01-01T00:00:00.000Z'
    for (const id of ['u1', 'u2'])
      await sql.run(
        `INSERT INTO users (id, kind, email, name, role, password_hash, active, session_version, created_at, updated_at) VALUES (?, 'person', ?, 'n', 'member', NULL, 1, 0, ?, ?)`,
        id,
        `${id}@example.com`,
        now,
        now,
      )
    const insert = (...values: string[]) =>
      sql.run(`INSERT INTO interactions (id, user_id, kind, api_title, action, is_error, created_at) VALUES (?, ?, ?, ?, 'a', 0, ?)`, ...values)
    for (let i = 0; i < 300; i++)
      await insert(
        `i${i}`,
        i % 3 ? 'u1' : 'u2',
        i % 4 ? 'mcp_tool' : 'api_action',
        `title-${i % 7}`,
        new Date(Date.parse(now) + (i % 11) * DAY + i * 1000).toISOString(),
      )
    await migrateToLatest(handle, join(dir, 'backups'), 0)
    const rollup = await sql.all(rollupQuery)
    expect(rollup.length).toBeGreaterThan(20)
    expect(rollup).toEqual(await sql.all(naiveQuery))
    await handle.close()
  })

  test('a member summary equals a GROUP BY of their rows, after inserts and deletes, and reads no interaction rows', async () => {
    t = await startTestServer({ now: '2026-03-10T12:00:00Z' })
    const { adminToken } = await t.provision()
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    for (let i = 0; i < 60; i++) {
      t.clock.set(Date.parse('2026-03-01T00:00:00Z') + (i % 9) * DAY + i * 60_000)
      const token = i % 4 ? member.token : adminToken
      expect(
        (
          await t.request('POST', '/api/interaction/record-mcp-tool', {
            token,
            body: { tool_name: 'x', mcp_server_name: `srv-${i % 5}`, duration_seconds: 1, result: {} },
          })
        ).status,
      ).toBe(200)
    }
    t.clock.set(Date.parse('2026-03-10T12:00:00Z'))
    // Records are acknowledged once committed. Delete one day as retention would: the delete trigger keeps the rollup exact.
    await t.sql.run("DELETE FROM interactions WHERE created_at < '2026-03-02T00:00:00.000Z'")
    // Read as every reader of a rollup reads it: after the rows recorded so far are counted (SQLite counts them later).
    await foldRollups(t.server.database.db)
    expect(await t.sql.all(rollupQuery)).toEqual(await t.sql.all(naiveQuery))

    const summary = await t.request('POST', '/api/interaction/summary', { token: member.token, body: { start_date: '2026-03-01', end_date: '2026-03-10' } })
    const raw = (await t.sql.all(
      `SELECT substr(created_at, 1, 10) AS d, api_title, count(*) AS n FROM interactions WHERE user_id = ? GROUP BY 1, 2`,
      member.id,
    )) as { d: string; api_title: string; n: number }[]
    const expected: Record<string, Record<string, number>> = {}
    for (let d = 1; d <= 10; d++) expected[`2026-03-${String(d).padStart(2, '0')}`] = {}
    for (const row of raw) expected[row.d]![row.api_title] = row.n
    expect(summary.body).toEqual(expected)
    expect(raw.length).toBeGreaterThan(10)

    const plan = (
      await explain(
        t.server.database,
        "SELECT day, api_title, sum(n) FROM interaction_user_daily_usage WHERE user_id = 'x' AND day >= '2026-01-01' AND day <= '2026-12-31' GROUP BY day, api_title",
      )
    ).join('\n')
    expect(plan).toMatch(/interaction_user_daily_usage/)
    expect(plan).not.toMatch(/\binteractions\b/)
  })

  test('titles read in code-point order within a bucket, however the chunks met them (same data, same bytes)', async () => {
    t = await startTestServer({ now: '2026-03-10T12:00:00Z' })
    const { adminToken } = await t.provision()
    // One ISO week spans two chunks of days: "zeta" appears in the first chunk, "alpha" only in the second.
    for (const [day, server] of [
      ['2026-03-02', 'zeta'],
      ['2026-03-07', 'alpha'],
      ['2026-03-08', 'mid'],
    ] as const) {
      t.clock.set(Date.parse(`${day}T10:00:00Z`))
      expect(
        (await t.request('POST', '/api/interaction/record-mcp-tool', { token: adminToken, body: { tool_name: 'x', mcp_server_name: server } })).status,
      ).toBe(200)
    }
    t.clock.set(Date.parse('2026-03-10T12:00:00Z'))
    const weekly = await t.request('POST', '/api/interaction/summary', {
      token: adminToken,
      body: { time_frame: 'weekly', start_date: '2026-03-02', end_date: '2026-03-08' },
    })
    expect(Object.keys(weekly.body['2026-W10'])).toEqual(['alpha', 'mid', 'zeta'])
  })

  test('daily and weekly, organisation and member: titles in the same code-point order (beyond U+FFFF after U+FFFD)', async () => {
    t = await startTestServer({ now: '2026-03-10T12:00:00Z' })
    const { adminToken } = await t.provision()
    const titles = ['😀 smile', 'alpha', '\uFFFD end', 'Zulu', 'Émile']
    t.clock.set(Date.parse('2026-03-04T10:00:00Z'))
    for (const server of titles)
      for (let i = 0; i < 2; i++)
        expect(
          (await t.request('POST', '/api/interaction/record-mcp-tool', { token: adminToken, body: { tool_name: `x${i}`, mcp_server_name: server } })).status,
        ).toBe(200)
    t.clock.set(Date.parse('2026-03-10T12:00:00Z'))
    const expected = ['Zulu', 'alpha', 'Émile', '\uFFFD end', '😀 smile']
    for (const body of [{}, { user_id: (await t.request('GET', '/api/auth/me', { token: adminToken })).body.id }]) {
      const daily = await t.request('POST', '/api/interaction/summary', {
        token: adminToken,
        body: { ...body, start_date: '2026-03-02', end_date: '2026-03-08' },
      })
      expect(Object.entries(daily.body['2026-03-04'])).toEqual(expected.map((title) => [title, 2]))
      const weekly = await t.request('POST', '/api/interaction/summary', {
        token: adminToken,
        body: { ...body, time_frame: 'weekly', start_date: '2026-03-02', end_date: '2026-03-08' },
      })
      expect(Object.keys(weekly.body['2026-W10'])).toEqual(expected)
    }
  })

  test('a long summary hands the event loop back between chunks instead of answering in one piece', async () => {
    t = await startTestServer({ now: '2026-03-10T12:00:00Z' })
    const { adminToken } = await t.provision()
    // 800 days of 40 titles in the organisation's rollup: tens of milliseconds of work, so it must come in pieces.
    const rows: { day: string; api_title: string; n: number }[] = []
    for (let day = 0; day < 800; day++)
      for (let title = 0; title < 40; title++)
        rows.push({ day: new Date(Date.parse('2024-01-01') + day * 86_400_000).toISOString().slice(0, 10), api_title: `t${title}`, n: 1 })
    await t.server.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 1000)
        await trx
          .insertInto('interaction_daily_usage')
          .values(rows.slice(i, i + 1000))
          .execute()
      // PostgreSQL keeps the same days a row per month too (1,080 rows here: more than it reads at once, so it reads
      // the days in chunks as SQLite does).
      if (ON_POSTGRES) await fillDailyUsageByMonth(trx as unknown as Kysely<unknown>)
    })
    // Counts the turns of the event loop other work got while the summary ran.
    let turns = 0
    let running = true
    const probe = () => {
      turns++
      if (running) setImmediate(probe)
    }
    setImmediate(probe)
    const summary = await t.request('POST', '/api/interaction/summary', { token: adminToken, body: { start_date: '2024-01-01', end_date: '2026-03-10' } })
    running = false
    expect(Object.keys(summary.body)).toHaveLength(800)
    // Every day whole and counted once, wherever the chunks were cut (on PostgreSQL the first statement, the whole
    // range at once, holds more rows than a chunk and is dropped before the chunks are read).
    for (const titles of Object.values(summary.body as Record<string, Record<string, number>>)) {
      expect(Object.keys(titles)).toHaveLength(40)
      expect(Object.values(titles).every((n) => n === 1)).toBe(true)
    }
    expect(turns).toBeGreaterThanOrEqual(3)
  })
})
