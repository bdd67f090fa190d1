// Task API (CONTRACT §7): create with defaults, the spec's GET with every field, list, update, delete, run now, runs, threads; bad input and permissions.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

const NOW = '2026-03-02T08:00:00.000Z' // a Monday

let t: TestServer
let adminToken: string
let orgToken: string
let alice: { id: string; token: string }
let bob: { id: string; token: string }
beforeEach(async () => {
  t = await startTestServer({ now: NOW })
  ;({ adminToken, orgToken } = await t.provision())
  alice = await t.createUser(adminToken, { email: 'alice@example.com' })
  bob = await t.createUser(adminToken, { email: 'bob@example.com' })
})
afterEach(() => t.close())

const scheduler = () => t.server.modules.tasks.scheduler
const create = async (token: string, body: Record<string, unknown> = {}) => {
  const res = await t.request('POST', '/api/task', { token, body: { name: 'Morning brief', prompt: 'Summarise my day', ...body } })
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}
const locs = (body: any) => body.detail.map((d: any) => d.loc.join('.')).sort()
/** A published agent of `token`'s, for tasks that name one (agent_id is checked against the agents the caller may use). */
const agentOf = async (token: string, name = 'planner') => {
  const res = await t.request('POST', '/api/agents', { token, body: { name, description: 'Plans', instructions: 'Plan well.' } })
  if (res.status !== 201) throw new Error(`agent create failed: ${res.status} ${JSON.stringify(res.body)}`)
  await t.request('POST', `/api/agents/${name}/publish`, { token, body: {} })
  return res.body.id as string
}

