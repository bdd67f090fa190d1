// The marketplace: the built-in samples (listed, searched, installed, and working in mock mode and dry runs) and the
// organisation catalog (admins publish, members install, entries removed).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startWithPeople, type Person } from '../helpers/people.ts'
import type { TestServer } from '../helpers/server.ts'
import { filesOf, makeAgent, sha256 } from './helpers.ts'

let t: TestServer
let admin: string
let owner: Person
let viewer: Person
let outsider: Person

beforeAll(async () => {
  ;({ t, admin, owner, viewer, outsider } = await startWithPeople({ now: '2026-06-01T09:00:00.000Z' }))
})
afterAll(() => t.close())

async function bundleBytes(id: string, token: string) {
  const response = await t.server.fetch(new Request(`http://localhost/api/marketplace/${id}/bundle`, { headers: { authorization: `Bearer ${token}` } }))
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
}

describe('the built-in catalog', () => {
  test('lists the sample agents with their skills, workflows and applications; q searches every word', async () => {
    const res = await t.request('GET', '/api/marketplace', { token: outsider.token })
    expect(res.status).toBe(200)
    expect(res.body.map((entry: { id: string }) => entry.id)).toEqual(['builtin-expense-approval', 'builtin-incident-triage'])
    expect(res.body[0]).toMatchObject({
      source: 'builtin',
      name: 'expense-approval',
      title: 'Expense approval',
      version: 1,
      skills: ['expense-policy'],
      workflows: ['review-expense'],
      applications: ['expenses-api'],
      published_by: null,
    })
    const search = async (q: string) =>
      (await t.request('GET', `/api/marketplace?q=${encodeURIComponent(q)}`, { token: outsider.token })).body.map((entry: { name: string }) => entry.name)
    expect(await search('incident')).toEqual(['incident-triage'])
    expect(await search('SEVERITY triage')).toEqual(['incident-triage'])
    expect(await search('expenses-api')).toEqual(['expense-approval'])
    expect(await search('no such thing')).toEqual([])
    expect((await t.request('GET', '/api/marketplace?limit=1&offset=1', { token: outsider.token })).body.map((e: { name: string }) => e.name)).toEqual([
      'incident-triage',
    ])
  })

  test('each built-in bundle is the same bytes every time, with the SHA-256 the listing gives', async () => {
    const listing = (await t.request('GET', '/api/marketplace', { token: outsider.token })).body
    for (const entry of listing) {
      const [a, b] = [await bundleBytes(entry.id, outsider.token), await bundleBytes(entry.id, outsider.token)]
      expect(a.status).toBe(200)
      expect(Buffer.compare(a.bytes, b.bytes)).toBe(0)
      expect(sha256(a.bytes)).toBe(entry.sha256)
      expect(JSON.parse(filesOf(a.bytes)['manifest.json']!).exported_at).toBe('2026-01-01T00:00:00.000Z')
    }
    expect((await bundleBytes('builtin-nothing', outsider.token)).status).toBe(404)
  })

  test('a dry-run install shows the plan and keeps nothing', async () => {
    const res = await t.request('POST', '/api/marketplace/builtin-expense-approval/install?dry_run=true', { token: owner.token, body: {} })
    expect(res.status).toBe(200)
    expect(res.body.plan).toMatchObject({
      agent: 'expense-approval',
      action: 'create',
      version: 1,
      applications: [{ api_name: 'expenses-api', action: 'create' }],
    })
    expect((await t.request('GET', '/api/agents', { token: owner.token })).body).toEqual([])
    expect((await t.request('GET', '/api/applications', { token: owner.token })).body).toEqual([])
  })

  test('expense approval installed by a member works offline: the gate waits above 500 and approves after a human; small claims pass; the API answers dry runs', async () => {
    const res = await t.request('POST', '/api/marketplace/builtin-expense-approval/install', { token: owner.token })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ name: 'expense-approval', live_version: 1, role: 'owner', applications: [{ api_name: 'expenses-api' }] })
    const app = await t.request('GET', '/api/applications/expenses-api', { token: owner.token })
    expect(app.body.global_spec).toBe(false)
    const run = (input: unknown) => t.request('POST', '/api/workflows/expense-approval/review-expense/run', { token: owner.token, body: { input } })
    const large = await run({ report_id: 'exp-1042', employee: 'Dana', amount: 1280.5, currency: 'EUR', purpose: 'Zurich workshop' })
    expect(large.body.status).toBe('waiting_human')
    const approved = await t.request('POST', `/api/workflows/expense-approval/runs/${large.body.run_id}/resume`, {
      token: owner.token,
      body: { decision: 'approve' },
    })
    expect(approved.body).toMatchObject({ status: 'succeeded', result: { report_id: 'exp-1042', decision: 'approved', by: owner.id, amount: 1280.5 } })
    const small = await run({ report_id: 'exp-1043', amount: 86.2 })
    expect(small.body).toMatchObject({ status: 'succeeded', result: { decision: 'approved', by: 'policy (500 or less)' } })
    const dry = await t.request('POST', '/api/workflows/expense-approval/review-expense/run', {
      token: owner.token,
      body: { dry_run: true, input: { amount: 900 }, step_data: { manager: { decision: 'reject', reason: 'No receipts' } } },
    })
    expect(dry.body).toMatchObject({ status: 'succeeded', result: { decision: 'rejected', reason: 'No receipts' } })
    const report = await t.request('POST', '/api/applications/expenses-api/operations/getExpenseReport/execute', {
      token: owner.token,
      body: { arguments: { report_id: 'exp-1042' }, dry_run: true },
    })
    expect(report.status).toBe(200)
    expect(report.body.body).toMatchObject({ id: 'exp-1042', lines: [{ category: 'lodging' }, { category: 'travel' }, { category: 'meals' }] })
    const skills = await t.request('GET', '/api/agents/expense-approval/skills', { token: owner.token })
    expect(skills.body.map((s: { name: string }) => s.name)).toEqual(['expense-policy'])
  })

  test('incident triage: the mock model drafts the update, SEV1 waits for a human before paging, SEV3 becomes a ticket', async () => {
    const res = await t.request('POST', '/api/marketplace/builtin-incident-triage/install', { token: owner.token, body: {} })
    expect(res.status).toBe(201)
    const run = (input: unknown) => t.request('POST', '/api/workflows/incident-triage/triage-incident/run', { token: owner.token, body: { input } })
    const sev1 = await run({ incident_id: 'INC-2291', title: 'Checkout down', service: 'checkout', severity: 'SEV1' })
    expect(sev1.body.status).toBe('waiting_human')
    const paged = await t.request('POST', `/api/workflows/incident-triage/runs/${sev1.body.run_id}/resume`, {
      token: owner.token,
      body: { decision: 'approve' },
    })
    expect(paged.body).toMatchObject({ status: 'succeeded', result: { incident_id: 'INC-2291', action: 'page', severity: 'SEV1' } })
    expect(typeof paged.body.result.update).toBe('string')
    expect(paged.body.result.update.length).toBeGreaterThan(0)
    const sev3 = await run({ incident_id: 'INC-2292', title: 'Slow avatars', service: 'profile', severity: 'SEV3' })
    expect(sev3.body).toMatchObject({ status: 'succeeded', result: { action: 'ticket', severity: 'SEV3' } })
    const incident = await t.request('POST', '/api/applications/incident-api/operations/listIncidents/execute', {
      token: owner.token,
      body: { arguments: {}, dry_run: true },
    })
    expect(incident.body.body[0]).toMatchObject({ id: 'INC-2291', service: 'checkout' })
  })

  test('installing again: 409 by default; rename installs a second copy that reuses the application', async () => {
    const again = await t.request('POST', '/api/marketplace/builtin-expense-approval/install', { token: owner.token })
    expect(again.status).toBe(409)
    const renamed = await t.request('POST', '/api/marketplace/builtin-expense-approval/install', { token: owner.token, body: { on_conflict: 'rename' } })
    expect(renamed.status).toBe(201)
    expect(renamed.body.name).toBe('expense-approval-2')
    expect(renamed.body.imported.applications).toEqual([expect.objectContaining({ api_name: 'expenses-api', action: 'reuse' })])
    // Another member cannot see the owner's private copy of the application: theirs is imported under a suffixed name.
    const theirs = await t.request('POST', '/api/marketplace/builtin-expense-approval/install', { token: viewer.token, body: { name: 'my-expenses' } })
    expect(theirs.status).toBe(201)
    expect(theirs.body.imported.applications[0]).toMatchObject({ api_name: 'expenses-api-2', action: 'create' })
  })

  test('unknown entry 404; no token 401; a body that is not an object 422', async () => {
    expect((await t.request('POST', '/api/marketplace/builtin-nothing/install', { token: owner.token })).status).toBe(404)
    expect((await t.request('GET', '/api/marketplace')).status).toBe(401)
    expect((await t.request('POST', '/api/marketplace/builtin-incident-triage/install', { token: owner.token, body: { on_conflict: 'merge' } })).status).toBe(
      422,
    )
  })
})

