// SQLite counts recorded interactions into the rollups after their commit, from a watermark (platform/db/rollup-folder.ts):
// every answer still counts every row recorded before it was asked, retention stays exact whether a deleted row was
// counted yet or not, a restart counts what the last run left, and a fold runs in slices. The servers here wait an
// hour before a fold of their own, so rows stay uncounted until something reads. PostgreSQL counts each batch as it
// inserts it: the tests that need uncounted rows are SQLite's; the exactness ones run on both.
import { Database as Sqlite } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { sql } from 'kysely'
import { pruneInteractions } from '../../src/modules/interactions/retention.ts'
import { foldRollups, foldSqliteFile } from '../../src/platform/db/rollup-folder.ts'
import { compareRollup, ROLLUPS } from '../helpers/rollups.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const DAY = 86_400_000
const NOW = '2026-06-15T12:00:00.000Z'
const HOUR = 3_600_000
const ON_SQLITE = !process.env.AGENTBOX_TEST_DATABASE_URL

let t: TestServer | undefined
let dir: string | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

/** SQLite: the watermark and the largest rowid of the interactions. */
async function watermark(server: TestServer): Promise<{ counted: number; largest: number }> {
  return (await server.sql.get(
    'SELECT (SELECT last_rowid FROM interaction_rollup_watermark) AS counted, (SELECT coalesce(max(rowid), 0) FROM interactions) AS largest',
  )) as { counted: number; largest: number }
}

async function expectRollupsExact(server: TestServer): Promise<void> {
  for (const rollup of ROLLUPS) {
    const { stored, fromRows } = await compareRollup(server, rollup)
    expect({ table: rollup.table, rows: stored }).toEqual({ table: rollup.table, rows: fromRows })
  }
}

async function record(server: TestServer, token: string, i: number) {
  const res = await server.request('POST', '/api/interaction/record-mcp-tool', {
    token,
    body: { tool_name: `tool-${i % 3}`, mcp_server_name: `srv-${i % 4}`, duration_seconds: (i % 7) / 3, is_error: i % 5 === 0, result: {} },
  })
  expect(res.status).toBe(200)
}

describe('rows recorded and not yet counted', () => {
  test('are counted by the next summary and the next insights answer', async () => {
    t = await startTestServer({ now: NOW, rollupFoldDelayMs: HOUR })
    const { adminToken } = await t.provision()
    for (let i = 0; i < 24; i++) await record(t, adminToken, i)
    if (ON_SQLITE) {
      const before = await watermark(t)
      expect(before.largest - before.counted).toBe(24)
    }
    const summary = await t.request('POST', '/api/interaction/summary', { token: adminToken, body: { start_date: '2026-06-15', end_date: NOW } })
    expect(summary.status).toBe(200)
    expect(summary.body).toEqual({ '2026-06-15': { 'srv-0': 6, 'srv-1': 6, 'srv-2': 6, 'srv-3': 6 } })

    for (let i = 0; i < 7; i++) await record(t, adminToken, i)
    if (ON_SQLITE) {
      const before = await watermark(t)
      expect(before.largest - before.counted).toBe(7)
    }
    const insights = await t.request('GET', '/api/insights?from=2026-06-15&to=2026-06-15', { token: adminToken })
    expect(insights.status).toBe(200)
    expect(insights.body.interactions_per_day).toEqual([{ date: '2026-06-15', mcp_tool: 31, api_action: 0, total: 31 }])
    if (ON_SQLITE) {
      const after = await watermark(t)
      expect(after.counted).toBe(after.largest)
    }
  })
})