describe('POST /api/task', () => {
  test('creates a task (201) with the contract defaults and every spec field', async () => {
    const res = await t.request('POST', '/api/task', { token: alice.token, body: { name: 'Morning brief', prompt: 'Summarise my day' } })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Morning brief',
      prompt: 'Summarise my day',
      created_by: 'alice@example.com',
      agent_id: null,
      chat_model: null,
      mentions: [],
      visibility: 'private',
      schedule: { frequency: 'manual', hour: null, day: null, timezone: 'UTC', cron: null },
      state: 'enabled',
      thread_policy: 'new_each_run',
      thread_id: null,
      next_run: null,
      last_run_at: null,
      last_run_status: null,
      last_run_thread_id: null,
      created_at: NOW,
      updated_at: NOW,
    })
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/)
  })

  test('stores everything it is given; next_run is the first slot in the task timezone, in UTC', async () => {
    const body = {
      name: 'Weekly',
      prompt: 'Plan the week',
      agent_id: await agentOf(alice.token),
      chat_model: { provider: 'mock', model: 'mock-large' },
      mentions: [{ type: 'app', id: 'crm' }],
      visibility: 'public',
      schedule: { frequency: 'weekly', day: 'Wednesday', hour: '09:30', timezone: 'Europe/Berlin' },
      thread_policy: 'append',
    }
    const task = await create(alice.token, body)
    expect(task).toMatchObject({ ...body, schedule: { frequency: 'weekly', day: 'wednesday', hour: '09:30', timezone: 'Europe/Berlin', cron: null } })
    expect(task.next_run).toBe('2026-03-04T08:30:00.000Z')
    expect((await t.request('GET', `/api/task/${task.id}`, { token: alice.token })).body).toEqual(task)
  })

  test("chat_model without a model takes the default provider's default model", async () => {
    expect((await create(alice.token, { chat_model: { provider: 'mock' } })).chat_model).toEqual({ provider: 'mock', model: 'mock' })
  })

  test('disabled and manual tasks have no next_run', async () => {
    expect((await create(alice.token, { state: 'disabled', schedule: { frequency: 'daily', hour: '10:00' } })).next_run).toBeNull()
    expect((await create(alice.token, { schedule: { frequency: 'manual', hour: '10:00' } })).next_run).toBeNull()
  })

  test('missing name and prompt are 422 missing, each named', async () => {
    const res = await t.request('POST', '/api/task', { token: alice.token, body: {} })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'prompt'], msg: 'Field required', type: 'missing' },
    ])
    expect((await t.request('POST', '/api/task', { token: alice.token, body: { name: '', prompt: 'x' } })).body.detail[0]).toMatchObject({
      loc: ['body', 'name'],
      type: 'string_too_short',
    })
  })

  test('bad visibility, state, thread_policy and frequency are literal_error, all reported', async () => {
    const res = await t.request('POST', '/api/task', {
      token: alice.token,
      body: { name: 'n', prompt: 'p', visibility: 'secret', state: 'paused', thread_policy: 'reuse', schedule: { frequency: 'yearly' } },
    })
    expect(res.status).toBe(422)
    expect(locs(res.body)).toEqual(['body.schedule.frequency', 'body.state', 'body.thread_policy', 'body.visibility'])
    expect(res.body.detail.every((d: any) => d.type === 'literal_error')).toBe(true)
    expect(res.body.detail.find((d: any) => d.loc[1] === 'visibility').msg).toBe("Input should be 'private' or 'public'")
  })

  test('25:99, an unknown timezone and a malformed cron are 422s naming the field', async () => {
    const res = await t.request('POST', '/api/task', {
      token: alice.token,
      body: { name: 'n', prompt: 'p', schedule: { frequency: 'daily', hour: '25:99', timezone: 'Mars/Olympus_Mons', cron: '61 * * * *' } },
    })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ['body', 'schedule', 'hour'], msg: 'Hour must be HH:MM on a 24-hour clock (00:00 to 23:59)', type: 'value_error', input: '25:99' },
      {
        loc: ['body', 'schedule', 'timezone'],
        msg: 'Unknown time zone: use an IANA name such as UTC or Europe/Berlin',
        type: 'value_error',
        input: 'Mars/Olympus_Mons',
      },
      { loc: ['body', 'schedule', 'cron'], msg: 'Invalid cron expression: Invalid value for minute: 61', type: 'value_error', input: '61 * * * *' },
    ])
  })

  test('schedule fields a frequency needs are required, and each kind of bad value is explained', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ frequency: 'daily' }, 'hour', 'Field required for a daily schedule (HH:MM)'],
      [{ frequency: 'weekly', hour: '09:00' }, 'day', 'Field required for a weekly schedule (monday to sunday)'],
      [{ frequency: 'weekly', hour: '09:00', day: 'funday' }, 'day', 'Day must be a weekday name, monday to sunday'],
      [
        { frequency: 'monthly', hour: '09:00', day: '32' },
        'day',
        'Day must be a day of the month, "1" to "31" (days past the month\'s end run on its last day)',
      ],
      [
        { frequency: 'monthly', hour: '09:00', day: 'monday' },
        'day',
        'Day must be a day of the month, "1" to "31" (days past the month\'s end run on its last day)',
      ],
      [{ frequency: 'cron' }, 'cron', 'Field required for a cron schedule (5 or 6 fields)'],
      [{ frequency: 'cron', cron: '* * *' }, 'cron', 'Cron expression must have 5 fields (minute hour day month weekday) or 6 (seconds first)'],
      [{ frequency: 'cron', cron: '@daily' }, 'cron', 'Cron expression must have 5 fields (minute hour day month weekday) or 6 (seconds first)'],
      [{ frequency: 'cron', cron: '0 0 31 2 *' }, 'cron', 'Cron expression never fires'],
      [{ frequency: 'hourly', hour: '9:00' }, 'hour', 'Hour must be HH:MM on a 24-hour clock (00:00 to 23:59)'],
      [{ frequency: 'daily', hour: '10:00', timezone: '+02:00' }, 'timezone', 'Unknown time zone: use an IANA name such as UTC or Europe/Berlin'],
    ]
    for (const [schedule, field, msg] of cases) {
      const res = await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', schedule } })
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'schedule', field], msg })])
    }
  })

  test('an unconfigured or unknown provider is 422 on chat_model.provider', async () => {
    for (const provider of ['openai', 'anthropic', 'gemini']) {
      const res = await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', chat_model: { provider, model: 'x' } } })
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([
        {
          loc: ['body', 'chat_model', 'provider'],
          msg: `Model provider "${provider}" is not configured on this server (configured: mock)`,
          type: 'value_error',
          input: provider,
        },
      ])
    }
  })

  test("thread_id must be one of the creator's own threads", async () => {
    const res = await t.request('POST', '/api/task', { token: alice.token, body: { name: 'n', prompt: 'p', thread_id: 'no-such-thread' } })
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'thread_id'], type: 'value_error' })])
  })

  test('anonymous callers get 401 before any validation', async () => {
    expect((await t.request('POST', '/api/task', { body: {} })).status).toBe(401)
  })
})

