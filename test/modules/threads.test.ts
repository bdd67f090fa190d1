// Threads (src/modules/threads): the list, read and delete endpoints over the real server, what modules append through
// the service (tool calls, tool results, model, usage), what happens to a task whose thread is deleted, and migration
// 0014 carrying task threads written under the old schema.
import { dropTestDatabase, emptyTestDatabase, testSql } from '../helpers/database.ts'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import { MIGRATIONS } from '../../src/platform/db/migrations/index.ts'
import { HISTORY_MAX_CHARS, type ThreadsService } from '../../src/modules/threads/index.ts'
import { startFakeServer, type FakeServer } from '../llm/fake-servers.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

const NOW = '2026-04-01T10:00:00.000Z'

let t: TestServer
let adminToken: string
let alice: { id: string; token: string }
let bob: { id: string; token: string }
const threads = (): ThreadsService => t.server.modules.threads.service

beforeEach(async () => {
  t = await startTestServer({ now: NOW })
  ;({ adminToken } = await t.provision())
  alice = await t.createUser(adminToken, { email: 'alice@example.com' })
  bob = await t.createUser(adminToken, { email: 'bob@example.com' })
})
afterEach(() => t.close())

describe('GET /api/threads', () => {
  test("the caller's own threads only, newest activity first, with the agent filter and paging", async () => {
    const first = await threads().create({ owner_id: alice.id, agent_name: 'helper', title: 'First' })
    t.clock.advance(1000)
    const second = await threads().create({ owner_id: alice.id, title: 'Second' })
    t.clock.advance(1000)
    const third = await threads().create({ owner_id: alice.id, agent_name: 'helper' })
    await threads().create({ owner_id: bob.id, agent_name: 'helper' })
    t.clock.advance(1000)
    // A new message moves the first thread to the top.
    await threads().append(first.id, [{ role: 'user', content: 'hello again' }])

    const list = await t.request('GET', '/api/threads', { token: alice.token })
    expect(list.status).toBe(200)
    expect(list.body.map((x: any) => x.id)).toEqual([first.id, third.id, second.id])
    expect(list.body[0]).toEqual({
      id: first.id,
      owner_id: alice.id,
      title: 'First',
      agent_name: 'helper',
      task_id: null,
      created_at: NOW,
      updated_at: '2026-04-01T10:00:03.000Z',
    })
    const helper = await t.request('GET', '/api/threads?agent_name=helper', { token: alice.token })
    expect(helper.body.map((x: any) => x.id)).toEqual([first.id, third.id])
    const page = await t.request('GET', '/api/threads?limit=1&offset=1', { token: alice.token })
    expect(page.body.map((x: any) => x.id)).toEqual([third.id])
    expect((await t.request('GET', '/api/threads', { token: bob.token })).body).toHaveLength(1)
  })

  test('bad paging is a 422 on each bad field; no token is a 401', async () => {
    const bad = await t.request('GET', '/api/threads?limit=0&offset=-1', { token: alice.token })
    expect(bad.status).toBe(422)
    expect(bad.body.detail.map((d: any) => d.loc)).toEqual([
      ['query', 'limit'],
      ['query', 'offset'],
    ])
    expect((await t.request('GET', '/api/threads?agent_name=', { token: alice.token })).status).toBe(422)
    expect((await t.request('GET', '/api/threads')).status).toBe(401)
  })
})

