// Names people read in lists cannot be only spaces (issue 14, item 23): tasks, personal tokens, users, workflows.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
  expect((await t.request('POST', '/api/agents', { token: adminToken, body: { name: 'blank-bot', description: 'd', instructions: 'i' } })).status).toBe(201)
})
afterAll(() => t.close())

const cases: [string, string, (name: string) => unknown][] = [
  ['a task', '/api/task', (name) => ({ name, prompt: 'p' })],
  ['a personal token', '/api/auth/tokens', (name) => ({ name })],
  ['a user', '/api/users', (name) => ({ email: `u${Math.random()}@example.com`, name, password: 'a long password', role: 'member' })],
  [
    'a workflow',
    '/api/workflows/blank-bot',
    (name) => ({ name, definition: { nodes: [{ id: 'a', type: 'agentbox.set', params: { values: {} } }], connections: [] } }),
  ],
]

describe('blank names', () => {
  test.each(cases)('%s named "   " or "\\t\\n" is 422 string_too_short on name; " x " is fine', async (_, path, body) => {
    for (const blank of ['   ', '\t\n']) {
      const res = await t.request('POST', path, { token: adminToken, body: body(blank) })
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([
        {
          loc: ['body', 'name'],
          msg: 'String should have at least 1 character that is not a space',
          type: 'string_too_short',
          input: blank,
          ctx: { min_length: 1 },
        },
      ])
    }
    expect((await t.request('POST', path, { token: adminToken, body: body(' x ') })).status).toBe(201)
  })
})
