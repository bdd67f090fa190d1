// Agents (CONTRACT §9): create with name normalisation and the spec's limits, list (never capped), get, save, delete, restart.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { agentListQuery } from '../../src/modules/agents/service.ts'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { explain, planSorts, planUsesIndex } from '../../src/platform/db/query-plan.ts'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let orgToken: string
let owner: { id: string; token: string }
let other: { id: string; token: string }
// One server and one set of users for the file (password hashing dominates set-up); every test starts with no agents.
beforeAll(async () => {
  t = await startTestServer()
  ;({ adminToken, orgToken } = await t.provision())
  owner = await t.createUser(adminToken, { email: 'owner@example.com' })
  other = await t.createUser(adminToken, { email: 'other@example.com' })
})
afterEach(async () => {
  for (const table of ['agent_members', 'agent_versions', 'agent_drafts', 'agents']) await t.sql.run(`DELETE FROM ${table}`)
})
afterAll(() => t.close())

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const agent = (overrides: Record<string, unknown> = {}) => ({
  name: 'support-bot',
  description: 'Answers support questions',
  instructions: 'Be helpful.',
  ...overrides,
})
const create = (body: Record<string, unknown>, token = owner.token) => t.request('POST', '/api/agents', { token, body })
const issues = (res: { body: any }) => res.body.detail.map((d: any) => [d.loc.join('.'), d.type])