describe('GET /api/threads/{id}', () => {
  test('messages keep role, content, tool calls, tool results, model and usage, oldest first', async () => {
    const thread = await threads().create({ owner_id: alice.id, agent_name: 'weather' })
    await threads().append(thread.id, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Lyon?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'Lyon' } },
          { id: 'c2', name: 'get_time', arguments: {}, invalid_arguments: { raw: '{oops', message: 'Malformed JSON' } },
        ],
        model: { provider: 'mock', model: 'mock' },
        usage: { input_tokens: 12, output_tokens: 5 },
      },
      { role: 'tool', tool_call_id: 'c1', name: 'get_weather', content: '{"temp":21}' },
      { role: 'tool', tool_call_id: 'c2', name: 'get_time', content: 'Malformed JSON', is_error: true },
      { role: 'assistant', content: 'Sunny, 21.', model: { provider: 'openai', model: 'gpt-x' }, usage: { input_tokens: 30, output_tokens: 4 } },
    ])
    const res = await t.request('GET', `/api/threads/${thread.id}`, { token: alice.token })
    expect(res.status).toBe(200)
    const none = { tool_calls: null, tool_result: null, model: null, usage: null, metadata: null }
    expect(res.body.messages.map(({ id, created_at, ...rest }: any) => rest)).toEqual([
      { role: 'system', content: 'Be brief.', ...none },
      { role: 'user', content: 'Weather in Lyon?', ...none },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'Lyon' } },
          { id: 'c2', name: 'get_time', arguments: {}, invalid_arguments: { raw: '{oops', message: 'Malformed JSON' } },
        ],
        tool_result: null,
        model: { provider: 'mock', model: 'mock' },
        usage: { input_tokens: 12, output_tokens: 5 },
        metadata: null,
      },
      { role: 'tool', content: '{"temp":21}', ...none, tool_result: { tool_call_id: 'c1', name: 'get_weather', is_error: false } },
      { role: 'tool', content: 'Malformed JSON', ...none, tool_result: { tool_call_id: 'c2', name: 'get_time', is_error: true } },
      {
        role: 'assistant',
        content: 'Sunny, 21.',
        tool_calls: null,
        tool_result: null,
        model: { provider: 'openai', model: 'gpt-x' },
        usage: { input_tokens: 30, output_tokens: 4 },
        metadata: null,
      },
    ])
    // Read back for a model: the same conversation in provider messages.
    expect(await threads().history(thread.id, 50)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Lyon?' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', name: 'get_weather', arguments: { city: 'Lyon' } },
          { id: 'c2', name: 'get_time', arguments: {}, invalid_arguments: { raw: '{oops', message: 'Malformed JSON' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', name: 'get_weather', content: '{"temp":21}' },
      { role: 'tool', tool_call_id: 'c2', name: 'get_time', content: 'Malformed JSON', is_error: true },
      { role: 'assistant', content: 'Sunny, 21.' },
    ])
    // A window that would start with a tool result leaves it out: a result without its call is refused by providers.
    expect((await threads().history(thread.id, 3)).map((m) => m.role)).toEqual(['assistant'])
  })

  test('a long thread reads whole and in order across read pages; a model reads the latest messages within the budget', async () => {
    const thread = await threads().create({ owner_id: alice.id })
    // 25 messages of 90,000 characters (more than three read pages); each says its number first.
    const big = (n: number) => `${String(n).padStart(2, '0')} ${'x'.repeat(90_000 - 3)}`
    for (let n = 0; n < 25; n++) await threads().append(thread.id, [{ role: n % 2 ? 'assistant' : 'user', content: big(n) }])
    const res = await t.request('GET', `/api/threads/${thread.id}`, { token: alice.token })
    expect(res.status).toBe(200)
    expect(res.body.messages.map((m: any) => m.content.slice(0, 2))).toEqual(Array.from({ length: 25 }, (_, n) => String(n).padStart(2, '0')))
    // 400,000 characters hold four of them: the window is the latest four, oldest first; the message limit still applies.
    expect(HISTORY_MAX_CHARS).toBe(400_000)
    expect((await threads().history(thread.id, 50)).map((m) => m.content.slice(0, 2))).toEqual(['21', '22', '23', '24'])
    expect((await threads().history(thread.id, 2)).map((m) => m.content.slice(0, 2))).toEqual(['23', '24'])
    // A newest message larger than the budget is still read: the model always gets the message it answers.
    await threads().append(thread.id, [{ role: 'user', content: 'y'.repeat(HISTORY_MAX_CHARS + 1) }])
    expect((await threads().history(thread.id, 50)).map((m) => m.content.length)).toEqual([HISTORY_MAX_CHARS + 1])
  })

  test("another member's thread is 404, an admin may read it, an unknown id is 404", async () => {
    const thread = await threads().create({ owner_id: alice.id })
    for (const path of [`/api/threads/${thread.id}`, '/api/threads/no-such-thread']) {
      const res = await t.request('GET', path, { token: bob.token })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Thread not found' })
    }
    expect((await t.request('GET', `/api/threads/${thread.id}`, { token: adminToken })).body.owner_id).toBe(alice.id)
    expect((await t.request('GET', '/api/threads/no-such-thread', { token: adminToken })).status).toBe(404)
  })

  test('appending to an unknown thread or with an unknown role is refused', async () => {
    await expect(threads().append('missing', [{ role: 'user', content: 'x' }])).rejects.toMatchObject({ kind: 'not_found' })
    const thread = await threads().create({ owner_id: alice.id })
    await expect(threads().append(thread.id, [{ role: 'robot', content: 'x' } as never])).rejects.toMatchObject({ kind: 'invalid_input' })
    expect((await t.request('GET', `/api/threads/${thread.id}`, { token: alice.token })).body.messages).toEqual([])
  })
})

