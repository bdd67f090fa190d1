// The scheduler through the real server with a hand-moved clock: slots fire once, catch-up after downtime, no overlap, provider failures, restarts.
import { isUniqueViolation } from '../../src/platform/db/unique-violation.ts'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer } from '../helpers/server.ts'
import { startFakeServer, type FakeServer } from '../llm/fake-servers.ts'

const KEY = 'sk-scheduler-test-secret-42'

async function boot(env: Record<string, string> = {}, now = '2026-03-02T08:00:00.000Z', shutdownGraceMs?: number) {
  const t = await startTestServer({ now, env, shutdownGraceMs })
  const { adminToken } = await t.provision()
  const member = await t.createUser(adminToken, { email: 'member@example.com' })
  // A personal API token does not expire when a test moves the clock by days.
  const token = (await t.request('POST', '/api/auth/tokens', { token: member.token, body: { name: 'tests' } })).body.token as string
  const scheduler = () => t.server.modules.tasks.scheduler
  const create = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/task', { token, body: { name: 'Digest', prompt: 'What changed?', ...body } })
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }
  const get = async (id: string) => (await t.request('GET', `/api/task/${id}`, { token })).body
  const runs = async (id: string) => (await t.request('GET', `/api/task/${id}/runs`, { token })).body as any[]
  return { t, token, scheduler, create, get, runs }
}

describe('scheduled runs', () => {
  let s: Awaited<ReturnType<typeof boot>>
  afterEach(() => s.t.close())

  test('a slot runs when the clock reaches it, not a millisecond before, and next_run moves on', async () => {
    s = await boot()
    const task = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    s.t.clock.set('2026-03-02T08:59:59.999Z')
    expect(await s.scheduler().runDue()).toBe(0)
    s.t.clock.set('2026-03-02T09:00:00.000Z')
    expect(await s.scheduler().runDue()).toBe(1)
    const [run] = await s.runs(task.id)
    expect(run).toMatchObject({
      status: 'succeeded',
      trigger: 'schedule',
      scheduled_for: '2026-03-02T09:00:00.000Z',
      started_at: '2026-03-02T09:00:00.000Z',
      error: null,
    })
    expect(await s.get(task.id)).toMatchObject({
      next_run: '2026-03-03T09:00:00.000Z',
      last_run_at: '2026-03-02T09:00:00.000Z',
      last_run_status: 'succeeded',
      last_run_thread_id: run.thread_id,
    })
    expect(s.scheduler().nextRunOf(task.id)).toBe(Date.parse('2026-03-03T09:00:00.000Z'))
  })

  test('ticking again in the same instant starts nothing: a slot runs once', async () => {
    s = await boot()
    const task = await s.create({ schedule: { frequency: 'cron', cron: '*/5 * * * *' } })
    s.t.clock.set('2026-03-02T08:05:00.000Z')
    expect(s.scheduler().tick() + s.scheduler().tick()).toBe(1)
    await s.scheduler().idle()
    expect(await s.scheduler().runDue()).toBe(0)
    expect(await s.runs(task.id)).toHaveLength(1)
  })

  test('the database refuses a second run of the same slot, whatever the scheduler does', async () => {
    s = await boot()
    const task = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    s.t.clock.set('2026-03-02T09:00:00.000Z')
    await s.scheduler().runDue()
    const [run] = await s.runs(task.id)
    const refused = await s.t.sql
      .run(
        "INSERT INTO task_runs (id, task_id, status, \"trigger\", scheduled_for, thread_id, started_at) VALUES ('dup', ?, 'running', 'schedule', ?, 'x', 'now')",
        task.id,
        run.scheduled_for,
      )
      .then(
        () => null,
        (error: unknown) => error,
      )
    expect(isUniqueViolation(refused)).toBe(true)
  })

  test('many due tasks all start in one tick; a weekly one in another timezone waits for its own slot', async () => {
    s = await boot()
    const ids = []
    for (let i = 0; i < 20; i++) ids.push((await s.create({ name: `t${i}`, schedule: { frequency: 'hourly', hour: '00:30' } })).id)
    const weekly = await s.create({ schedule: { frequency: 'weekly', day: 'tuesday', hour: '09:00', timezone: 'America/New_York' } })
    expect(weekly.next_run).toBe('2026-03-03T14:00:00.000Z')
    s.t.clock.set('2026-03-02T08:30:00.000Z')
    expect(await s.scheduler().runDue()).toBe(20)
    for (const id of ids) expect((await s.get(id)).last_run_status).toBe('succeeded')
    expect(await s.runs(weekly.id)).toEqual([])
    s.t.clock.set('2026-03-03T14:00:00.000Z')
    expect(await s.scheduler().runDue()).toBe(21)
  })

  test('a task deleted or disabled before its slot does not run', async () => {
    s = await boot()
    const deleted = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    const disabled = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    await s.t.request('DELETE', `/api/task/${deleted.id}`, { token: s.token })
    await s.t.request('PATCH', `/api/task/${disabled.id}`, { token: s.token, body: { state: 'disabled' } })
    s.t.clock.set('2026-03-02T09:00:00.000Z')
    expect(await s.scheduler().runDue()).toBe(0)
    expect(await s.runs(disabled.id)).toEqual([])
  })
})