describe('POST /api/agents', () => {
  test('creates a draft (201) owned by the creator, with no live version and the Draft chip on', async () => {
    t.clock.set('2026-03-01T10:00:00.000Z')
    const res = await create(agent())
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'support-bot',
      description: 'Answers support questions',
      instructions: 'Be helpful.',
      applications: [],
      live_version: null,
      has_unpublished_changes: true,
      role: 'owner',
      created_by: 'owner@example.com',
      created_at: '2026-03-01T10:00:00.000Z',
      updated_at: '2026-03-01T10:00:00.000Z',
    })
    expect(res.body.created_at).toMatch(ISO)
  })

  test('names are normalised to lowercase kebab-case', async () => {
    const cases: [string, string][] = [
      [' My  Support_Bot ', 'my-support-bot'],
      ['--A__b--', 'a-b'],
      ['Sales - EU', 'sales-eu'],
      ['tab\tand_new line', 'tab-and-new-line'],
      ['v2', 'v2'],
    ]
    for (const [raw, normalised] of cases) {
      const res = await create(agent({ name: raw }))
      expect(res.status).toBe(201)
      expect(res.body.name).toBe(normalised)
    }
  })

  test('a name that normalises to nothing is 422 value_error', async () => {
    for (const name of ['   ', '___', '-', ' - _ ']) {
      const res = await create(agent({ name }))
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([
        { loc: ['body', 'name'], msg: 'Agent name must contain at least one letter or digit', type: 'value_error', input: name },
      ])
    }
  })

  test('an empty name is 422 string_too_short, from the schema', async () => {
    expect(issues(await create(agent({ name: '' })))).toEqual([['body.name', 'string_too_short']])
  })

  test('a name with other characters after normalisation is 422 value_error, echoing what it became', async () => {
    for (const [name, became] of [
      ['Café Bot', 'café-bot'],
      ['a.b', 'a.b'],
      ['Bot!', 'bot!'],
      ['a/b', 'a/b'],
    ]) {
      const res = await create(agent({ name }))
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([
        { loc: ['body', 'name'], msg: 'Agent name may contain only letters a-z, digits, spaces, hyphens and underscores', type: 'value_error', input: became },
      ])
    }
  })

  test('names of 64 characters are accepted, 65 are 422 string_too_long; the length counts after normalisation', async () => {
    expect((await create(agent({ name: 'a'.repeat(64) }))).status).toBe(201)
    const long = await create(agent({ name: 'b'.repeat(65) }))
    expect(long.status).toBe(422)
    expect(long.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'Agent name should have at most 64 characters', type: 'string_too_long', input: 'b'.repeat(65), ctx: { max_length: 64 } },
    ])
    // 66 characters typed, 64 after trimming: fine.
    const padded = await create(agent({ name: ` ${'c'.repeat(64)} ` }))
    expect(padded.status).toBe(201)
    expect(padded.body.name).toBe('c'.repeat(64))
  })

  test('descriptions of 300 characters and instructions of 4,000 are accepted; 301 and 4,001 are 422 string_too_long', async () => {
    expect((await create(agent({ name: 'at-limit', description: 'd'.repeat(300), instructions: 'i'.repeat(4000) }))).status).toBe(201)
    const res = await create(agent({ name: 'over-limit', description: 'd'.repeat(301), instructions: 'i'.repeat(4001) }))
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc.join('.'), d.type, d.ctx])).toEqual([
      ['body.description', 'string_too_long', { max_length: 300 }],
      ['body.instructions', 'string_too_long', { max_length: 4000 }],
    ])
  })

  test('missing required fields are all reported at once', async () => {
    expect(issues(await create({}))).toEqual([
      ['body.name', 'missing'],
      ['body.description', 'missing'],
      ['body.instructions', 'missing'],
    ])
    expect(issues(await create({ name: 'x' }))).toEqual([
      ['body.description', 'missing'],
      ['body.instructions', 'missing'],
    ])
  })

  test('empty or mistyped fields are 422', async () => {
    expect(issues(await create({ name: 5, description: '', instructions: ['x'] }))).toEqual([
      ['body.name', 'string_type'],
      ['body.description', 'string_too_short'],
      ['body.instructions', 'string_type'],
    ])
    expect(issues(await t.request('POST', '/api/agents', { token: owner.token }))).toEqual([['body', 'missing']])
  })

  test('a name taken after normalisation is 409, also when someone else owns it; deleting frees it', async () => {
    expect((await create(agent({ name: 'Support Bot' }))).status).toBe(201)
    for (const [name, token] of [
      ['support_bot', owner.token],
      ['SUPPORT-BOT', other.token],
    ] as const) {
      const res = await create(agent({ name }), token)
      expect(res.status).toBe(409)
      expect(res.body).toEqual({ detail: "An agent named 'support-bot' already exists" })
    }
    expect((await t.request('DELETE', '/api/agents/support-bot', { token: owner.token })).status).toBe(204)
    expect((await create(agent({ name: 'support_bot' }), other.token)).status).toBe(201)
  })

  test('anonymous callers get 401 before any validation', async () => {
    const res = await t.request('POST', '/api/agents', { body: {} })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ detail: 'Not authenticated' })
  })

  test('the org token can create agents; the organisation account owns them', async () => {
    const res = await create(agent({ name: 'org-bot' }), orgToken)
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ role: 'owner', created_by: 'organisation@agentbox.invalid' })
  })
})

