// JSON nesting is capped before parsing (issue 14, item 10): 100,000 levels used to block for a second and answer 500.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/platform/http/body.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
beforeAll(async () => {
  t = await startTestServer()
  adminToken = (await t.provision()).adminToken
})
afterAll(() => t.close())

const nested = (levels: number, inner = '1') => `{"workflow_recording":${'['.repeat(levels - 1)}${inner}${']'.repeat(levels - 1)}}`

describe('JSON nesting depth', () => {
  test('counts arrays and objects, not brackets inside strings', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false)
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true)
    const brackets = JSON.stringify({ text: '['.repeat(1000) + '{"\\"'.repeat(500) })
    expect(nestsDeeperThan(brackets, MAX_JSON_DEPTH)).toBe(false)
    expect(nestsDeeperThan(`{"a":"\\\\",${'['.repeat(200)}`, MAX_JSON_DEPTH)).toBe(true)
  })

  test('100,000 levels answer 422 json_invalid on ["body"] at once, and the server goes on', async () => {
    const res = await t.request('PUT', '/api/org/settings', { token: adminToken, rawBody: nested(100_000), headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', ctx: { error: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` } },
    ])
    expect((await t.request('GET', '/api/auth/me', { token: adminToken })).status).toBe(200)
  })

  test('a body just within the limit reaches the route (its schema answers)', async () => {
    const res = await t.request('PUT', '/api/org/settings', {
      token: adminToken,
      rawBody: nested(MAX_JSON_DEPTH),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].type).not.toBe('json_invalid')
  })
})