describe('restarts', () => {
  let s: Awaited<ReturnType<typeof boot>>
  afterEach(() => s.t.close())

  test('jobs are rebuilt from the database at boot', async () => {
    s = await boot()
    const a = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    await s.create({ schedule: { frequency: 'cron', cron: '0 12 * * *' } })
    await s.create({})
    await s.t.restart()
    expect((await s.t.request('GET', '/api/health')).body.checks.scheduler).toEqual({ status: 'pass', jobs: 2, leader: true })
    expect(s.scheduler().nextRunOf(a.id)).toBe(Date.parse('2026-03-02T09:00:00.000Z'))
  })

  test('slots missed while the server was down run once at boot (not once per slot), then the schedule continues', async () => {
    s = await boot()
    const daily = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    const hourly = await s.create({ schedule: { frequency: 'hourly', hour: '00:00' } })
    const later = await s.create({ schedule: { frequency: 'monthly', day: '31', hour: '09:00' } })
    await s.t.server.stop()
    s.t.clock.set('2026-03-05T10:20:00.000Z') // three days and many hours later
    await s.t.restart()
    await s.scheduler().idle()
    for (const [task, slot, next] of [
      [daily, '2026-03-02T09:00:00.000Z', '2026-03-06T09:00:00.000Z'],
      [hourly, '2026-03-02T09:00:00.000Z', '2026-03-05T11:00:00.000Z'],
    ] as const) {
      const runs = await s.runs(task.id)
      expect(runs).toHaveLength(1)
      expect(runs[0]).toMatchObject({ trigger: 'catch_up', scheduled_for: slot, status: 'succeeded', started_at: '2026-03-05T10:20:00.000Z' })
      expect((await s.get(task.id)).next_run).toBe(next)
    }
    expect(await s.runs(later.id)).toEqual([])
    expect((await s.get(later.id)).next_run).toBe('2026-03-31T09:00:00.000Z')
    expect(await s.scheduler().runDue()).toBe(0)
    await s.t.restart()
    await s.scheduler().idle()
    expect(await s.runs(daily.id)).toHaveLength(1)
  })

  test('a run left "running" by a crash is marked failed at boot, with its task', async () => {
    s = await boot()
    const task = await s.create({})
    const run = (await s.t.request('POST', `/api/task/${task.id}/run`, { token: s.token })).body
    await s.scheduler().idle()
    await s.t.sql.run("UPDATE task_runs SET status = 'running', finished_at = NULL WHERE id = ?", run.id)
    await s.t.sql.run("UPDATE tasks SET last_run_status = 'running' WHERE id = ?", task.id)
    await s.t.restart()
    expect((await s.runs(task.id))[0]).toMatchObject({ status: 'failed', error: 'Interrupted: the server stopped before the run finished' })
    expect((await s.get(task.id)).last_run_status).toBe('failed')
  })
})

