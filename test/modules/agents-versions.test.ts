// Agent versions (the spec's Agent versions table, CONTRACT §9): publish, the Draft chip, switch live, restore, version lists.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let owner: { id: string; token: string }
// One server for the file (password hashing dominates set-up); each test gets its own agent.
beforeAll(async () => {
  t = await startTestServer({ now: '2026-03-01T09:00:00.000Z' })
  const { adminToken } = await t.provision()
  owner = await t.createUser(adminToken, { email: 'owner@example.com' })
})
afterAll(() => t.close())

let agentCount = 0
let bot = ''
beforeEach(async () => {
  bot = `/api/agents/bot-${++agentCount}`
  const res = await t.request('POST', '/api/agents', {
    token: owner.token,
    body: { name: `bot-${agentCount}`, description: 'Version one', instructions: 'Say one.' },
  })
  expect(res.status).toBe(201)
})

const call = (method: string, path: string, body?: unknown) => t.request(method, `${bot}${path}`, { token: owner.token, body })

describe('the version lifecycle', () => {
  test('publish → save → Draft chip → publish v2 → switch live to v1 → restore v1 → list versions', async () => {
    t.clock.set('2026-03-01T10:00:00.000Z')
    const v1 = await call('POST', '/publish', { note: 'First release' })
    expect(v1.status).toBe(201)
    expect(v1.body).toEqual({ version: 1, note: 'First release', created_at: '2026-03-01T10:00:00.000Z', created_by: 'owner@example.com', live: true })
    expect((await call('GET', '')).body).toMatchObject({ live_version: 1, has_unpublished_changes: false })

    t.clock.set('2026-03-01T11:00:00.000Z')
    const saved = await call('PATCH', '', { description: 'Version two', instructions: 'Say two.' })
    expect(saved.body).toMatchObject({ live_version: 1, has_unpublished_changes: true, instructions: 'Say two.' })

    t.clock.set('2026-03-01T12:00:00.000Z')
    const v2 = await call('POST', '/publish')
    expect(v2.status).toBe(201)
    expect(v2.body).toEqual({ version: 2, note: null, created_at: '2026-03-01T12:00:00.000Z', created_by: 'owner@example.com', live: true })
    expect((await call('GET', '')).body).toMatchObject({ live_version: 2, has_unpublished_changes: false, instructions: 'Say two.' })

    t.clock.set('2026-03-01T13:00:00.000Z')
    const switched = await call('POST', '/live', { version: 1 })
    expect(switched.status).toBe(200)
    // The draft (v2's content) did not move; it now differs from live, so the chip is on.
    expect(switched.body).toMatchObject({
      live_version: 1,
      has_unpublished_changes: true,
      description: 'Version two',
      instructions: 'Say two.',
      updated_at: '2026-03-01T13:00:00.000Z',
    })

    t.clock.set('2026-03-01T14:00:00.000Z')
    const restored = await call('POST', '/versions/1/restore')
    expect(restored.status).toBe(200)
    expect(restored.body).toMatchObject({
      live_version: 1,
      has_unpublished_changes: false,
      description: 'Version one',
      instructions: 'Say one.',
      updated_at: '2026-03-01T14:00:00.000Z',
    })

    const versions = await call('GET', '/versions')
    expect(versions.status).toBe(200)
    expect(versions.body).toEqual([
      { version: 2, note: null, created_at: '2026-03-01T12:00:00.000Z', created_by: 'owner@example.com', live: false },
      { version: 1, note: 'First release', created_at: '2026-03-01T10:00:00.000Z', created_by: 'owner@example.com', live: true },
    ])
  })

  test("a version's snapshot can be read back: description and instructions as published", async () => {
    await call('POST', '/publish', { note: 'one' })
    await call('PATCH', '', { instructions: 'Say two.' })
    const res = await call('GET', '/versions/1')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      version: 1,
      note: 'one',
      created_at: expect.any(String),
      created_by: 'owner@example.com',
      live: true,
      description: 'Version one',
      instructions: 'Say one.',
      applications: [],
    })
  })

  test('versions list pages with limit and offset', async () => {
    for (let i = 1; i <= 5; i++) {
      await call('PATCH', '', { instructions: `Say ${i}.` })
      expect((await call('POST', '/publish')).body.version).toBe(i)
    }
    expect((await call('GET', '/versions?limit=2&offset=1')).body.map((v: any) => v.version)).toEqual([4, 3])
    expect((await call('GET', '/versions?limit=0')).status).toBe(422)
  })
})

