// `agentbox migrate-to-postgres`: a real SQLite instance with data in every kind of table, copied by the command (a real
// process) into an empty PostgreSQL database, then served from there: the same answers, sealed credentials still open.
// The copy needs a PostgreSQL server (the suite's run on PostgreSQL, AGENTBOX_TEST_DATABASE_URL); the refusals that
// need none run on both.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { petstore, uploadSpec } from '../applications/helpers.ts'
import { dropTestDatabase, emptyTestDatabase, TEST_DATABASE_URL } from '../helpers/database.ts'
import { startWithPeople } from '../helpers/people.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import type { DatabaseTarget } from '../../src/platform/db/target.ts'
import { DAY_COLUMNS } from '../../src/platform/db/migrations/0030_daily_usage_by_month.ts'

const ROOT = join(import.meta.dir, '..', '..')
const NOW = '2026-06-01T09:00:00.000Z'
const tmp = mkdtempSync(join(tmpdir(), 'agentbox-migrate-pg-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const migrate = (...args: string[]) => {
  const result = Bun.spawnSync([process.execPath, 'src/main.ts', 'migrate-to-postgres', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: tmp },
  })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

/** The URL with a password the test server never asks for (trust authentication): it must never be printed. */
const withPassword = (url: string) => {
  const parsed = new URL(url)
  parsed.password = 'pw-never-printed-4711'
  return parsed.toString()
}

const postgresUrl = (target: DatabaseTarget) => {
  if (target.kind !== 'postgres') throw new Error('a PostgreSQL database was expected')
  return target.url
}

describe('refusals', () => {
  test('a missing data directory or one without a database is exit 1 with the reason; missing or bad flags are exit 2', () => {
    const missing = migrate('--from', join(tmp, 'nowhere'), '--to', 'postgres://agentbox@127.0.0.1:1/agentbox')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`no data directory at ${join(tmp, 'nowhere')}`)
    const empty = join(tmp, 'empty-dir')
    mkdirSync(empty)
    const noDatabase = migrate('--from', empty, '--to', 'postgres://agentbox@127.0.0.1:1/agentbox')
    expect(noDatabase.code).toBe(1)
    expect(noDatabase.stderr).toContain(`no agentbox database in ${empty}`)

    const notPostgres = migrate('--from', empty, '--to', 'mysql://root:hunter2-secret@db/agentbox')
    expect(notPostgres.code).toBe(2)
    expect(notPostgres.stderr).toContain('--to must be a PostgreSQL URL')
    expect(notPostgres.stderr).not.toContain('hunter2-secret')
    expect(migrate('--from', empty).stderr).toContain('needs the PostgreSQL database to copy into: --to')
    expect(migrate('--to', 'postgres://h/db').stderr).toContain('needs the data directory to copy: --from')
    expect(migrate('--from', empty).code).toBe(2)
  }, 60_000)

  test('an unreachable server is exit 1 naming it with the password masked; a running server on the data dir is refused', async () => {
    const t = await startTestServer({ env: { AGENTBOX_DATABASE_URL: '' } })
    try {
      await t.provision()
      const busy = migrate('--from', t.dataDir, '--to', 'postgres://agentbox:pw-never-printed-4711@127.0.0.1:1/agentbox')
      expect(busy.code).toBe(1)
      expect(busy.stderr).toContain(`a server is running on ${t.dataDir}; stop it first`)
      await t.server.stop()
      const unreachable = migrate('--from', t.dataDir, '--to', 'postgres://agentbox:pw-never-printed-4711@127.0.0.1:1/agentbox')
      expect(unreachable.code).toBe(1)
      expect(unreachable.stderr).toContain('cannot reach PostgreSQL at postgres://agentbox:***@127.0.0.1:1/agentbox')
      expect(unreachable.stdout + unreachable.stderr).not.toContain('pw-never-printed-4711')
    } finally {
      await t.close()
    }
  })
})