describe('GET /api/agents', () => {
  test('returns every agent beyond 50 by default, oldest first; limit and offset page it', async () => {
    for (let i = 0; i < 120; i++) expect((await create(agent({ name: `agent-${String(i).padStart(3, '0')}` }))).status).toBe(201)
    const all = await t.request('GET', '/api/agents', { token: owner.token })
    expect(all.status).toBe(200)
    expect(all.body).toHaveLength(120)
    expect(all.body.map((a: any) => a.name)).toEqual(Array.from({ length: 120 }, (_, i) => `agent-${String(i).padStart(3, '0')}`))
    expect((await t.request('GET', '/api/agents', { token: adminToken })).body).toHaveLength(120)
    const page = await t.request('GET', '/api/agents?limit=10&offset=55', { token: owner.token })
    expect(page.body.map((a: any) => a.name)).toEqual(all.body.slice(55, 65).map((a: any) => a.name))
    expect((await t.request('GET', '/api/agents?offset=115', { token: owner.token })).body).toHaveLength(5)
    expect((await t.request('GET', '/api/agents?limit=5&offset=500', { token: owner.token })).body).toEqual([])
  })

  test('list items are summaries: no instructions', async () => {
    await create(agent())
    const [item] = (await t.request('GET', '/api/agents', { token: owner.token })).body
    expect(item).toEqual({
      id: expect.any(String),
      name: 'support-bot',
      description: 'Answers support questions',
      live_version: null,
      has_unpublished_changes: true,
      role: 'owner',
      created_by: 'owner@example.com',
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    })
  })

  test('members see their own and shared agents; admins see every agent', async () => {
    await create(agent({ name: 'mine' }))
    await create(agent({ name: 'theirs' }), other.token)
    await create(agent({ name: 'shared-with-me' }), other.token)
    await t.request('POST', '/api/agents/shared-with-me/members', { token: other.token, body: { email: 'owner@example.com', role: 'viewer' } })
    const names = async (token: string) => (await t.request('GET', '/api/agents', { token })).body.map((a: any) => [a.name, a.role])
    expect(await names(owner.token)).toEqual([
      ['mine', 'owner'],
      ['shared-with-me', 'viewer'],
    ])
    expect(await names(other.token)).toEqual([
      ['theirs', 'owner'],
      ['shared-with-me', 'owner'],
    ])
    expect(await names(adminToken)).toEqual([
      ['mine', 'admin'],
      ['theirs', 'admin'],
      ['shared-with-me', 'admin'],
    ])
  })

  test("viewers and admins see the live description (null before the first publish), owners the draft's", async () => {
    await create(agent({ description: 'first' }))
    await t.request('POST', '/api/agents/support-bot/members', { token: owner.token, body: { email: 'other@example.com', role: 'viewer' } })
    const description = async (token: string) => (await t.request('GET', '/api/agents', { token })).body[0].description
    expect(await description(other.token)).toBeNull()
    expect(await description(adminToken)).toBeNull()
    await t.request('POST', '/api/agents/support-bot/publish', { token: owner.token })
    await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { description: 'second' } })
    expect(await description(owner.token)).toBe('second')
    expect(await description(other.token)).toBe('first')
    expect(await description(adminToken)).toBe('first')
  })

  test('bad paging parameters are 422 at their own loc, all at once', async () => {
    for (const [query, type] of [
      ['limit=0', 'greater_than_equal'],
      ['limit=abc', 'int_type'],
      ['offset=-1', 'greater_than_equal'],
      ['limit=1.5', 'int_type'],
    ] as const) {
      const res = await t.request('GET', `/api/agents?${query}`, { token: owner.token })
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', query.split('=')[0]], type })])
    }
    expect(issues(await t.request('GET', '/api/agents?limit=0&offset=-1', { token: owner.token }))).toEqual([
      ['query.limit', 'greater_than_equal'],
      ['query.offset', 'greater_than_equal'],
    ])
  })

  test('both list queries are served by indexes, with no sort step', async () => {
    const plan = (principal: Principal) => {
      const { sql, parameters } = agentListQuery(t.server.database.db, principal, { limit: 50, offset: 0 }).compile()
      return explain(t.server.database, sql, parameters)
    }
    const principal = (role: 'admin' | 'member'): Principal => ({
      userId: owner.id,
      email: 'owner@example.com',
      name: 'o',
      role,
      kind: 'person',
      via: 'access_token',
      tokenId: null,
    })
    const member = await plan(principal('member'))
    const admin = await plan(principal('admin'))
    expect(planSorts(member)).toBe(false)
    expect(planSorts(admin)).toBe(false)
    if (t.server.database.kind === 'sqlite') {
      expect(member[0]).toMatch(/SEARCH m USING (COVERING )?INDEX agent_members_user \(user_id=\?\)/)
      expect(member.slice(1).every((d) => /USING (INDEX|PRIMARY KEY|INTEGER PRIMARY KEY)|sqlite_autoindex/.test(d))).toBe(true)
      expect(admin[0]).toMatch(/SCAN agents USING INDEX sqlite_autoindex_agents_1/)
    } else {
      expect(planUsesIndex(member, 'agent_members_user')).toBe(true)
      expect(planUsesIndex(admin, 'agents_pkey')).toBe(true)
    }
  })
})

