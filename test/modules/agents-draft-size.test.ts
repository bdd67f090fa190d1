// An agent's draft is bounded (issue 14, item 11): saves that would grow it past 2 MiB are 413 and change nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MAX_DRAFT_BYTES } from '../../src/modules/agents/draft.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let owner: string
beforeAll(async () => {
  t = await startTestServer()
  const { adminToken } = await t.provision()
  owner = (await t.createUser(adminToken, { email: 'owner@example.com' })).token
})
afterAll(() => t.close())

const bigWorkflow = (name: string) => ({
  name,
  definition: { nodes: [{ id: 'a', type: 'agentbox.set', params: { values: { filler: 'x'.repeat(700_000) } } }], connections: [] },
})

describe('draft size', () => {
  test('workflows can be added until the draft would pass 2 MiB; that save is 413, nothing changes, and smaller edits still work', async () => {
    expect((await t.request('POST', '/api/agents', { token: owner, body: { name: 'big-bot', description: 'd', instructions: 'i' } })).status).toBe(201)
    const saved: number[] = []
    for (let i = 1; i <= 4; i++) saved.push((await t.request('POST', '/api/workflows/big-bot', { token: owner, body: bigWorkflow(`w${i}`) })).status)
    expect(saved).toEqual([201, 201, 413, 413])
    const refused = await t.request('POST', '/api/workflows/big-bot', { token: owner, body: bigWorkflow('w5') })
    expect(refused.body.detail).toMatch(/at most 2 MiB/)
    const list = await t.request('GET', '/api/workflows/big-bot', { token: owner })
    expect(list.body.map((w: { name: string }) => w.name).sort()).toEqual(['w1', 'w2'])
    expect((await t.request('PATCH', '/api/agents/big-bot', { token: owner, body: { description: 'still editable' } })).status).toBe(200)
    expect((await t.request('POST', '/api/agents/big-bot/publish', { token: owner, body: {} })).status).toBe(201)
  })

  test('the limit is 2 MiB of stored JSON', () => {
    expect(MAX_DRAFT_BYTES).toBe(2 * 1024 * 1024)
  })
})
