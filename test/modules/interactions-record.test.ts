// POST /api/interaction/record-mcp-tool (CONTRACT §6): stored for the caller, is_error from result.isError, and every refusal.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { InteractionsService } from '../../src/modules/interactions/service.ts'
import { foldRollups } from '../../src/platform/db/rollup-folder.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let member: { id: string; token: string }
beforeAll(async () => {
  t = await startTestServer({ now: '2026-11-21T10:00:00.000Z' })
  ;({ adminToken } = await t.provision())
  member = await t.createUser(adminToken, { email: 'm@example.com' })
})
afterAll(() => t.close())

const record = (body: unknown, token = member.token) => t.request('POST', '/api/interaction/record-mcp-tool', { token, body })
const row = async (id: string) => (await t.sql.get('SELECT * FROM interactions WHERE id = ?', id)) as Record<string, unknown>
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const full = {
  tool_name: 'search_issues',
  mcp_server_name: 'Jira',
  result: { content: [{ type: 'text', text: '3 issues' }], isError: false },
  user_input: 'What is open?',
  arguments: { jql: 'status = Open', limit: 3, nested: { a: [1, 2] } },
  duration_seconds: 0.42,
  conversation_id: 'thread-1',
  client_source: 'agentbox-copilot',
}

describe('recording', () => {
  test('answers 200 {id, recorded: true} and stores every field for the caller, as kind mcp_tool titled by the server', async () => {
    const res = await record(full)
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ id: expect.stringMatching(UUID7), recorded: true })
    expect(await row(res.body.id)).toEqual({
      id: res.body.id,
      user_id: member.id,
      kind: 'mcp_tool',
      api_title: 'Jira',
      action: 'search_issues',
      is_error: 0,
      duration_seconds: 0.42,
      conversation_id: 'thread-1',
      client_source: 'agentbox-copilot',
      user_input: 'What is open?',
      arguments: JSON.stringify(full.arguments),
      result: JSON.stringify(full.result),
      created_at: '2026-11-21T10:00:00.000Z',
    })
  })

  test('only tool_name and mcp_server_name are required; the rest is stored as null', async () => {
    const res = await record({ tool_name: 't', mcp_server_name: 's' })
    expect(res.status).toBe(200)
    expect(await row(res.body.id)).toMatchObject({
      is_error: 0,
      duration_seconds: null,
      conversation_id: null,
      client_source: null,
      user_input: null,
      arguments: null,
      result: null,
    })
  })

  test('is_error is true exactly when result is an object whose isError is true', async () => {
    const cases: [unknown, number][] = [
      [{ isError: true, error: 'boom', content: [] }, 1],
      [{ isError: true }, 1],
      [{ isError: false, content: [] }, 0],
      [{ isError: 'true' }, 0],
      [{ error: 'no flag' }, 0],
      [[{ type: 'text', text: 'a content array' }], 0],
      [[{ isError: true }], 0],
      ['text', 0],
      [42, 0],
      [null, 0],
    ]
    for (const [result, expected] of cases) {
      const res = await record({ tool_name: 't', mcp_server_name: 's', result })
      expect(res.status).toBe(200)
      expect({ result, is_error: (await row(res.body.id)).is_error }).toEqual({ result, is_error: expected })
      expect((await row(res.body.id)).result).toBe(JSON.stringify(result))
    }
  })

  test('admins and the org token record for themselves', async () => {
    const me = (await t.request('GET', '/api/auth/me', { token: adminToken })).body
    const res = await record({ tool_name: 't', mcp_server_name: 's' }, adminToken)
    expect((await row(res.body.id)).user_id).toBe(me.id)
  })

  test('unknown fields are ignored', async () => {
    const res = await record({ tool_name: 't', mcp_server_name: 's', is_error: true, user_id: 'someone-else', extra: { a: 1 } })
    expect(res.status).toBe(200)
    expect(await row(res.body.id)).toMatchObject({ user_id: member.id, is_error: 0 })
  })

  test('duration_seconds 0 and large values are fine; integers too', async () => {
    for (const duration_seconds of [0, 3, 86_400.5]) expect((await record({ tool_name: 't', mcp_server_name: 's', duration_seconds })).status).toBe(200)
  })

  test('rows are immutable: an UPDATE is refused by the database', async () => {
    expect(t.sql.run("UPDATE interactions SET api_title = 'x'")).rejects.toThrow('interactions are immutable')
  })
})