describe('visibility and permissions', () => {
  test("another member's private task is 404 on every route; a public one is readable but 403 to edit", async () => {
    const secret = await create(alice.token)
    const shared = await create(alice.token, { visibility: 'public' })
    for (const [method, path, body] of [
      ['GET', ''],
      ['PATCH', '', { name: 'x' }],
      ['DELETE', ''],
      ['POST', '/run'],
      ['GET', '/runs'],
    ] as const) {
      const res = await t.request(method, `/api/task/${secret.id}${path}`, { token: bob.token, body })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Task not found' })
    }
    expect((await t.request('GET', `/api/task/${shared.id}`, { token: bob.token })).status).toBe(200)
    expect((await t.request('GET', `/api/task/${shared.id}/runs`, { token: bob.token })).status).toBe(200)
    for (const [method, path, body] of [
      ['PATCH', '', { name: 'x' }],
      ['DELETE', ''],
      ['POST', '/run'],
    ] as const) {
      const res = await t.request(method, `/api/task/${shared.id}${path}`, { token: bob.token, body })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ detail: 'Only the creator of this task or an admin may change it' })
    }
  })

  test("admins (and the org token) see and edit anyone's task", async () => {
    const secret = await create(alice.token)
    expect((await t.request('GET', `/api/task/${secret.id}`, { token: adminToken })).status).toBe(200)
    expect((await t.request('PATCH', `/api/task/${secret.id}`, { token: orgToken, body: { name: 'Renamed by org' } })).body.name).toBe('Renamed by org')
    expect((await t.request('DELETE', `/api/task/${secret.id}`, { token: adminToken })).status).toBe(204)
  })

  test('unknown ids are 404 Task not found', async () => {
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/run'],
      ['GET', '/runs'],
    ] as const) {
      const res = await t.request(method, `/api/task/nope${path}`, { token: adminToken, body: method === 'PATCH' ? { name: 'x' } : undefined })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ detail: 'Task not found' })
    }
  })
})

describe('GET /api/tasks', () => {
  test("lists mine plus public ones, newest first; others' private tasks are left out", async () => {
    const a1 = await create(alice.token, { name: 'a1' })
    t.clock.advance(1000)
    const b1 = await create(bob.token, { name: 'b1' })
    t.clock.advance(1000)
    const b2 = await create(bob.token, { name: 'b2', visibility: 'public' })
    t.clock.advance(1000)
    const a2 = await create(alice.token, { name: 'a2', visibility: 'public' })
    const names = async (token: string, query = '') => (await t.request('GET', `/api/tasks${query}`, { token })).body.map((x: any) => x.name)
    expect(await names(alice.token)).toEqual(['a2', 'b2', 'a1'])
    expect(await names(bob.token)).toEqual(['a2', 'b2', 'b1'])
    expect(await names(adminToken)).toEqual(['a2', 'b2'])
    expect(await names(adminToken, '?all=true')).toEqual(['a2', 'b2', 'b1', 'a1'])
    expect(await names(alice.token, '?limit=1&offset=1')).toEqual(['b2'])
    expect([a1, b1, b2, a2].every((x) => x.created_by.endsWith('@example.com'))).toBe(true)
  })

  test('all=true is for admins only; bad paging is 422', async () => {
    expect((await t.request('GET', '/api/tasks?all=true', { token: alice.token })).status).toBe(403)
    const res = await t.request('GET', '/api/tasks?limit=0', { token: alice.token })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['query', 'limit'])
  })
})

