// Bounds on tasks (issue 14, item 11): how often a cron task may fire, and how many tasks one person may own.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_TASKS_PER_USER } from '../../src/modules/tasks/service.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let member: string
let other: string
beforeAll(async () => {
  t = await startTestServer({ now: '2026-03-02T10:30:00Z' })
  const { adminToken } = await t.provision()
  member = (await t.createUser(adminToken, { email: 'm@example.com' })).token
  other = (await t.createUser(adminToken, { email: 'o@example.com' })).token
})
afterAll(() => t.close())

const create = (token: string, name: string, schedule: Record<string, unknown> = { frequency: 'manual' }) =>
  t.request('POST', '/api/task', { token, body: { name, prompt: 'p', schedule } })

describe('cron interval', () => {
  test.each(['* * * * * *', '*/20 * * * * *', '0,30 * * * * *', '0,30 0 9 * * *'])(
    '%p fires more often than once a minute somewhere: 422 on schedule.cron',
    async (cron) => {
      const res = await create(member, 'fast', { frequency: 'cron', cron })
      expect(res.status).toBe(422)
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'schedule', 'cron'], msg: expect.stringMatching(/more often than every 60 s/) })
    },
  )

  test.each(['* * * * *', '0,1 9 * * *', '*/5 * * * *', '0 9 * * 1-5', '0 0 * * * *'])('%p is allowed', async (cron) => {
    expect((await create(other, 'ok', { frequency: 'cron', cron })).status).toBe(201)
  })
})

describe('tasks per person', () => {
  test(`the ${MAX_TASKS_PER_USER + 1}th task of one person is 409; someone else can still create one`, async () => {
    for (let i = 0; i < MAX_TASKS_PER_USER; i++) expect((await create(member, `t${i}`)).status).toBe(201)
    const refused = await create(member, 'one too many')
    expect(refused.status).toBe(409)
    expect(refused.body.detail).toMatch(/100 tasks/)
    expect((await create(other, 'mine')).status).toBe(201)
  })
})