describe('GET /api/agents/{name}', () => {
  test('owners see the draft; an unknown name is 404 Agent not found', async () => {
    await create(agent())
    const res = await t.request('GET', '/api/agents/support-bot', { token: owner.token })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ name: 'support-bot', instructions: 'Be helpful.', role: 'owner' })
    expect(await t.request('GET', '/api/agents/nope', { token: owner.token })).toMatchObject({ status: 404, body: { detail: 'Agent not found' } })
  })

  test('names in paths are exact: another spelling is 404', async () => {
    await create(agent())
    expect((await t.request('GET', '/api/agents/Support-Bot', { token: owner.token })).status).toBe(404)
  })
})

describe('PATCH /api/agents/{name} (Save)', () => {
  test('edits the draft only: viewers keep seeing the live version and the Draft chip comes on', async () => {
    await create(agent())
    await t.request('POST', '/api/agents/support-bot/members', { token: owner.token, body: { email: 'other@example.com', role: 'viewer' } })
    await t.request('POST', '/api/agents/support-bot/publish', { token: owner.token })
    t.clock.advance(60_000)
    const res = await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { description: 'New description', instructions: 'Be brief.' } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ description: 'New description', instructions: 'Be brief.', live_version: 1, has_unpublished_changes: true })
    expect(res.body.updated_at).not.toBe(res.body.created_at)
    const viewer = await t.request('GET', '/api/agents/support-bot', { token: other.token })
    expect(viewer.body).toMatchObject({
      description: 'Answers support questions',
      instructions: 'Be helpful.',
      live_version: 1,
      has_unpublished_changes: true,
      role: 'viewer',
    })
  })

  test('fields are optional: one field changes alone; an empty body changes nothing', async () => {
    await create(agent())
    const res = await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { instructions: 'Only this.' } })
    expect(res.body).toMatchObject({ description: 'Answers support questions', instructions: 'Only this.' })
    const before = (await t.request('GET', '/api/agents/support-bot', { token: owner.token })).body
    t.clock.advance(1000)
    const same = await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: {} })
    expect(same.status).toBe(200)
    expect(same.body).toEqual(before)
  })

  test('saving the live content back clears the Draft chip; saving identical content changes nothing', async () => {
    await create(agent())
    await t.request('POST', '/api/agents/support-bot/publish', { token: owner.token })
    expect((await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { instructions: 'Changed.' } })).body.has_unpublished_changes).toBe(
      true,
    )
    expect(
      (await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { instructions: 'Be helpful.' } })).body.has_unpublished_changes,
    ).toBe(false)
  })

  test('the name cannot change (422), but sending the current name back (in any spelling) is fine', async () => {
    await create(agent())
    expect((await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { name: 'Support Bot', description: 'x' } })).status).toBe(200)
    const res = await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { name: 'renamed' } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'The name of an agent cannot be changed', type: 'value_error', input: 'renamed' }])
  })

  test('limits apply as on create: 300/4,000 accepted, 301/4,001 and empty strings refused', async () => {
    await create(agent())
    expect(
      (await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { description: 'd'.repeat(300), instructions: 'i'.repeat(4000) } }))
        .status,
    ).toBe(200)
    const res = await t.request('PATCH', '/api/agents/support-bot', {
      token: owner.token,
      body: { description: 'd'.repeat(301), instructions: 'i'.repeat(4001) },
    })
    expect(issues(res)).toEqual([
      ['body.description', 'string_too_long'],
      ['body.instructions', 'string_too_long'],
    ])
    expect(issues(await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { description: '' } }))).toEqual([
      ['body.description', 'string_too_short'],
    ])
  })

  test('unknown agents are 404', async () => {
    expect((await t.request('PATCH', '/api/agents/nope', { token: owner.token, body: { description: 'x' } })).status).toBe(404)
  })
})

