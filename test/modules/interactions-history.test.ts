// GET /api/interactions and /api/interactions/{id}: the history newest first, keyset pages that stay put while rows
// arrive, every filter, who sees what, pages cut by their scan and byte budgets, the 422s, and the plans that serve them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { InteractionHistory } from '../../src/modules/interactions/history.ts'
import { matchingPositions, type PageWalk, windowEnd } from '../../src/modules/interactions/history-query.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { explain, planSorts, planUsesIndex } from '../../src/platform/db/query-plan.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let adminId: string
let alice: { id: string; token: string }
let bob: { id: string; token: string }

const list = (query: string, token = adminToken) => t.request('GET', `/api/interactions${query}`, { token })
const names = (res: { body: { items: { tool_name: string }[] } }) => res.body.items.map((item) => item.tool_name)

async function record(who: { token: string }, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', '/api/interaction/record-mcp-tool', { token: who.token, body: { mcp_server_name: 'Jira', ...body } })
  if (res.status !== 200) throw new Error(`record: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.id
}

/** Every page of a listing, following next_cursor. */
async function allPages(query: string, token = adminToken): Promise<{ names: string[]; pages: number }> {
  const seen: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const res = await list(`${query}${query.includes('?') ? '&' : '?'}${cursor ? `cursor=${cursor}` : ''}`, token)
    expect(res.status).toBe(200)
    seen.push(...names(res))
    cursor = res.body.next_cursor
    pages++
  } while (cursor !== null)
  return { names: seen, pages }
}

beforeAll(async () => {
  t = await startTestServer({ now: '2026-11-20T09:00:00.000Z' })
  ;({ adminToken } = await t.provision())
  adminId = (await t.request('GET', '/api/auth/me', { token: adminToken })).body.id
  alice = await t.createUser(adminToken, { email: 'alice@example.com' })
  bob = await t.createUser(adminToken, { email: 'bob@example.com' })
  // One second apart, oldest first: a1 … a6 by alice, b1 … b3 by bob; a2 and a5 failed; a3, a4 and b2 in conversations.
  const rows: [typeof alice, Record<string, unknown>][] = [
    [alice, { tool_name: 'a1', client_source: 'claude-code' }],
    [bob, { tool_name: 'b1', mcp_server_name: 'GitHub' }],
    [alice, { tool_name: 'a2', result: { isError: true, content: [{ type: 'text', text: 'boom' }] } }],
    [alice, { tool_name: 'a3', conversation_id: 'conv-1', user_input: 'What is open?', arguments: { jql: 'status = Open' } }],
    [bob, { tool_name: 'b2', conversation_id: 'conv-1', mcp_server_name: 'GitHub' }],
    [alice, { tool_name: 'a4', conversation_id: 'conv-1', duration_seconds: 0.25, client_source: 'agentbox-copilot' }],
    [bob, { tool_name: 'b3', client_source: 'claude-code' }],
    [alice, { tool_name: 'a5', mcp_server_name: 'GitHub', result: { isError: true } }],
    [alice, { tool_name: 'a6' }],
  ]
  for (const [who, body] of rows) {
    await record(who, body)
    t.clock.advance(1000)
  }
})
afterAll(() => t.close())

describe('GET /api/interactions: order, items and paging', () => {
  test("everyone's for an admin, newest first, each item as recorded with its user", async () => {
    const res = await list('')
    expect(res.status).toBe(200)
    expect(names(res)).toEqual(['a6', 'a5', 'b3', 'a4', 'b2', 'a3', 'a2', 'b1', 'a1'])
    expect(res.body.next_cursor).toBeNull()
    const a3 = res.body.items.find((item: { tool_name: string }) => item.tool_name === 'a3')
    expect(a3).toEqual({
      id: expect.any(String),
      kind: 'mcp_tool',
      api_title: 'Jira',
      tool_name: 'a3',
      mcp_server_name: 'Jira',
      client_source: null,
      conversation_id: 'conv-1',
      user_id: alice.id,
      user_email: 'alice@example.com',
      user_input: 'What is open?',
      arguments: { jql: 'status = Open' },
      result: null,
      is_error: false,
      status: null,
      duration_seconds: null,
      created_at: '2026-11-20T09:00:03.000Z',
    })
    expect(res.body.items.find((item: { tool_name: string }) => item.tool_name === 'a4')).toMatchObject({
      duration_seconds: 0.25,
      client_source: 'agentbox-copilot',
    })
    expect(res.body.items.find((item: { tool_name: string }) => item.tool_name === 'a2')).toMatchObject({
      is_error: true,
      result: { isError: true, content: [{ type: 'text', text: 'boom' }] },
    })
  })

  test('pages of `limit` follow next_cursor to the end, and rows recorded meanwhile never shift or repeat a page', async () => {
    const first = await list('?limit=4')
    expect(names(first)).toEqual(['a6', 'a5', 'b3', 'a4'])
    expect(first.body.next_cursor).toEqual(expect.any(String))
    // Newer rows arrive between pages, some in the same millisecond as each other.
    await record(alice, { tool_name: 'late-1' })
    await record(alice, { tool_name: 'late-2' })
    const second = await list(`?limit=4&cursor=${first.body.next_cursor}`)
    expect(names(second)).toEqual(['b2', 'a3', 'a2', 'b1'])
    const third = await list(`?limit=4&cursor=${second.body.next_cursor}`)
    expect(names(third)).toEqual(['a1'])
    expect(third.body.next_cursor).toBeNull()
    // The new rows lead the next first page; rows of one millisecond are ordered by id, newest first.
    const fresh = await list('?limit=2')
    expect(names(fresh)).toEqual(['late-2', 'late-1'])
    expect(fresh.body.items[0].created_at).toBe(fresh.body.items[1].created_at)
    await t.server.database.db.deleteFrom('interactions').where('action', 'like', 'late-%').execute()
  })

  test('a page whose last row is the last match still says null, and limit 200 is the largest page', async () => {
    expect((await list('?limit=9')).body.next_cursor).toBeNull()
    expect((await list('?limit=8')).body.next_cursor).toEqual(expect.any(String))
    expect(names(await list('?limit=200'))).toHaveLength(9)
  })

  test('an API action carries its application title, operation and the upstream status; mcp_server_name is null', async () => {
    const { id } = await t.server.modules.interactions.service.record(bob.id, {
      kind: 'api_action',
      apiTitle: 'Pet Store',
      action: 'createPet',
      isError: false,
      durationSeconds: 0.5,
      clientSource: 'agentbox-api',
      arguments: { body: { name: 'Rex' } },
      result: { status: 201, truncated: false },
    })
    const res = await list('?kind=api_action')
    expect(res.body.items).toEqual([
      expect.objectContaining({ id, kind: 'api_action', api_title: 'Pet Store', tool_name: 'createPet', mcp_server_name: null, status: 201, is_error: false }),
    ])
    const item = await t.request('GET', `/api/interactions/${id}`, { token: bob.token })
    expect(item.status).toBe(200)
    expect(item.body).toEqual(res.body.items[0])
    await t.server.database.db.deleteFrom('interactions').where('id', '=', id).execute()
  })
})

describe('who sees what', () => {
  test("members see their own interactions only; user_id naming themselves is the same list, anyone else's is 403", async () => {
    expect(names(await list('', alice.token))).toEqual(['a6', 'a5', 'a4', 'a3', 'a2', 'a1'])
    expect(names(await list(`?user_id=${alice.id}`, alice.token))).toEqual(['a6', 'a5', 'a4', 'a3', 'a2', 'a1'])
    const other = await list(`?user_id=${bob.id}`, alice.token)
    expect(other.status).toBe(403)
    expect(other.body).toEqual({ detail: 'Members can only list their own interactions' })
  })

  test("admins filter by user_id; an unknown user is 404; the admin's own list is empty", async () => {
    expect(names(await list(`?user_id=${bob.id}`))).toEqual(['b3', 'b2', 'b1'])
    expect(names(await list(`?user_id=${adminId}`))).toEqual([])
    const unknown = await list('?user_id=00000000-0000-7000-8000-000000000000')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ detail: 'User not found' })
  })

  test("a conversation's calls open together, oldest last; a member sees only their own calls in it", async () => {
    expect(names(await list('?conversation_id=conv-1'))).toEqual(['a4', 'b2', 'a3'])
    expect(names(await list('?conversation_id=conv-1', alice.token))).toEqual(['a4', 'a3'])
    expect(names(await list('?conversation_id=conv-1', bob.token))).toEqual(['b2'])
    expect(names(await list('?conversation_id=conv-2'))).toEqual([])
  })

  test("GET /api/interactions/{id}: the list's item; another member's and an unknown id are 404; an admin reads any", async () => {
    const [a4] = (await list('?tool_name=a4', alice.token)).body.items
    const own = await t.request('GET', `/api/interactions/${a4.id}`, { token: alice.token })
    expect(own.status).toBe(200)
    expect(own.body).toEqual(a4)
    expect((await t.request('GET', `/api/interactions/${a4.id}`, { token: adminToken })).body).toEqual(a4)
    for (const [id, token] of [
      [a4.id, bob.token],
      ['00000000-0000-7000-8000-000000000000', alice.token],
      ['not-an-id', adminToken],
    ]) {
      const res = await t.request('GET', `/api/interactions/${id}`, { token })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Interaction not found' })
    }
  })

  test('without a token: 401', async () => {
    expect((await t.request('GET', '/api/interactions')).status).toBe(401)
    expect((await t.request('GET', '/api/interactions/x')).status).toBe(401)
  })
})

describe('filters', () => {
  test('each filter alone', async () => {
    expect(names(await list('?kind=mcp_tool'))).toHaveLength(9)
    expect(names(await list('?kind=api_action'))).toEqual([])
    expect(names(await list('?api_title=GitHub'))).toEqual(['a5', 'b2', 'b1'])
    expect(names(await list('?tool_name=b3'))).toEqual(['b3'])
    expect(names(await list('?client_source=claude-code'))).toEqual(['b3', 'a1'])
    expect(names(await list('?is_error=true'))).toEqual(['a5', 'a2'])
    expect(names(await list('?is_error=false'))).toEqual(['a6', 'b3', 'a4', 'b2', 'a3', 'b1', 'a1'])
  })

  test('filters combine, also with the user and the conversation', async () => {
    expect(names(await list('?api_title=GitHub&is_error=true'))).toEqual(['a5'])
    expect(names(await list('?api_title=GitHub', bob.token))).toEqual(['b2', 'b1'])
    expect(names(await list('?client_source=claude-code', alice.token))).toEqual(['a1'])
    expect(names(await list('?conversation_id=conv-1&api_title=GitHub'))).toEqual(['b2'])
    expect(names(await list(`?conversation_id=conv-1&user_id=${alice.id}&client_source=agentbox-copilot`))).toEqual(['a4'])
  })

  test('from and to include both ends; a plain date stands for its whole UTC day', async () => {
    expect(names(await list('?from=2026-11-20T09:00:02Z&to=2026-11-20T09:00:04Z'))).toEqual(['b2', 'a3', 'a2'])
    expect(names(await list('?from=2026-11-20T09:00:07.000Z'))).toEqual(['a6', 'a5'])
    expect(names(await list(`?to=${encodeURIComponent('2026-11-20T10:00:01+01:00')}`))).toEqual(['b1', 'a1'])
    expect(names(await list('?from=2026-11-20&to=2026-11-20'))).toHaveLength(9)
    expect(names(await list('?to=2026-11-19'))).toEqual([])
    expect(names(await list('?from=2026-11-20T09:00:05Z&to=2026-11-20T09:00:05Z'))).toEqual(['a4'])
    expect(names(await list('?to=9999-12-31'))).toHaveLength(9)
  })

  test('with a cursor, paging within a time range stays within it', async () => {
    expect((await allPages('?from=2026-11-20T09:00:01Z&to=2026-11-20T09:00:07Z&limit=2')).names).toEqual(['a5', 'b3', 'a4', 'b2', 'a3', 'a2', 'b1'])
  })
})

describe('bad input is 422 at the field', () => {
  test.each([
    ['?limit=0', 'limit', 'greater_than_equal'],
    ['?limit=201', 'limit', 'less_than_equal'],
    ['?limit=ten', 'limit', 'int_type'],
    ['?kind=chat', 'kind', 'literal_error'],
    ['?is_error=maybe', 'is_error', 'bool_type'],
    ['?cursor=abc', 'cursor', 'value_error'],
    [`?cursor=${Buffer.from('2026-11-20T09:00:00.000Z|not-a-uuid').toString('base64url')}`, 'cursor', 'value_error'],
    [`?cursor=${Buffer.from('yesterday|00000000-0000-7000-8000-000000000000').toString('base64url')}`, 'cursor', 'value_error'],
    ['?from=2026-11-21&to=2026-11-20', 'from', 'value_error'],
    ['?from=2026-11-20T09:00:01Z&to=2026-11-20T09:00:00Z', 'from', 'value_error'],
    ['?from=last%20week', 'from', 'value_error'],
    ['?to=2026-02-30', 'to', 'value_error'],
    ['?api_title=', 'api_title', 'string_too_short'],
  ])('%s', async (query, field, type) => {
    const res = await list(query, alice.token)
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', field], type })])
  })

  test('two bad dates are both reported', async () => {
    const res = await list('?from=soon&to=later')
    expect(res.status).toBe(422)
    expect(res.body.detail.map((entry: { loc: string[] }) => entry.loc)).toEqual([
      ['query', 'from'],
      ['query', 'to'],
    ])
  })
})

describe('bounded pages', () => {
  const asAdmin = (): Principal => ({
    userId: adminId,
    email: 'admin@example.com',
    name: 'Admin',
    role: 'admin',
    kind: 'person',
    via: 'access_token',
    tokenId: null,
  })

  test('past its scan budget a page ends early with a cursor where it stopped; following it finds every match', async () => {
    const history = new InteractionHistory(t.server.database.db, { scanBudget: 3 })
    const page = async (query: Record<string, unknown>) => JSON.parse(await history.pageAsJson(asAdmin(), query))
    // is_error=true matches a5 and a2; the first window is a6, a5, b3, the second a4, b2, a3, the third a2, b1, a1.
    const first = await page({ is_error: true })
    expect(first.items.map((item: { tool_name: string }) => item.tool_name)).toEqual(['a5'])
    const second = await page({ is_error: true, cursor: first.next_cursor })
    expect(second.items).toEqual([])
    expect(second.next_cursor).toEqual(expect.any(String))
    const third = await page({ is_error: true, cursor: second.next_cursor })
    expect(third.items.map((item: { tool_name: string }) => item.tool_name)).toEqual(['a2'])
    const fourth = await page({ is_error: true, cursor: third.next_cursor })
    expect(fourth).toEqual({ items: [], next_cursor: null })
    // Without row filters the index answers exactly: no budget applies.
    expect(JSON.parse(await history.pageAsJson(asAdmin(), { limit: 9 })).items).toHaveLength(9)
  })

  test('a page carries at most about 2 MiB of stored JSON: large results come a few at a time, the first always', async () => {
    const big = 'x'.repeat(700 * 1024)
    for (const name of ['big-1', 'big-2', 'big-3', 'big-4']) {
      await record(bob, { tool_name: name, mcp_server_name: 'Big', result: { content: [{ type: 'text', text: big }] } })
      t.clock.advance(1000)
    }
    const first = await list('?api_title=Big')
    expect(names(first)).toEqual(['big-4', 'big-3'])
    expect(first.body.items[0].result.content[0].text).toBe(big)
    expect((await allPages('?api_title=Big')).names).toEqual(['big-4', 'big-3', 'big-2', 'big-1'])
    const tiny = new InteractionHistory(t.server.database.db, { pageBytes: 10 })
    const one = JSON.parse(await tiny.pageAsJson(asAdmin(), { api_title: 'Big' }))
    expect(one.items.map((item: { tool_name: string }) => item.tool_name)).toEqual(['big-4'])
    expect(one.next_cursor).toEqual(expect.any(String))
    await t.server.database.db.deleteFrom('interactions').where('api_title', '=', 'Big').execute()
  })
})

describe('query plans (migration 0013)', () => {
  const plan = async (query: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
    const compiled = query.compile()
    return explain(t.server.database, compiled.sql, compiled.parameters)
  }
  const bounds = { lower: ['2026-11-20T09:00:00.000Z', ''] as const, upper: ['2026-11-20T10:00:00.000Z', 'f'] as const }
  const filterSets = [
    {},
    { kind: 'mcp_tool' as const },
    { isError: true },
    { apiTitle: 'Jira', action: 'a1' },
    { clientSource: 'x', kind: 'api_action' as const, isError: false },
  ]

  test("a user's and the organisation's pages are index-only walks of their index, whatever the filters; no sort", async () => {
    for (const [drive, index] of [
      [{ by: 'user', userId: 'u' }, 'interactions_user_time'],
      [{ by: 'time' }, 'interactions_time'],
    ] as const) {
      for (const filters of filterSets) {
        for (const edges of [{ lower: null, upper: null }, bounds]) {
          const walk: PageWalk = { drive, filters, ...edges }
          for (const query of [matchingPositions(t.server.database.db, walk, 51), windowEnd(t.server.database.db, walk, 10_000)]) {
            const detail = await plan(query)
            expect(planUsesIndex(detail, index, { covering: true })).toBe(true)
            expect(planSorts(detail)).toBe(false)
          }
        }
      }
    }
  })

  test("a conversation's page walks the conversation index, also for a member (their user id checked per row)", async () => {
    for (const filters of [...filterSets, { userId: 'u' }, { userId: 'u', apiTitle: 'Jira' }]) {
      const walk: PageWalk = { drive: { by: 'conversation', conversationId: 'c' }, filters, lower: null, upper: bounds.upper }
      for (const query of [matchingPositions(t.server.database.db, walk, 51), windowEnd(t.server.database.db, walk, 10_000)]) {
        const detail = await plan(query)
        expect(planUsesIndex(detail, 'interactions_conversation')).toBe(true)
        if (t.server.database.kind === 'sqlite') expect(detail.join(' | ')).toContain('INDEX interactions_conversation (conversation_id=?')
        expect(planSorts(detail)).toBe(false)
      }
    }
  })
})