/** Every table the instance below fills; the copy must hold the same rows in each (and in every other table: none). */
const FILLED = [
  'instance',
  'users',
  'api_tokens',
  'licenses',
  'user_settings',
  'context_types',
  'interactions',
  'interaction_daily_usage',
  'interaction_user_daily_usage',
  'interaction_daily_kinds',
  'interaction_daily_tools',
  'interaction_monthly_tools',
  'interaction_user_tools',
  'interaction_daily_durations',
  'agents',
  'agent_drafts',
  'agent_versions',
  'agent_members',
  'tasks',
  'task_runs',
  'threads',
  'thread_messages',
  'workflow_runs',
  'workflow_steps',
  'workflow_checkpoints',
  'audit_log',
  'applications',
  'application_operations',
  'application_documents',
  'sealed_secrets',
  'marketplace_entries',
  'mcp_client_names',
]

describe.skipIf(!TEST_DATABASE_URL)('an instance copied onto PostgreSQL', () => {
  const dataDir = join(tmp, 'instance')
  let source: TestServer
  let target: TestServer | null = null
  let url = ''
  let tokens: { admin: string; owner: string; viewer: string }
  /** What the SQLite instance answered, path by path and caller. */
  const answers: { path: string; as: keyof typeof tokens; status: number; body: unknown }[] = []
  const summaries: { time_frame: string; body: unknown }[] = []
  const reads: [string, keyof typeof tokens][] = [
    ['/api/auth/me', 'owner'],
    ['/api/users', 'admin'],
    ['/api/agents', 'owner'],
    ['/api/agents/expense-approval', 'owner'],
    ['/api/agents/expense-approval/skills', 'owner'],
    ['/api/applications', 'owner'],
    ['/api/applications/mine', 'owner'],
    ['/api/applications/mine/credentials', 'owner'],
    ['/api/applications/shared/credentials', 'viewer'],
    ['/api/marketplace', 'owner'],
    ['/api/workflows/expense-approval/runs', 'owner'],
    ['/api/interactions?limit=100', 'admin'],
    ['/api/insights?range=last_30_days', 'admin'],
    ['/api/tasks', 'owner'],
    ['/api/threads', 'owner'],
    ['/api/context-type', 'admin'],
    ['/api/user/settings', 'owner'],
    ['/api/audit', 'admin'],
    ['/api/org/settings', 'admin'],
    ['/api/auth/tokens', 'admin'],
  ]

  beforeAll(async () => {
    mkdirSync(dataDir)
    const people = await startWithPeople({ dataDir, now: NOW, env: { AGENTBOX_DATABASE_URL: '' } })
    source = people.t
    tokens = { admin: people.admin, owner: people.owner.token, viewer: people.viewer.token }
    const ok = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await source.request(method, path, { token, body })
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
      return res.body
    }
    // Agents, versions, members, an application with its document and operations, workflows: a marketplace sample.
    await ok('POST', '/api/marketplace/builtin-expense-approval/install', tokens.owner)
    await ok('POST', '/api/marketplace', tokens.admin, { agent_name: 'expense-approval' })
    const run = (input: unknown) => ok('POST', '/api/workflows/expense-approval/review-expense/run', tokens.owner, { input })
    const waiting = await run({ report_id: 'exp-1', employee: 'Dana', amount: 1280.5, currency: 'EUR', purpose: 'Zurich workshop' })
    expect(waiting.status).toBe('waiting_human')
    await run({ report_id: 'exp-2', amount: 86.2 })
    await ok('POST', '/api/applications/expenses-api/operations/getExpenseReport/execute', tokens.owner, { arguments: { report_id: 'exp-1' }, dry_run: true })
    // Credentials sealed per user and for the organisation.
    expect((await uploadSpec(source, tokens.admin, petstore(), { api_name: 'mine', global_spec: 'true' })).status).toBe(201)
    expect((await uploadSpec(source, tokens.admin, petstore(), { api_name: 'shared', global_spec: 'true', shared_security_info: 'true' })).status).toBe(201)
    await ok('PUT', '/api/applications/mine/credentials', tokens.owner, { scheme: 'api_key', api_key: 'owner-secret-key-1' })
    await ok('PUT', '/api/applications/mine/credentials', tokens.owner, { scheme: 'basic', username: 'ann', password: 'pw-secret-2' })
    await ok('PUT', '/api/applications/shared/credentials', tokens.admin, { scheme: 'oauth', token: 'org-bearer-3' })
    // Interactions (and their rollups), with a U+0000 and a 64-bit-looking number in what is kept.
    for (let i = 0; i < 12; i++)
      await ok('POST', '/api/interaction/record-mcp-tool', i % 2 ? tokens.owner : tokens.viewer, {
        mcp_server_name: 'Jira',
        tool_name: `search_${i % 3}`,
        arguments: { q: `bug ${i}`, big: 9007199254740993n.toString() },
        user_input: `find\u0000it ${i}`,
        duration_seconds: 0.25 * i,
      })
    // A legacy MCP client's initialize: the name its later calls are recorded with (kept as a hash of the caller).
    const initialize = await source.request('POST', '/agent/expense-approval/mcp', {
      token: tokens.owner,
      rawBody: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'windsurf', version: '1' } },
      }),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    })
    expect(initialize.status).toBe(200)
    await ok('POST', '/api/context-type', tokens.admin, { name: 'Invoice', summary: 'A supplier invoice', description: 'PDF or e-mail' })
    await ok('POST', '/api/user/settings/update', tokens.owner, { dark_mode: 'dark' })
    // A task run through the mock model: the run, its thread and messages.
    const task = await ok('POST', '/api/task', tokens.owner, { name: 'Morning brief', prompt: 'Summarise my day' })
    await ok('POST', `/api/task/${task.id}/run`, tokens.owner)
    await source.server.modules.tasks.scheduler.idle()

    for (const [path, as] of reads) {
      const res = await source.request('GET', path, { token: tokens[as] })
      answers.push({ path, as, status: res.status, body: res.body })
    }
    // The organisation's summaries (PostgreSQL reads them from its own rollup, which the copy fills).
    for (const time_frame of ['daily', 'weekly', 'monthly'])
      summaries.push({ time_frame, body: await ok('POST', '/api/interaction/summary', tokens.admin, { time_frame }) })
    await source.server.stop()
    url = postgresUrl(await emptyTestDatabase(join(tmp, 'target-key')))
  }, 60_000)

  afterAll(async () => {
    await target?.close()
    await dropTestDatabase(join(tmp, 'target-key'))
  })

  test('the SQLite instance answered every read, and holds rows in every kind of table', async () => {
    expect(answers.filter((a) => a.status !== 200)).toEqual([])
    const file = new Database(join(dataDir, 'agentbox.db'), { readonly: true })
    try {
      const empty = FILLED.filter((table) => (file.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n === 0)
      expect(empty).toEqual([])
    } finally {
      file.close()
    }
  })

  test('the command copies every table, says each matched, and prints no password', () => {
    const result = migrate('--from', dataDir, '--to', withPassword(url))
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    for (const table of FILLED) expect(result.stdout).toMatch(new RegExp(`^  ${table}: [1-9]\\d* rows, count and checksum match$`, 'm'))
    expect(result.stdout).toMatch(/copied \d+ rows in \d+ tables in [\d.]+ s; every table verified/)
    expect(result.stdout).toContain(`they open only with the keys in ${join(dataDir, 'secrets')}`)
    expect(result.stdout).toContain('postgres://postgres:***@')
    expect(result.stdout + result.stderr).not.toContain('pw-never-printed-4711')
  })

  test('every table holds the same rows in PostgreSQL, exactly (U+0000 and 64-bit integers included)', async () => {
    const file = new Database(join(dataDir, 'agentbox.db'), { readonly: true, safeIntegers: true })
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const tables =
        // Not the rollups' watermark: SQLite's own (PostgreSQL counts each batch as it inserts it).
        (
          file
            .query(
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' AND name <> 'interaction_rollup_watermark'",
            )
            .all() as {
            name: string
          }[]
        ).map((r) => r.name)
      expect(tables.length).toBeGreaterThan(40)
      for (const table of tables) {
        const sqliteCount = Number((file.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: bigint }).n)
        const pgCount = Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n)
        expect({ table, rows: pgCount }).toEqual({ table, rows: sqliteCount })
      }
      // PostgreSQL's own rollup (the daily usage a row per month) has no SQLite source: filled from the copied one.
      const days = DAY_COLUMNS.join(' + ')
      expect(Number((await client.query(`SELECT sum(${days}) AS n FROM interaction_daily_usage_by_month`)).rows[0].n)).toBe(12)
      const kept = (await client.query(`SELECT count(*) AS n FROM interactions WHERE arguments LIKE '%9007199254740993%'`)).rows[0]
      expect(Number(kept.n)).toBe(12)
      // U+0000 is stored escaped on PostgreSQL (its text cannot hold it); the server reads it back as it was.
      const escaped = (await client.query(`SELECT count(*) AS n FROM interactions WHERE user_input LIKE 'find' || chr(65535) || '0it %'`)).rows[0]
      expect(Number(escaped.n)).toBe(12)
    } finally {
      file.close()
      await client.end()
    }
  })

  test('a server on the copy answers what the SQLite instance answered, to the same tokens; sealed credentials open', async () => {
    target = await startTestServer({ dataDir, now: NOW, env: { AGENTBOX_DATABASE_URL: url } })
    expect(JSON.stringify((await target.request('GET', '/api/health', { token: tokens.admin })).body)).toContain('"kind":"postgres"')
    for (const { path, as, status, body } of answers) {
      const res = await target.request('GET', path, { token: tokens[as] })
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status, body })
    }
    for (const { time_frame, body } of summaries) {
      const res = await target.request('POST', '/api/interaction/summary', { token: tokens.admin, body: { time_frame } })
      expect({ time_frame, body: res.body }).toEqual({ time_frame, body })
    }
    const credentials = (await target.request('GET', '/api/applications/mine/credentials', { token: tokens.owner })).body
    expect(credentials.filter((c: { connected: boolean }) => c.connected).map((c: { scheme: string }) => c.scheme)).toEqual(['api_key', 'basic'])
    // The waiting run resumes on PostgreSQL from the checkpoint the SQLite instance wrote.
    const runs = (await target.request('GET', '/api/workflows/expense-approval/runs', { token: tokens.owner })).body
    const waiting = (runs.items ?? runs).find((r: { status: string }) => r.status === 'waiting_human')
    const resumed = await target.request('POST', `/api/workflows/expense-approval/runs/${waiting.run_id ?? waiting.id}/resume`, {
      token: tokens.owner,
      body: { decision: 'approve' },
    })
    expect(resumed.body).toMatchObject({ status: 'succeeded', result: { report_id: 'exp-1', decision: 'approved' } })
  })

  test('a second copy into the now non-empty database is refused, and leaves it as it was', async () => {
    const before = await target!.sql.count('interactions')
    await target!.close()
    target = null
    const again = migrate('--from', dataDir, '--to', url)
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/the target database is not empty \(table \w+ holds rows\)/)
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      expect(Number((await client.query('SELECT count(*) AS n FROM interactions')).rows[0].n)).toBe(before)
    } finally {
      await client.end()
    }
  })

  test('a database holding tables agentbox did not make is refused before anything is written', async () => {
    const other = postgresUrl(await emptyTestDatabase(join(tmp, 'other-key')))
    const client = new pg.Client({ connectionString: other })
    await client.connect()
    try {
      await client.query('CREATE TABLE customers (id int)')
      const refused = migrate('--from', dataDir, '--to', other)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('the target database is not empty (it holds tables, e.g. customers, that agentbox did not make)')
      const tables = (await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)).rows.map((r) => r.tablename)
      expect(tables).toEqual(['customers'])
    } finally {
      await client.end()
      await dropTestDatabase(join(tmp, 'other-key'))
    }
  })
})