describe('the organisation catalog', () => {
  let published: { id: string }
  beforeAll(async () => {
    await makeAgent(t, admin, 'pet-helper')
  })

  test('an admin publishes the live version; members may not (403); the same version twice is 409; unknown agent 404', async () => {
    const res = await t.request('POST', '/api/marketplace', { token: admin, body: { agent_name: 'pet-helper' } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      source: 'organisation',
      name: 'pet-helper',
      version: 1,
      skills: ['pet-care', 'adoption'],
      workflows: ['approve-adoption', 'second-flow'],
      applications: ['pet-store'],
      published_by: 'admin@example.com',
      published_at: '2026-06-01T09:00:00.000Z',
    })
    published = res.body
    expect((await t.request('POST', '/api/marketplace', { token: owner.token, body: { agent_name: 'pet-helper' } })).status).toBe(403)
    expect((await t.request('POST', '/api/marketplace', { token: admin, body: { agent_name: 'pet-helper', version: 1 } })).status).toBe(409)
    expect((await t.request('POST', '/api/marketplace', { token: admin, body: { agent_name: 'nobody' } })).status).toBe(404)
    expect((await t.request('POST', '/api/marketplace', { token: admin, body: { agent_name: 'pet-helper', version: 7 } })).status).toBe(404)
    const listed = (await t.request('GET', '/api/marketplace', { token: outsider.token })).body
    expect(listed.map((entry: { id: string }) => entry.id)).toEqual(['builtin-expense-approval', 'builtin-incident-triage', published.id])
    expect((await t.request('GET', '/api/marketplace?q=adoption', { token: outsider.token })).body.map((e: { id: string }) => e.id)).toEqual([published.id])
  })

  test('any member installs it; the bundle is what was published, even after the agent changes', async () => {
    expect((await t.request('PATCH', '/api/agents/pet-helper', { token: admin, body: { instructions: 'Changed after publishing.' } })).status).toBe(200)
    expect((await t.request('POST', '/api/agents/pet-helper/publish', { token: admin, body: {} })).status).toBe(201)
    const res = await t.request('POST', `/api/marketplace/${published.id}/install`, { token: outsider.token, body: { name: 'my-pets' } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ name: 'my-pets', instructions: 'Help with pets.', live_version: 1 })
    const bundle = await bundleBytes(published.id, outsider.token)
    expect(JSON.parse(filesOf(bundle.bytes)['manifest.json']!)).toMatchObject({ agent: 'pet-helper', version: 1 })
  })

  test('an admin removes it (204, audited); built-in entries stay (409); unknown 404; members 403', async () => {
    expect((await t.request('DELETE', `/api/marketplace/${published.id}`, { token: owner.token })).status).toBe(403)
    expect((await t.request('DELETE', '/api/marketplace/builtin-incident-triage', { token: admin })).status).toBe(409)
    expect((await t.request('DELETE', `/api/marketplace/${published.id}`, { token: admin })).status).toBe(204)
    expect((await t.request('DELETE', `/api/marketplace/${published.id}`, { token: admin })).status).toBe(404)
    const audit = (await t.request('GET', '/api/audit', { token: admin })).body.map((entry: { action: string }) => entry.action)
    expect(audit).toContain('marketplace.publish')
    expect(audit).toContain('marketplace.remove')
    expect((await t.request('GET', '/api/agents/my-pets', { token: outsider.token })).status).toBe(200)
  })
})