describe('POST /api/agents/{name}/publish', () => {
  test('a fresh agent publishes as v1 without a body', async () => {
    const res = await call('POST', '/publish')
    expect(res.status).toBe(201)
    expect(res.body.version).toBe(1)
  })

  test('publishing when the draft matches live is 409 Nothing to publish, and creates no version', async () => {
    await call('POST', '/publish')
    const again = await call('POST', '/publish', { note: 'again' })
    expect(again.status).toBe(409)
    expect(again.body).toEqual({ detail: 'Nothing to publish: the draft matches the live version' })
    // Saving the same content again is not a change either.
    await call('PATCH', '', { instructions: 'Say one.' })
    expect((await call('POST', '/publish')).status).toBe(409)
    expect((await call('GET', '/versions')).body).toHaveLength(1)
  })

  test('after switching live back, the draft differs from live and can be published again as a new number', async () => {
    await call('POST', '/publish')
    await call('PATCH', '', { instructions: 'Say two.' })
    await call('POST', '/publish')
    await call('POST', '/live', { version: 1 })
    const v3 = await call('POST', '/publish')
    expect(v3.status).toBe(201)
    expect(v3.body.version).toBe(3)
    expect((await call('GET', '')).body).toMatchObject({ live_version: 3, has_unpublished_changes: false, instructions: 'Say two.' })
  })

  test('note: 500 characters are accepted; 501, null or a number are 422', async () => {
    const long = await call('POST', '/publish', { note: 'n'.repeat(501) })
    expect(long.status).toBe(422)
    expect(long.body.detail[0]).toMatchObject({ loc: ['body', 'note'], type: 'string_too_long' })
    expect((await call('POST', '/publish', { note: 5 })).status).toBe(422)
    expect((await call('POST', '/publish', { note: null })).status).toBe(422)
    expect((await call('POST', '/publish', { note: 'n'.repeat(500) })).status).toBe(201)
  })

  test('an unknown agent is 404', async () => {
    expect((await t.request('POST', '/api/agents/nope/publish', { token: owner.token })).body).toEqual({ detail: 'Agent not found' })
  })
})

describe('POST /api/agents/{name}/versions/{n}/restore', () => {
  test('replaces the draft and leaves live where it is', async () => {
    await call('POST', '/publish')
    await call('PATCH', '', { instructions: 'Say two.' })
    await call('POST', '/publish')
    const res = await call('POST', '/versions/1/restore')
    expect(res.body).toMatchObject({ live_version: 2, has_unpublished_changes: true, instructions: 'Say one.' })
  })

  test('restoring what the draft already holds changes nothing, not even updated_at', async () => {
    await call('POST', '/publish')
    const before = (await call('GET', '')).body
    t.clock.advance(60_000)
    const res = await call('POST', '/versions/1/restore')
    expect(res.status).toBe(200)
    expect(res.body).toEqual(before)
  })

  test('unknown versions are 404 Version not found; a non-integer is 422', async () => {
    await call('POST', '/publish')
    // Past 32 and 64 bits too: no version has such a number, on SQLite or on PostgreSQL (whose bigint refuses the last two).
    for (const n of ['2', '0', '-1', '99999', '3000000000', '9007199254740991', '9223372036854775808', '100000000000000000000']) {
      const res = await call('POST', `/versions/${n}/restore`)
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Version not found' })
    }
    const bad = await call('POST', '/versions/v1/restore')
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0]).toMatchObject({ loc: ['path', 'version'], type: 'int_type' })
    for (const n of ['7', '3000000000', '100000000000000000000']) expect((await call('GET', `/versions/${n}`)).status).toBe(404)
  })
})

describe('POST /api/agents/{name}/live', () => {
  test('points live at any existing version, back and forward; the current one is a no-op', async () => {
    await call('POST', '/publish')
    await call('PATCH', '', { instructions: 'Say two.' })
    await call('POST', '/publish')
    expect((await call('POST', '/live', { version: 1 })).body.live_version).toBe(1)
    expect((await call('POST', '/live', { version: 2 })).body).toMatchObject({ live_version: 2, has_unpublished_changes: false })
    const before = (await call('GET', '')).body
    t.clock.advance(60_000)
    expect((await call('POST', '/live', { version: 2 })).body).toEqual(before)
  })

  test('the version must exist (404) and be a positive integer (422)', async () => {
    for (const version of [1, 3_000_000_000, 1e20])
      expect(await call('POST', '/live', { version })).toMatchObject({ status: 404, body: { detail: 'Version not found' } })
    for (const body of [{}, { version: 'v1' }, { version: 0 }, { version: 1.5 }]) expect((await call('POST', '/live', body)).status).toBe(422)
  })
})

describe('snapshots', () => {
  test('published versions are immutable in the database', async () => {
    await call('POST', '/publish')
    expect(t.sql.run("UPDATE agent_versions SET note = 'changed'")).rejects.toThrow('agent versions are immutable')
  })
})