describe('PATCH /api/task/{task_id}', () => {
  test('changes only what is given, merges schedule fields, and takes effect in the scheduler at once', async () => {
    const task = await create(alice.token, { schedule: { frequency: 'daily', hour: '09:00', timezone: 'UTC' } })
    expect(task.next_run).toBe('2026-03-02T09:00:00.000Z')
    expect(scheduler().nextRunOf(task.id)).toBe(Date.parse('2026-03-02T09:00:00.000Z'))
    t.clock.advance(60_000)
    const res = await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { schedule: { hour: '08:30' }, prompt: 'New prompt' } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      name: 'Morning brief',
      prompt: 'New prompt',
      schedule: { frequency: 'daily', hour: '08:30', timezone: 'UTC' },
      next_run: '2026-03-02T08:30:00.000Z',
      updated_at: '2026-03-02T08:01:00.000Z',
      created_at: NOW,
    })
    expect(scheduler().nextRunOf(task.id)).toBe(Date.parse('2026-03-02T08:30:00.000Z'))
  })

  test('disabling clears next_run and removes the job; enabling brings both back', async () => {
    const task = await create(alice.token, { schedule: { frequency: 'hourly', hour: '00:15' } })
    const disabled = await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { state: 'disabled' } })
    expect(disabled.body).toMatchObject({ state: 'disabled', next_run: null })
    expect(scheduler().nextRunOf(task.id)).toBeUndefined()
    const enabled = await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { state: 'enabled' } })
    expect(enabled.body.next_run).toBe('2026-03-02T08:15:00.000Z')
    expect(scheduler().nextRunOf(task.id)).toBe(Date.parse('2026-03-02T08:15:00.000Z'))
    const manual = await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { schedule: { frequency: 'manual' } } })
    expect(manual.body.next_run).toBeNull()
    expect(scheduler().nextRunOf(task.id)).toBeUndefined()
  })

  test('renaming does not move next_run; null clears agent_id and chat_model', async () => {
    const task = await create(alice.token, {
      agent_id: await agentOf(alice.token),
      chat_model: { provider: 'mock', model: 'm' },
      schedule: { frequency: 'daily', hour: '09:00' },
    })
    t.clock.advance(2 * 3600_000)
    const res = await t.request('PATCH', `/api/task/${task.id}`, { token: alice.token, body: { name: 'Renamed', agent_id: null, chat_model: null } })
    expect(res.body).toMatchObject({ name: 'Renamed', agent_id: null, chat_model: null, next_run: task.next_run })
  })

  test('validates like create: a frequency that needs a missing field, a bad timezone, an unconfigured provider', async () => {
    const task = await create(alice.token)
    const res = await t.request('PATCH', `/api/task/${task.id}`, {
      token: alice.token,
      body: { schedule: { frequency: 'weekly', timezone: 'Nowhere/City' }, chat_model: { provider: 'openai' }, visibility: 'everyone' },
    })
    expect(res.status).toBe(422)
    expect(locs(res.body)).toEqual(['body.visibility'])
    const semantic = await t.request('PATCH', `/api/task/${task.id}`, {
      token: alice.token,
      body: { schedule: { frequency: 'weekly', timezone: 'Nowhere/City' }, chat_model: { provider: 'openai' } },
    })
    expect(locs(semantic.body)).toEqual(['body.chat_model.provider', 'body.schedule.day', 'body.schedule.hour', 'body.schedule.timezone'])
    expect((await t.request('GET', `/api/task/${task.id}`, { token: alice.token })).body).toEqual(task)
  })
})