describe('retention', () => {
  test('deleting counted and uncounted rows leaves every rollup equal to a GROUP BY of the rows, and later rows are counted', async () => {
    t = await startTestServer({ now: NOW, rollupFoldDelayMs: HOUR })
    const { adminToken } = await t.provision()
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    const start = Date.parse(NOW) - 9 * DAY
    // Ten days; a summary after the fifth counts those (on SQLite), the rest stays uncounted.
    for (let day = 0; day < 10; day++) {
      t.clock.set(start + day * DAY)
      for (let i = 0; i < 12; i++) await record(t, i % 3 ? member.token : adminToken, day + i)
      if (day === 4) expect((await t.request('POST', '/api/interaction/summary', { token: adminToken, body: {} })).status).toBe(200)
    }
    t.clock.set(Date.parse(NOW))
    if (ON_SQLITE) {
      const { counted, largest } = await watermark(t)
      expect(counted).toBeGreaterThan(0)
      expect(largest - counted).toBe(60)
    }
    // Keeps the last three days: deletes the five counted days and two uncounted ones.
    const { deleted } = await pruneInteractions(t.server.database.db, t.clock, 2, { batchSize: 7 })
    expect(deleted).toBe(84)
    await expectRollupsExact(t)

    // Every row deleted, the newest too: SQLite gives the next row the rowid of an empty table's first, which must still
    // be counted (the watermark came down with the rows).
    for (let i = 0; i < 5; i++) await record(t, adminToken, i)
    t.clock.set(Date.parse(NOW) + 30 * DAY)
    expect((await pruneInteractions(t.server.database.db, t.clock, 2)).deleted).toBe(41)
    expect(await t.sql.get('SELECT count(*) AS n FROM interactions')).toEqual({ n: 0 })
    // A month on, the sign-in has expired: recorded as the transports record, for the member.
    const service = t.server.modules.interactions.service
    for (let i = 0; i < 9; i++)
      await service.record(member.id, { kind: 'api_action', apiTitle: `app-${i % 2}`, action: 'run', isError: false, durationSeconds: i })
    if (ON_SQLITE) expect(await watermark(t)).toEqual({ counted: 0, largest: 9 })
    await expectRollupsExact(t)
    expect(await t.sql.get('SELECT sum(n) AS n FROM interaction_daily_kinds')).toEqual({ n: 9 })
  })
})

describe.skipIf(!ON_SQLITE)('a restart', () => {
  test('counts at shutdown what was recorded, and at start-up what a crash left uncounted', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentbox-fold-'))
    t = await startTestServer({ now: NOW, dataDir: dir, rollupFoldDelayMs: HOUR })
    const { adminToken } = await t.provision()
    for (let i = 0; i < 15; i++) await record(t, adminToken, i)
    expect((await watermark(t)).largest - (await watermark(t)).counted).toBe(15)
    await t.close()
    t = undefined
    // As a crash between a batch's commit and its fold leaves the file: rows above the watermark.
    const file = new Sqlite(join(dir, 'agentbox.db'))
    expect(file.query('SELECT (SELECT last_rowid FROM interaction_rollup_watermark) = (SELECT max(rowid) FROM interactions) AS folded').get()).toEqual({
      folded: 1,
    })
    file.run(
      `INSERT INTO interactions (id, user_id, kind, api_title, action, is_error, duration_seconds, created_at)
       SELECT 'again-' || id, user_id, kind, api_title || '-again', action, is_error, duration_seconds, created_at FROM interactions`,
    )
    file.close()
    t = await startTestServer({ now: NOW, dataDir: dir, rollupFoldDelayMs: HOUR })
    // Counted before anything read a rollup.
    const { counted, largest } = await watermark(t)
    expect(counted).toBe(largest)
    await expectRollupsExact(t)
    const logged = t.log.lines.find((line) => line.msg === 'interactions counted into their rollups at start-up')
    expect(logged).toMatchObject({ rows: 15 })
  })
})

describe.skipIf(!ON_SQLITE)('a fold', () => {
  test('of a file no server has open (before migrate-to-postgres copies the rollups) counts what was left', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentbox-fold-'))
    t = await startTestServer({ now: NOW, dataDir: dir, rollupFoldDelayMs: HOUR })
    const { adminToken } = await t.provision()
    for (let i = 0; i < 6; i++) await record(t, adminToken, i)
    await t.close()
    t = undefined
    const path = join(dir, 'agentbox.db')
    const file = new Sqlite(path)
    file.run(
      `INSERT INTO interactions (id, user_id, kind, api_title, action, is_error, created_at) SELECT 'again-' || id, user_id, kind, api_title, action, is_error, created_at FROM interactions`,
    )
    file.close()
    expect(await foldSqliteFile(path)).toEqual({ rows: 6, slices: 1 })
    const folded = new Sqlite(path, { readonly: true })
    expect(folded.query('SELECT (SELECT sum(n) FROM interaction_daily_usage) AS counted, (SELECT count(*) FROM interactions) AS n').get()).toEqual({
      counted: 12,
      n: 12,
    })
    folded.close()
  })

  test('counts a backlog in slices of at most the rows asked, one write transaction each', async () => {
    t = await startTestServer({ now: NOW, rollupFoldDelayMs: HOUR })
    const { adminToken } = await t.provision()
    const db = t.server.database.db
    await foldRollups(db)
    const me = (await t.request('GET', '/api/auth/me', { token: adminToken })).body.id as string
    const service = t.server.modules.interactions.service
    await Promise.all(
      Array.from({ length: 250 }, (_, i) =>
        service.record(me, { kind: 'mcp_tool', apiTitle: `srv-${i % 6}`, action: `tool-${i % 4}`, isError: i % 9 === 0, durationSeconds: i / 10 }),
      ),
    )
    expect(await foldRollups(db, { sliceRows: 100 })).toEqual({ rows: 250, slices: 3 })
    expect(await foldRollups(db, { sliceRows: 100 })).toEqual({ rows: 0, slices: 0 })
    await expectRollupsExact(t)
  })
})