describe('group commit', () => {
  test('200 concurrent records are all stored, each with its own id, and the daily rollup counts every one', async () => {
    // A rollup is read as every reader reads it: after the rows recorded so far are counted in (SQLite counts later).
    const count = async (sql: string) => {
      await foldRollups(t.server.database.db)
      return ((await t.sql.get(sql)) as { n: number }).n
    }
    const rowsBefore = await count('SELECT count(*) AS n FROM interactions')
    const rollupBefore = await count('SELECT sum(n) AS n FROM interaction_daily_usage')
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => record({ tool_name: `t${i}`, mcp_server_name: `s${i % 7}` })))
    expect(answers.every((a) => a.status === 200)).toBe(true)
    const ids = answers.map((a) => a.body.id)
    expect(new Set(ids).size).toBe(200)
    expect((await count('SELECT count(*) AS n FROM interactions')) - rowsBefore).toBe(200)
    expect((await count('SELECT sum(n) AS n FROM interaction_daily_usage')) - rollupBefore).toBe(200)
    for (const [i, id] of ids.entries()) expect(await row(id)).toMatchObject({ action: `t${i}`, api_title: `s${i % 7}` })
  })

  test('a row that cannot be stored fails alone: the others of its batch are committed', async () => {
    const store = new InteractionsService(t.server.database.db, t.clock)
    const valid = { kind: 'mcp_tool' as const, apiTitle: 'batch', action: 'ok', isError: false }
    const outcomes = await Promise.allSettled([
      store.record(member.id, valid),
      store.record('no-such-user', { ...valid, action: 'orphan' }),
      store.record(member.id, valid),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY|foreign key/)
    for (const outcome of [outcomes[0], outcomes[2]] as PromiseFulfilledResult<{ id: string }>[])
      expect(await row(outcome.value.id)).toMatchObject({ api_title: 'batch', user_id: member.id })
    expect(await t.sql.get("SELECT count(*) AS n FROM interactions WHERE action = 'orphan'")).toEqual({ n: 0 })
  })
})

describe('refusals', () => {
  const invalid: [string, unknown, [string, string][]][] = [
    [
      'no tool_name nor mcp_server_name',
      { result: [] },
      [
        ['mcp_server_name', 'missing'],
        ['tool_name', 'missing'],
      ],
    ],
    ['no tool_name', { mcp_server_name: 's' }, [['tool_name', 'missing']]],
    ['no mcp_server_name', { tool_name: 't' }, [['mcp_server_name', 'missing']]],
    [
      'empty names',
      { tool_name: '', mcp_server_name: '' },
      [
        ['mcp_server_name', 'string_too_short'],
        ['tool_name', 'string_too_short'],
      ],
    ],
    [
      'names not strings',
      { tool_name: 1, mcp_server_name: ['s'] },
      [
        ['mcp_server_name', 'string_type'],
        ['tool_name', 'string_type'],
      ],
    ],
    ['a negative duration_seconds', { tool_name: 't', mcp_server_name: 's', duration_seconds: -0.001 }, [['duration_seconds', 'greater_than_equal']]],
    ['a non-numeric duration_seconds', { tool_name: 't', mcp_server_name: 's', duration_seconds: '5' }, [['duration_seconds', 'float_type']]],
    ['a null duration_seconds', { tool_name: 't', mcp_server_name: 's', duration_seconds: null }, [['duration_seconds', 'float_type']]],
    ['arguments as a string', { tool_name: 't', mcp_server_name: 's', arguments: 'q=1' }, [['arguments', 'model_type']]],
    ['arguments as an array', { tool_name: 't', mcp_server_name: 's', arguments: [1, 2] }, [['arguments', 'model_type']]],
    [
      'user_input, conversation_id, client_source not strings',
      { tool_name: 't', mcp_server_name: 's', user_input: 1, conversation_id: {}, client_source: false },
      [
        ['client_source', 'string_type'],
        ['conversation_id', 'string_type'],
        ['user_input', 'string_type'],
      ],
    ],
  ]
  for (const [name, body, expected] of invalid) {
    test(`${name}: 422 naming each field`, async () => {
      const before = ((await t.sql.get('SELECT count(*) AS n FROM interactions')) as { n: number }).n
      const res = await record(body)
      expect(res.status).toBe(422)
      expect(res.body.detail.map((d: any) => [d.loc.slice(1).join('.'), d.type]).sort()).toEqual(expected)
      expect(((await t.sql.get('SELECT count(*) AS n FROM interactions')) as { n: number }).n).toBe(before)
    })
  }

  test('a body that is not a JSON object is 422 model_type; no body is 422 missing', async () => {
    expect((await record([{ tool_name: 't', mcp_server_name: 's' }])).body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'model_type' })])
    const empty = await t.request('POST', '/api/interaction/record-mcp-tool', { token: member.token })
    expect(empty.status).toBe(422)
    expect(empty.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'missing' })])
  })

  test('a record body over 1 MiB is 413, and nothing is stored', async () => {
    const before = ((await t.sql.get('SELECT count(*) AS n FROM interactions')) as { n: number }).n
    const res = await record({ tool_name: 't', mcp_server_name: 's', result: { content: [{ type: 'text', text: 'x'.repeat(1024 * 1024) }] } })
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ detail: 'Request body too large' })
    expect(((await t.sql.get('SELECT count(*) AS n FROM interactions')) as { n: number }).n).toBe(before)
  })

  test('a result just under 1 MiB is stored whole', async () => {
    const text = 'y'.repeat(1024 * 1024 - 200)
    const res = await record({ tool_name: 't', mcp_server_name: 's', result: [{ type: 'text', text }] })
    expect(res.status).toBe(200)
    expect(JSON.parse((await row(res.body.id)).result as string)[0].text).toHaveLength(text.length)
  })

  test('no token, or a bad one, is 401 before the body is looked at', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await t.request('POST', '/api/interaction/record-mcp-tool', { token, body: { tool_name: 1 } })
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ detail: 'Not authenticated' })
    }
  })
})