describe('DELETE /api/task/{task_id}', () => {
  test('answers 204, removes the task, its runs and its job; its threads stay with their owner', async () => {
    const task = await create(alice.token, { schedule: { frequency: 'daily', hour: '09:00' } })
    const run = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await scheduler().idle()
    const res = await t.request('DELETE', `/api/task/${task.id}`, { token: alice.token })
    expect(res.status).toBe(204)
    expect(scheduler().nextRunOf(task.id)).toBeUndefined()
    expect((await t.request('GET', `/api/task/${task.id}`, { token: alice.token })).status).toBe(404)
    expect(await t.sql.get('SELECT count(*) AS n FROM task_runs WHERE task_id = ?', task.id)).toEqual({ n: 0 })
    expect((await t.request('GET', `/api/threads/${run.thread_id}`, { token: alice.token })).status).toBe(200)
    expect((await t.request('DELETE', `/api/task/${task.id}`, { token: alice.token })).status).toBe(404)
  })
})

describe('POST /api/task/{task_id}/run and GET …/runs', () => {
  test('answers 202 with the run as started, then the run succeeds and the task records it', async () => {
    const task = await create(alice.token)
    const res = await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({
      id: expect.any(String),
      task_id: task.id,
      status: 'running',
      trigger: 'manual',
      scheduled_for: null,
      thread_id: expect.any(String),
      started_at: NOW,
      finished_at: null,
      error: null,
    })
    await scheduler().idle()
    const runs = await t.request('GET', `/api/task/${task.id}/runs`, { token: alice.token })
    expect(runs.body).toEqual([{ ...res.body, status: 'succeeded', finished_at: NOW }])
    const after = (await t.request('GET', `/api/task/${task.id}`, { token: alice.token })).body
    expect(after).toMatchObject({ last_run_at: NOW, last_run_status: 'succeeded', last_run_thread_id: res.body.thread_id, thread_id: null })
  })

  test('a disabled task can still be run by hand', async () => {
    const task = await create(alice.token, { state: 'disabled' })
    expect((await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).status).toBe(202)
  })

  test('runs are listed newest first with paging', async () => {
    const task = await create(alice.token)
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      ids.push((await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body.id)
      await scheduler().idle()
      t.clock.advance(1000)
    }
    const all = (await t.request('GET', `/api/task/${task.id}/runs`, { token: alice.token })).body
    expect(all.map((r: any) => r.id)).toEqual(ids.reverse())
    expect((await t.request('GET', `/api/task/${task.id}/runs?limit=1&offset=1`, { token: alice.token })).body.map((r: any) => r.id)).toEqual([ids[1]])
  })
})