describe('DELETE /api/threads/{id}', () => {
  test('the owner deletes (204), the thread and its messages are gone; a second delete is 404', async () => {
    const thread = await threads().create({ owner_id: alice.id })
    await threads().append(thread.id, [{ role: 'user', content: 'bye' }])
    const res = await t.request('DELETE', `/api/threads/${thread.id}`, { token: alice.token })
    expect(res.status).toBe(204)
    expect((await t.request('GET', `/api/threads/${thread.id}`, { token: alice.token })).status).toBe(404)
    expect(await t.sql.get('SELECT count(*) AS n FROM thread_messages WHERE thread_id = ?', thread.id)).toEqual({ n: 0 })
    expect((await t.request('DELETE', `/api/threads/${thread.id}`, { token: alice.token })).status).toBe(404)
  })

  test("another member or an admin cannot delete someone's thread (404), and it stays", async () => {
    const thread = await threads().create({ owner_id: alice.id })
    for (const token of [bob.token, adminToken]) {
      const res = await t.request('DELETE', `/api/threads/${thread.id}`, { token })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Thread not found' })
    }
    expect((await t.request('GET', `/api/threads/${thread.id}`, { token: alice.token })).status).toBe(200)
    expect((await t.request('DELETE', '/api/threads/x')).status).toBe(401)
  })

  test('an append task whose thread was deleted starts a new one at its next run and points to it', async () => {
    const task = (await t.request('POST', '/api/task', { token: alice.token, body: { name: 'Daily', prompt: 'Summarise', thread_policy: 'append' } })).body
    const first = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await t.server.modules.tasks.scheduler.idle()
    expect((await t.request('DELETE', `/api/threads/${first.thread_id}`, { token: alice.token })).status).toBe(204)
    const second = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await t.server.modules.tasks.scheduler.idle()
    expect(second.thread_id).not.toBe(first.thread_id)
    const thread = (await t.request('GET', `/api/threads/${second.thread_id}`, { token: alice.token })).body
    // A fresh conversation: no history from the deleted thread reached the model.
    expect(thread.messages.map((m: any) => m.role)).toEqual(['user', 'assistant'])
    expect(thread.messages[1].content).toContain('Turn 1.')
    expect(thread).toMatchObject({ task_id: task.id, title: 'Daily' })
    expect((await t.request('GET', `/api/task/${task.id}`, { token: alice.token })).body.thread_id).toBe(second.thread_id)
  })
})

describe('a thread deleted while its run is in flight', () => {
  let fake: FakeServer
  beforeAll(() => {
    fake = startFakeServer('openai')
  })
  afterAll(() => fake.close())

  test('the run still succeeds; its reply is not written anywhere', async () => {
    await t.close()
    t = await startTestServer({ now: NOW, env: { AGENTBOX_OPENAI_BASE_URL: fake.url, AGENTBOX_OPENAI_API_KEY: 'k' } })
    ;({ adminToken } = await t.provision())
    alice = await t.createUser(adminToken, { email: 'alice@example.com' })
    fake.behave({ hang: true })
    const task = (
      await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', chat_model: { provider: 'openai', model: 'm' } } })
    ).body
    const arrived = fake.nextRequest()
    const run = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await arrived
    expect((await t.request('DELETE', `/api/threads/${run.thread_id}`, { token: alice.token })).status).toBe(204)
    fake.release('late reply')
    await t.server.modules.tasks.scheduler.idle()
    const runs = (await t.request('GET', `/api/task/${task.id}/runs`, { token: alice.token })).body
    expect(runs[0]).toMatchObject({ status: 'succeeded', error: null })
    expect(await t.sql.get('SELECT count(*) AS n FROM threads')).toEqual({ n: 0 })
  })
})

