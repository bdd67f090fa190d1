// One paging scheme on every list route (issue 14, items 14 and 18): integers within bounds, else a 422 that names the
// field and the broken rule. Fractions and numbers past 2^53 - 1 used to reach SQLite and answer 500 "datatype mismatch".
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
let lists: string[]
beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
  expect((await t.request('POST', '/api/agents', { token: adminToken, body: { name: 'pager', description: 'pages', instructions: 'page' } })).status).toBe(201)
  const task = await t.request('POST', '/api/task', { token: adminToken, body: { name: 'paged', prompt: 'hi' } })
  expect(task.status).toBe(201)
  lists = ['/api/agents', '/api/agents/pager/versions', '/api/tasks', `/api/task/${task.body.id}/runs`, '/api/workflows/pager/runs', '/api/audit']
})
afterAll(() => t.close())

const issue = async (path: string, query: string) => {
  const res = await t.request('GET', `${path}?${query}`, { token: adminToken })
  return { path, query, status: res.status, detail: res.status === 422 ? res.body.detail.map((d: any) => [d.loc.join('.'), d.type]) : res.body }
}

describe('paging on every list route', () => {
  test.each([
    ['limit=1.5', [['query.limit', 'int_type']]],
    ['offset=2.5', [['query.offset', 'int_type']]],
    ['limit=1e30', [['query.limit', 'less_than_equal']]],
    ['limit=1e308', [['query.limit', 'less_than_equal']]],
    ['offset=1e308', [['query.offset', 'less_than_equal']]],
    ['offset=9007199254740992', [['query.offset', 'less_than_equal']]],
    [
      'limit=0&offset=-1',
      [
        ['query.limit', 'greater_than_equal'],
        ['query.offset', 'greater_than_equal'],
      ],
    ],
    ['limit=abc', [['query.limit', 'int_type']]],
    ['limit=', [['query.limit', 'int_type']]],
  ] as const)('%s is a 422 naming each bad field', async (query, detail) => {
    for (const path of lists) expect(await issue(path, query)).toEqual({ path, query, status: 422, detail })
  })

  test('the largest offset is accepted and returns an empty page; limit 1 returns at most one item', async () => {
    for (const path of lists) {
      const far = await issue(path, 'offset=9007199254740991')
      expect({ path, status: far.status, body: far.detail }).toEqual({ path, status: 200, body: [] })
      const one = await issue(path, 'limit=1')
      expect({ path, status: one.status, short: Array.isArray(one.detail) && one.detail.length <= 1 }).toEqual({ path, status: 200, short: true })
    }
  })

  test('capped lists refuse more than 500 per page; agents and versions have no cap', async () => {
    for (const path of ['/api/tasks', '/api/workflows/pager/runs', '/api/audit'])
      expect((await issue(path, 'limit=501')).detail).toEqual([['query.limit', 'less_than_equal']])
    for (const path of ['/api/agents', '/api/agents/pager/versions']) expect((await issue(path, 'limit=501')).status).toBe(200)
  })
})