describe('threads', () => {
  test('new_each_run gives every run its own thread with the prompt and the mock reply', async () => {
    const task = await create(alice.token)
    const first = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await scheduler().idle()
    const second = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await scheduler().idle()
    expect(first.thread_id).not.toBe(second.thread_id)
    const thread = await t.request('GET', `/api/threads/${second.thread_id}`, { token: alice.token })
    expect(thread.status).toBe(200)
    // Today's fields ({id, task_id, messages: [{role, content, created_at}]}) plus the thread module's.
    const reply = '[mock reply] This answer comes from the built-in mock model "mock", not a real one. Turn 1. You said: "Summarise my day"'
    expect(thread.body).toEqual({
      id: second.thread_id,
      owner_id: thread.body.owner_id,
      title: task.name,
      agent_name: null,
      task_id: task.id,
      created_at: NOW,
      updated_at: NOW,
      messages: [
        {
          id: expect.any(String),
          role: 'user',
          content: 'Summarise my day',
          created_at: NOW,
          tool_calls: null,
          tool_result: null,
          model: null,
          usage: null,
          metadata: null,
        },
        {
          id: expect.any(String),
          role: 'assistant',
          content: reply,
          created_at: NOW,
          tool_calls: null,
          tool_result: null,
          model: { provider: 'mock', model: 'mock' },
          usage: { input_tokens: Math.ceil('Summarise my day'.length / 4), output_tokens: Math.ceil(reply.length / 4) },
          metadata: null,
        },
      ],
    })
  })

  test('append keeps one thread for the task, sends its history, and shows it as thread_id', async () => {
    const task = await create(alice.token, { thread_policy: 'append' })
    const first = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await scheduler().idle()
    const second = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await scheduler().idle()
    expect(second.thread_id).toBe(first.thread_id)
    const thread = (await t.request('GET', `/api/threads/${first.thread_id}`, { token: alice.token })).body
    expect(thread.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(thread.messages[3].content).toContain('Turn 2.')
    expect((await t.request('GET', `/api/task/${task.id}`, { token: alice.token })).body.thread_id).toBe(first.thread_id)
  })

  test("an append task can continue one of its creator's existing threads", async () => {
    const earlier = await create(alice.token)
    const run = (await t.request('POST', `/api/task/${earlier.id}/run`, { token: alice.token })).body
    await scheduler().idle()
    const task = await create(alice.token, { thread_policy: 'append', thread_id: run.thread_id })
    expect((await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body.thread_id).toBe(run.thread_id)
    await scheduler().idle()
    const bobs = await t.request('POST', '/api/task', { token: bob.token, body: { name: 'n', prompt: 'p', thread_id: run.thread_id } })
    expect(bobs.status).toBe(422)
  })

  test("a thread is its owner's: another member gets 404 even for a public task's run; an admin may read it", async () => {
    const task = await create(alice.token, { visibility: 'public' })
    const run = (await t.request('POST', `/api/task/${task.id}/run`, { token: alice.token })).body
    await scheduler().idle()
    const res = await t.request('GET', `/api/threads/${run.thread_id}`, { token: bob.token })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ detail: 'Thread not found' })
    expect((await t.request('GET', `/api/threads/${run.thread_id}`, { token: adminToken })).status).toBe(200)
    expect((await t.request('GET', '/api/threads/nope', { token: alice.token })).status).toBe(404)
  })
})

describe('health and OpenAPI', () => {
  test('/api/health reports the scheduler with one job per scheduled, enabled task', async () => {
    await create(alice.token, { schedule: { frequency: 'daily', hour: '09:00' } })
    await create(alice.token, { schedule: { frequency: 'cron', cron: '*/5 * * * *' } })
    await create(alice.token)
    await create(alice.token, { state: 'disabled', schedule: { frequency: 'daily', hour: '09:00' } })
    const health = await t.request('GET', '/api/health')
    expect(health.body.checks.scheduler).toEqual({ status: 'pass', jobs: 2, leader: true })
  })

  test('every task route is in the OpenAPI document with its schemas', async () => {
    const { body } = await t.request('GET', '/api/openapi.json')
    for (const path of ['/api/task', '/api/tasks', '/api/task/{task_id}', '/api/task/{task_id}/run', '/api/task/{task_id}/runs', '/api/threads/{id}'])
      expect(body.paths).toHaveProperty([path])
    const get = body.paths['/api/task/{task_id}'].get
    expect(Object.keys(get.responses['200'].content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining([
        'id',
        'name',
        'prompt',
        'created_by',
        'agent_id',
        'chat_model',
        'mentions',
        'visibility',
        'schedule',
        'state',
        'thread_policy',
        'thread_id',
        'next_run',
        'last_run_at',
        'last_run_status',
        'last_run_thread_id',
      ]),
    )
    expect(body.paths['/api/task'].post.requestBody.content['application/json'].schema.required.sort()).toEqual(['name', 'prompt'])
  })
})

test('the admin e-mail is created_by for tasks an admin creates', async () => {
  expect((await create(adminToken)).created_by).toBe(ADMIN.email)
})
