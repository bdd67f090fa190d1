// What SQLite and PostgreSQL do differently, made the same: text holding U+0000 (which PostgreSQL's text cannot store),
// integers past 32 bits, ties in list order. The API checks run on whichever database the run uses and expect the
// answer SQLite gives; the escaping of text is also checked on its own.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CompiledQuery, sql } from 'kysely'
import { decodeRows, decodeText, encodeParameters, encodeText, nameStatement } from '../../src/platform/db/postgres.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

describe('text escaping on PostgreSQL (encodeText / decodeText)', () => {
  const samples = ['', 'plain', 'a\u0000b', '\u0000', '\u0000\u0000', '\uffff', '\uffff0', 'x\uffff\u0000y', '\uffff\uffff', 'é\u0000😀', 'end\uffff']

  test('every string comes back as it went in; one without U+0000 or U+FFFF is stored as it is', () => {
    for (const text of samples) expect(decodeText(encodeText(text))).toBe(text)
    expect(encodeText('plain')).toBe('plain')
    expect(encodeText('é😀')).toBe('é😀')
  })

  test('no stored form holds U+0000, and two strings never share one', () => {
    const stored = samples.map(encodeText)
    for (const text of stored) expect(text.includes('\u0000')).toBe(false)
    expect(new Set(stored).size).toBe(samples.length)
  })

  test('parameters are escaped inside arrays too (id = any($1)), other values untouched; rows are unescaped in place', () => {
    const bytes = new Uint8Array([0, 1])
    expect(encodeParameters(['a\u0000', ['b\u0000', 'c'], 7, null, bytes])).toEqual(['a\uffff0', ['b\uffff0', 'c'], 7, null, bytes])
    expect(decodeRows([{ a: 'a\uffff0', n: 1, b: null }])).toEqual([{ a: 'a\u0000', n: 1, b: null }])
  })
})

describe('the API gives the answers SQLite gives', () => {
  let t: TestServer
  let adminToken: string
  beforeAll(async () => {
    t = await startTestServer()
    ;({ adminToken } = await t.provision())
  })
  afterAll(() => t.close())

  test('text with U+0000 and U+FFFF is stored, found and returned as sent, through the writer and the read connections', async () => {
    const description = 'nul \u0000 and \uffff0 and \uffff'
    const created = await t.request('POST', '/api/agents', { token: adminToken, body: { name: 'nul-agent', description, instructions: 'i\u0000' } })
    expect(created.status).toBe(201)
    expect(created.body.description).toBe(description)
    expect((await t.request('GET', '/api/agents/nul-agent', { token: adminToken })).body.description).toBe(description)
    // A lookup by such a value (the parameter is escaped the same way) and the raw row.
    expect(await t.sql.get('SELECT name FROM agents WHERE description = ?', description)).toEqual({ name: 'nul-agent' })
    // A user's name is read on the read connection by the authenticator (GET /api/auth/me).
    const user = await t.createUser(adminToken, { email: 'nul@example.com', name: 'Nul \u0000 Name' })
    expect((await t.request('GET', '/api/auth/me', { token: user.token })).body.name).toBe('Nul \u0000 Name')
    const recorded = await t.request('POST', '/api/interaction/record-mcp-tool', {
      token: adminToken,
      body: { tool_name: 'tool\u0000', mcp_server_name: 'server\u0000', arguments: { a: 'x\u0000' }, user_input: 'in\u0000' },
    })
    expect(recorded.status).toBe(200)
    const [item] = (await t.request('GET', `/api/interactions?api_title=${encodeURIComponent('server\u0000')}`, { token: adminToken })).body.items
    expect(item).toMatchObject({ tool_name: 'tool\u0000', mcp_server_name: 'server\u0000', arguments: { a: 'x\u0000' }, user_input: 'in\u0000' })
  })

  test('an unknown name with U+0000 in the path is a 404, not a server error', async () => {
    expect(await t.request('GET', '/api/agents/a%00b', { token: adminToken })).toMatchObject({ status: 404, body: { detail: 'Agent not found' } })
  })

  test.skipIf(!ON_POSTGRES)('integer columns are 64-bit on PostgreSQL, as on SQLite', async () => {
    const column = "table_schema = current_schema() AND table_name = 'agent_versions' AND column_name = 'version'"
    expect(await t.sql.get(`SELECT data_type FROM information_schema.columns WHERE ${column}`)).toEqual({ data_type: 'bigint' })
  })
})

describe.skipIf(!ON_POSTGRES)('named statements on PostgreSQL', () => {
  let t: TestServer
  let adminToken: string
  beforeAll(async () => {
    t = await startTestServer()
    ;({ adminToken } = await t.provision())
  })
  afterAll(() => t.close())

  /** The statements prepared on the writer connection (the writer pool holds one connection: this one). */
  const prepared = async () =>
    (await sql<{ name: string; calls: number }>`select name, generic_plans + custom_plans as calls from pg_prepared_statements`.execute(t.server.database.db))
      .rows

  test('the group commit’s batch is prepared once and reused; compiled-once reads are named too; other statements are not', async () => {
    for (let i = 0; i < 3; i++) {
      const recorded = await t.request('POST', '/api/interaction/record-mcp-tool', {
        token: adminToken,
        body: { tool_name: `tool ${i}`, mcp_server_name: 's' },
      })
      expect(recorded.status).toBe(200)
    }
    const batch = (await prepared()).find((statement) => statement.name === 'agentbox_interaction_batch')
    // One batch per request here (each waits for its commit): one preparation, three runs.
    expect(batch?.calls).toBe(3)
    // A summary's chunk is built by compileOnce: named after its text, on the writer connection it ran on.
    const before = new Set((await prepared()).map((statement) => statement.name))
    const summary = await t.request('POST', '/api/interaction/summary', { token: adminToken, body: { summary_type: 'total', time_frame: 'daily' } })
    expect(summary.status).toBe(200)
    const added = (await prepared()).map((statement) => statement.name).filter((name) => !before.has(name))
    expect(added.length).toBeGreaterThan(0)
    for (const name of added) expect(name).toMatch(/^agentbox_[0-9a-z]+$/)
    // Everything else (built per call) goes unnamed: this query itself is not among the prepared statements.
    expect((await prepared()).every((statement) => statement.name.startsWith('agentbox_'))).toBe(true)
  })

  test('a name stands for one text', () => {
    const query = CompiledQuery.raw('select 1 as one')
    expect(nameStatement(query, 'agentbox_test_name')).toBe(query)
    expect(nameStatement(query, 'agentbox_test_name')).toBe(query)
    expect(() => nameStatement(CompiledQuery.raw('select 2 as two'), 'agentbox_test_name')).toThrow('already stands for another text')
  })
})