describe('with a remote provider', () => {
  let fake: FakeServer
  let s: Awaited<ReturnType<typeof boot>>
  beforeAll(() => {
    fake = startFakeServer('openai')
  })
  afterAll(() => fake.close())
  afterEach(() => s.t.close())
  const env = (timeout = '10000') => ({ AGENTBOX_OPENAI_BASE_URL: fake.url, AGENTBOX_OPENAI_API_KEY: KEY, AGENTBOX_LLM_TIMEOUT_MS: timeout })

  test('chat_model picks the provider and model; the reply lands in the thread', async () => {
    s = await boot(env())
    fake.behave({ reply: 'Two new tickets.' })
    const task = await s.create({ chat_model: { provider: 'openai', model: 'gpt-test' } })
    const run = (await s.t.request('POST', `/api/task/${task.id}/run`, { token: s.token })).body
    await s.scheduler().idle()
    expect(fake.requests.at(-1)!.body).toMatchObject({ model: 'gpt-test', messages: [{ role: 'user', content: 'What changed?' }] })
    const thread = (await s.t.request('GET', `/api/threads/${run.thread_id}`, { token: s.token })).body
    expect(thread.messages.map((m: any) => m.content)).toEqual(['What changed?', 'Two new tickets.'])
  })

  test('never two runs of one task at once: run now is 409 and a slot that comes meanwhile is skipped', async () => {
    s = await boot(env())
    fake.behave({ hang: true })
    const task = await s.create({ chat_model: { provider: 'openai', model: 'slow' }, schedule: { frequency: 'cron', cron: '*/10 * * * *' } })
    const arrived = fake.nextRequest()
    const first = await s.t.request('POST', `/api/task/${task.id}/run`, { token: s.token })
    expect(first.status).toBe(202)
    await arrived
    const second = await s.t.request('POST', `/api/task/${task.id}/run`, { token: s.token })
    expect(second.status).toBe(409)
    expect(second.body).toEqual({ detail: 'Task is already running' })
    s.t.clock.set('2026-03-02T08:10:00.000Z')
    expect(s.scheduler().tick()).toBe(0)
    fake.release('finally')
    await s.scheduler().idle()
    const runs = await s.runs(task.id)
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ trigger: 'manual', status: 'succeeded' })
    expect((await s.get(task.id)).next_run).toBe('2026-03-02T08:20:00.000Z')
    expect(s.t.log.lines.some((l) => l.msg === 'scheduled run skipped: the previous run of this task is still going')).toBe(true)
    fake.behave({ reply: 'ok' })
    expect((await s.t.request('POST', `/api/task/${task.id}/run`, { token: s.token })).status).toBe(202)
    await s.scheduler().idle()
  })

  test('a provider error fails the run with a readable error and no key; the scheduler and other tasks carry on', async () => {
    s = await boot(env())
    fake.behave({ status: 401, message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' })
    const failing = await s.create({ chat_model: { provider: 'openai', model: 'gpt-test' }, schedule: { frequency: 'daily', hour: '09:00' } })
    const healthy = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    s.t.clock.set('2026-03-02T09:00:00.000Z')
    expect(await s.scheduler().runDue()).toBe(2)
    const [run] = await s.runs(failing.id)
    expect(run).toMatchObject({
      status: 'failed',
      finished_at: '2026-03-02T09:00:00.000Z',
      error: `The openai provider at ${fake.url} answered HTTP 401: Incorrect API key provided: [redacted]`,
    })
    expect(await s.get(failing.id)).toMatchObject({ last_run_status: 'failed', next_run: '2026-03-03T09:00:00.000Z' })
    expect((await s.get(healthy.id)).last_run_status).toBe('succeeded')
    const thread = (await s.t.request('GET', `/api/threads/${run.thread_id}`, { token: s.token })).body
    expect(thread.messages.map((m: any) => m.role)).toEqual(['user'])
    expect((await s.t.request('GET', '/api/health')).body.checks.scheduler.status).toBe('pass')
    expect(JSON.stringify(s.t.log.lines)).not.toContain(KEY)
    s.t.clock.set('2026-03-03T09:00:00.000Z')
    expect(await s.scheduler().runDue()).toBe(2)
  })

  test('a provider that does not answer in time fails the run with the time-out', async () => {
    s = await boot(env('300'))
    fake.behave({ hang: true })
    const task = await s.create({ chat_model: { provider: 'openai', model: 'gpt-test' } })
    await s.t.request('POST', `/api/task/${task.id}/run`, { token: s.token })
    await s.scheduler().idle()
    expect((await s.runs(task.id))[0]).toMatchObject({ status: 'failed', error: `The openai provider at ${fake.url} did not answer within 0.3 s` })
    fake.release()
  })

  test('a provider no longer configured when the run starts fails the run, not the scheduler', async () => {
    s = await boot(env())
    const task = await s.create({ schedule: { frequency: 'daily', hour: '09:00' } })
    await s.t.sql.run("UPDATE tasks SET chat_provider = 'anthropic', chat_model = 'claude-test' WHERE id = ?", task.id)
    s.t.clock.set('2026-03-02T09:00:00.000Z')
    await s.scheduler().runDue()
    expect((await s.runs(task.id))[0]).toMatchObject({ status: 'failed', error: 'Model provider "anthropic" is not configured on this server' })
  })

  test('shutdown with a run in flight: after a grace period the model call is aborted and the run fails saying why', async () => {
    // A 1 s shutdown grace: runs in flight get half of it before their model calls are aborted.
    s = await boot(env('60000'), undefined, 1_000)
    fake.behave({ hang: true })
    const task = await s.create({ chat_model: { provider: 'openai', model: 'gpt-test' } })
    const arrived = fake.nextRequest()
    await s.t.request('POST', `/api/task/${task.id}/run`, { token: s.token })
    await arrived
    const started = performance.now()
    await s.t.restart()
    // Far below the provider's 60 s time-out: the abort came from the grace, not from the call giving up.
    expect(performance.now() - started).toBeLessThan(8_000)
    expect((await s.runs(task.id))[0]).toMatchObject({ status: 'failed', error: 'Interrupted: the server is shutting down' })
    fake.release()
  }, 20_000)
})