describe('DELETE /api/agents/{name}', () => {
  test('removes the agent with its draft, versions and members (204); then 404', async () => {
    await create(agent())
    await t.request('POST', '/api/agents/support-bot/publish', { token: owner.token })
    await t.request('POST', '/api/agents/support-bot/members', { token: owner.token, body: { email: 'other@example.com', role: 'viewer' } })
    const res = await t.request('DELETE', '/api/agents/support-bot', { token: owner.token })
    expect(res.status).toBe(204)
    expect(res.body).toBeNull()
    expect((await t.request('GET', '/api/agents/support-bot', { token: owner.token })).status).toBe(404)
    expect((await t.request('DELETE', '/api/agents/support-bot', { token: owner.token })).status).toBe(404)
    for (const table of ['agents', 'agent_drafts', 'agent_versions', 'agent_members']) {
      expect(((await t.sql.get(`SELECT count(*) AS n FROM ${table}`)) as { n: number }).n).toBe(0)
    }
  })
})

describe('restart', () => {
  test('agents, drafts, versions, live pointers and members survive a restart', async () => {
    await create(agent())
    await t.request('POST', '/api/agents/support-bot/publish', { token: owner.token, body: { note: 'first' } })
    await t.request('PATCH', '/api/agents/support-bot', { token: owner.token, body: { instructions: 'Draft only.' } })
    await t.request('POST', '/api/agents/support-bot/members', { token: owner.token, body: { email: 'other@example.com', role: 'viewer' } })
    const before = {
      owner: (await t.request('GET', '/api/agents/support-bot', { token: owner.token })).body,
      viewer: (await t.request('GET', '/api/agents/support-bot', { token: other.token })).body,
      versions: (await t.request('GET', '/api/agents/support-bot/versions', { token: owner.token })).body,
      members: (await t.request('GET', '/api/agents/support-bot/members', { token: owner.token })).body,
    }
    await t.restart()
    expect((await t.request('GET', '/api/agents/support-bot', { token: owner.token })).body).toEqual(before.owner)
    expect((await t.request('GET', '/api/agents/support-bot', { token: other.token })).body).toEqual(before.viewer)
    expect((await t.request('GET', '/api/agents/support-bot/versions', { token: owner.token })).body).toEqual(before.versions)
    expect((await t.request('GET', '/api/agents/support-bot/members', { token: owner.token })).body).toEqual(before.members)
    expect(before.owner).toMatchObject({ instructions: 'Draft only.', live_version: 1, has_unpublished_changes: true })
    expect(before.viewer).toMatchObject({ instructions: 'Be helpful.', live_version: 1 })
  })
})

describe('licence lapse', () => {
  test('after expiry plus grace, agents can still be read but every mutation answers 402', async () => {
    const s = await startTestServer()
    try {
      const { adminToken: token } = await s.provision({ days: 30 })
      await s.request('POST', '/api/agents', { token, body: agent() })
      await s.request('POST', '/api/agents/support-bot/publish', { token })
      s.clock.advance(45 * 86_400_000)
      const fresh = await s.login(ADMIN.email, ADMIN.password)
      expect((await s.request('GET', '/api/agents', { token: fresh })).status).toBe(200)
      expect((await s.request('GET', '/api/agents/support-bot', { token: fresh })).status).toBe(200)
      expect((await s.request('GET', '/api/agents/support-bot/versions', { token: fresh })).status).toBe(200)
      for (const [method, path, body] of [
        ['POST', '/api/agents', agent({ name: 'another' })],
        ['PATCH', '/api/agents/support-bot', { description: 'x' }],
        ['POST', '/api/agents/support-bot/publish'],
        ['POST', '/api/agents/support-bot/versions/1/restore'],
        ['POST', '/api/agents/support-bot/live', { version: 1 }],
        ['POST', '/api/agents/support-bot/members', { email: ADMIN.email, role: 'owner' }],
        ['DELETE', '/api/agents/support-bot'],
      ] as const) {
        expect(await s.request(method, path, { token: fresh, body })).toMatchObject({ status: 402, body: { detail: 'License expired' } })
      }
    } finally {
      await s.close()
    }
  })
})
