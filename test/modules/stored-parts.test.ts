// Stored agent documents are checked when read (issue 15, item 5): a workflow or skill item that is not one (damaged
// outside Agentbox) fails the request loudly — a 500 without detail, and a log line that names the damage — instead of
// reaching the engine or a response as something else.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
beforeAll(async () => {
  // 500 is never a documented answer, so the response checker would flag it: these requests are meant to fail.
  t = await startTestServer({ conformance: false })
  adminToken = (await t.provision()).adminToken
})
afterAll(() => t.close())

async function agentWithDraft(name: string, damage: (draft: Record<string, unknown[]>) => void) {
  expect((await t.request('POST', '/api/agents', { token: adminToken, body: { name, description: 'd', instructions: 'i' } })).status).toBe(201)
  const db = t.server.database.db
  const row = await db
    .selectFrom('agent_drafts')
    .innerJoin('agents', 'agents.id', 'agent_drafts.agent_id')
    .select(['agent_drafts.agent_id', 'agent_drafts.document'])
    .where('agents.name', '=', name)
    .executeTakeFirstOrThrow()
  const document = JSON.parse(row.document)
  damage(document)
  await db
    .updateTable('agent_drafts')
    .set({ document: JSON.stringify(document) })
    .where('agent_id', '=', row.agent_id)
    .execute()
}

describe('damaged parts of a stored agent document', () => {
  test('a workflow item without a definition is a 500 naming the damage in the log, not a run of something else', async () => {
    await agentWithDraft('damaged-flows', (draft) => draft.workflows!.push({ id: 'w1', name: 'broken' }))
    const res = await t.request('GET', '/api/workflows/damaged-flows', { token: adminToken })
    expect(res.status).toBe(500)
    expect(res.body).toEqual({ detail: 'Internal Server Error' })
    expect(t.log.lines.some((line) => String(line.error).includes('workflow #0 is not a workflow'))).toBe(true)
    const run = await t.request('POST', '/api/workflows/damaged-flows/w1/run', { token: adminToken, body: { version: 'draft', dry_run: true } })
    expect(run.status).toBe(500)
  })

  test('a skill item without content is a 500 naming the damage', async () => {
    await agentWithDraft('damaged-skills', (draft) => draft.skills!.push({ id: 's1', name: 'x', description: 'y' }))
    const res = await t.request('GET', '/api/agents/damaged-skills/skills', { token: adminToken })
    expect(res.status).toBe(500)
    expect(t.log.lines.some((line) => String(line.error).includes('skill #0 is not a skill'))).toBe(true)
  })

  test('sound documents read as before', async () => {
    await agentWithDraft('sound', () => {})
    expect((await t.request('GET', '/api/workflows/sound', { token: adminToken })).body).toEqual([])
    expect((await t.request('GET', '/api/agents/sound/skills', { token: adminToken })).body).toEqual([])
  })
})