describe('migration 0014', () => {
  let dir: string | undefined
  afterEach(async () => {
    if (dir) {
      rmSync(dir, { recursive: true, force: true })
      await dropTestDatabase(dir)
    }
    dir = undefined
  })

  test('task threads written under the old schema come through whole, titled after their task', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentbox-threads-'))
    const handle = openDatabase(await emptyTestDatabase(dir))
    const sql = testSql(handle.db, handle.kind)
    // The database as an instance that had not yet applied 0014.
    const before = Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < '0014_threads'))
    await migrateToLatest(handle, join(dir, 'backups'), 0, before)
    await sql.run(
      `INSERT INTO users (id, kind, email, name, role, password_hash, active, session_version, created_at, updated_at) VALUES ('u1', 'person', 'a@example.com', 'A', 'member', NULL, 1, 0, ?, ?)`,
      NOW,
      NOW,
    )
    await sql.run(
      `INSERT INTO tasks (id, name, prompt, creator_id, created_by, visibility, frequency, timezone, state, thread_policy, created_at, updated_at)
       VALUES ('t1', 'Morning report', 'Report', 'u1', 'a@example.com', 'private', 'manual', 'UTC', 'enabled', 'append', ?, ?)`,
      NOW,
      NOW,
    )
    await sql.run(`INSERT INTO threads (id, owner_id, task_id, created_at, updated_at) VALUES ('th1', 'u1', 't1', ?, ?)`, NOW, NOW)
    await sql.run(`INSERT INTO threads (id, owner_id, task_id, created_at, updated_at) VALUES ('th2', 'u1', 'gone-task', ?, ?)`, NOW, NOW)
    const insert = (...values: string[]) => sql.run(`INSERT INTO thread_messages (id, thread_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)`, ...values)
    await insert('m1', 'th1', 'user', 'Report', NOW)
    await insert('m2', 'th1', 'assistant', 'All quiet.', NOW)
    await insert('m3', 'th2', 'user', 'Old prompt', NOW)

    await migrateToLatest(handle, join(dir, 'backups'), 0)
    expect(await sql.all('SELECT id, owner_id, task_id, agent_name, title FROM threads ORDER BY id')).toEqual([
      { id: 'th1', owner_id: 'u1', task_id: 't1', agent_name: null, title: 'Morning report' },
      { id: 'th2', owner_id: 'u1', task_id: 'gone-task', agent_name: null, title: null },
    ])
    expect(await sql.all('SELECT * FROM thread_messages ORDER BY id')).toEqual([
      {
        id: 'm1',
        thread_id: 'th1',
        role: 'user',
        content: 'Report',
        tool_calls: null,
        tool_result: null,
        model_provider: null,
        model_name: null,
        input_tokens: null,
        output_tokens: null,
        metadata: null,
        created_at: NOW,
      },
      {
        id: 'm2',
        thread_id: 'th1',
        role: 'assistant',
        content: 'All quiet.',
        tool_calls: null,
        tool_result: null,
        model_provider: null,
        model_name: null,
        input_tokens: null,
        output_tokens: null,
        metadata: null,
        created_at: NOW,
      },
      {
        id: 'm3',
        thread_id: 'th2',
        role: 'user',
        content: 'Old prompt',
        tool_calls: null,
        tool_result: null,
        model_provider: null,
        model_name: null,
        input_tokens: null,
        output_tokens: null,
        metadata: null,
        created_at: NOW,
      },
    ])
    // The new roles fit; anything else is still refused; deleting a thread still takes its messages.
    await sql.run(`INSERT INTO thread_messages (id, thread_id, role, content, created_at) VALUES ('m4', 'th1', 'tool', '{}', ?)`, NOW)
    expect(sql.run(`INSERT INTO thread_messages (id, thread_id, role, content, created_at) VALUES ('m5', 'th1', 'robot', 'x', ?)`, NOW)).rejects.toThrow()
    await sql.run(`DELETE FROM threads WHERE id = 'th1'`)
    expect(await sql.get('SELECT count(*) AS n FROM thread_messages')).toEqual({ n: 1 })
    const indexes =
      handle.kind === 'sqlite'
        ? `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('threads', 'thread_messages') AND name NOT LIKE 'sqlite_%' ORDER BY name`
        : `SELECT indexname AS name FROM pg_indexes WHERE tablename IN ('threads', 'thread_messages') AND indexname NOT LIKE '%_pkey' ORDER BY indexname`
    expect(await sql.all(indexes)).toEqual([{ name: 'thread_messages_thread' }, { name: 'threads_owner_agent' }, { name: 'threads_owner_updated' }])
    await handle.close()
  })
})