/** Holds Kysely's connection (the writer: every write transaction waits for it) without opening a transaction. */
function holdWriter(db: TestServer['server']['database']['db']): { held: Promise<void>; release: () => Promise<void> } {
  const held = Promise.withResolvers<void>()
  const released = Promise.withResolvers<void>()
  const holding = db.connection().execute(async () => {
    held.resolve()
    await released.promise
  })
  return {
    held: held.promise,
    release: async () => {
      released.resolve()
      await holding
    },
  }
}

describe.skipIf(!ON_SQLITE)('with nothing to fold', () => {
  test('a fold takes no write transaction: it returns while another holds the writer', async () => {
    t = await startTestServer({ now: NOW, rollupFoldDelayMs: HOUR })
    const { adminToken } = await t.provision()
    for (let i = 0; i < 5; i++) await record(t, adminToken, i)
    const db = t.server.database.db
    expect(await foldRollups(db)).toEqual({ rows: 5, slices: 1 })
    const { counted, largest } = await watermark(t)
    expect(counted).toBe(largest)

    // Kysely's hold on the writer connection (every write transaction waits for it), with no transaction open.
    let writer = holdWriter(db)
    await writer.held
    try {
      // Returns while the writer is held: it neither began nor waited for a transaction. (Had it waited, it would wait
      // until the release below; a turn of the event loop is more than the fast path needs.)
      const turn = new Promise((resolve) => setImmediate(() => resolve('still waiting')))
      expect(await Promise.race([foldRollups(db), turn])).toEqual({ rows: 0, slices: 0 })
      // The insights read the rollups in their worker, so a whole answer needs nothing of the writer either.
      const insights = await t.request('GET', '/api/insights?from=2026-06-15&to=2026-06-15', { token: adminToken })
      expect(insights.status).toBe(200)
      expect(insights.body.interactions_per_day).toEqual([{ date: '2026-06-15', mcp_tool: 5, api_action: 0, total: 5 }])
    } finally {
      await writer.release()
    }

    // With a row to fold, a fold waits for the writer.
    await record(t, adminToken, 5)
    writer = holdWriter(db)
    await writer.held
    let done = false
    const folding = foldRollups(db).then((result) => {
      done = true
      return result
    })
    try {
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve))
      expect(done).toBe(false)
    } finally {
      await writer.release()
    }
    expect(await folding).toEqual({ rows: 1, slices: 1 })
    await expectRollupsExact(t)
  })

  test('is not trusted inside a transaction: a retention delete that empties the rows above the watermark and rolls back leaves them to count', async () => {
    t = await startTestServer({ now: NOW, rollupFoldDelayMs: HOUR })
    const { adminToken } = await t.provision()
    const db = t.server.database.db
    for (let i = 0; i < 4; i++) await record(t, adminToken, i)
    await foldRollups(db)
    for (let i = 0; i < 6; i++) await record(t, adminToken, i)
    const { counted } = await watermark(t)

    const writer = t.server.database.kind === 'sqlite' ? t.server.database.writer : null
    if (!writer) throw new Error('a SQLite test')
    const deleted = Promise.withResolvers<void>()
    const release = Promise.withResolvers<void>()
    const rolledBack = db
      .transaction()
      .execute(async (trx) => {
        await sql`delete from interactions where rowid > ${counted}`.execute(trx)
        deleted.resolve()
        await release.promise
        throw new Error('rolled back')
      })
      .catch((error: Error) => error.message)
    await deleted.promise
    // Seen from inside the transaction, every row looks counted: a fold that believed it would miss the six rows below.
    expect(
      writer
        .query('SELECT (SELECT last_rowid FROM interaction_rollup_watermark) AS counted, (SELECT coalesce(max(rowid), 0) FROM interactions) AS largest')
        .get(),
    ).toEqual({ counted, largest: counted })
    const folding = foldRollups(db)
    release.resolve()
    expect(await rolledBack).toBe('rolled back')
    expect(await folding).toEqual({ rows: 6, slices: 1 })
    await expectRollupsExact(t)
    const summary = await t.request('POST', '/api/interaction/summary', { token: adminToken, body: { start_date: '2026-06-15', end_date: NOW } })
    expect(summary.body).toEqual({ '2026-06-15': { 'srv-0': 3, 'srv-1': 3, 'srv-2': 2, 'srv-3': 2 } })
  })
})
