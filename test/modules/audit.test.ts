// The audit log (issue 14, item 17): user, role and token changes, licences, settings and admins' run cancellations are
// recorded with their actor, never with a secret; GET /api/audit filters by action, actor and time, for admins only.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { issueTestLicense } from '../helpers/license.ts'
import { gateFlow, newAgent, saveWorkflow, setup, type People } from '../workflows/helpers.ts'

let p: People
let adminId: string
const secrets: string[] = []
beforeAll(async () => {
  p = await setup()
  adminId = (await p.t.request('GET', '/api/auth/me', { token: p.admin })).body.id
})
afterAll(() => p.t.close())

const audit = async (query = '') =>
  (await p.t.request('GET', `/api/audit${query}`, { token: p.admin })).body as {
    action: string
    actor_id: string | null
    target_id: string
    details: Record<string, unknown>
    at: string
  }[]

describe('what is recorded', () => {
  test('user creation, role change, password reset, rename, deactivation and reactivation, each by its admin', async () => {
    secrets.push('the first password!', 'the second password!')
    const created = await p.t.request('POST', '/api/users', {
      token: p.admin,
      body: { email: 'audited@example.com', name: 'Aud', password: 'the first password!', role: 'member' },
    })
    const id = created.body.id as string
    await p.t.request('PATCH', `/api/users/${id}`, { token: p.admin, body: { role: 'admin', password: 'the second password!', name: 'Audrey' } })
    await p.t.request('DELETE', `/api/users/${id}`, { token: p.admin })
    await p.t.request('PATCH', `/api/users/${id}`, { token: p.admin, body: { active: true } })
    const entries = (await audit(`?actor_id=${adminId}`)).filter((e) => e.target_id === id)
    expect(entries.map((e) => e.action).reverse()).toEqual([
      'user.create',
      'user.role_change',
      'user.password_reset',
      'user.rename',
      'user.deactivate',
      'user.reactivate',
    ])
    expect(entries.find((e) => e.action === 'user.role_change')?.details).toEqual({ email: 'audited@example.com', from: 'member', to: 'admin' })
  })

  test('token creation and revocation, one by one and all at once', async () => {
    const made = await p.t.request('POST', '/api/auth/tokens', { token: p.owner.token, body: { name: 'ci' } })
    secrets.push(made.body.token)
    await p.t.request('DELETE', `/api/auth/tokens/${made.body.id}`, { token: p.owner.token })
    await p.t.request('DELETE', `/api/auth/tokens/${made.body.id}`, { token: p.owner.token })
    const other = await p.t.request('POST', '/api/auth/tokens', { token: p.viewer.token, body: { name: 'laptop' } })
    secrets.push(other.body.token)
    expect((await p.t.request('DELETE', `/api/users/${p.viewer.id}/tokens`, { token: p.admin })).body).toEqual({ revoked: 1 })
    const actions = (await audit()).filter((e) => e.action.startsWith('token.')).map((e) => [e.action, e.actor_id])
    expect(actions.reverse()).toEqual([
      ['token.create', p.owner.id],
      ['token.revoke', p.owner.id],
      ['token.create', p.viewer.id],
      ['token.revoke_all', adminId],
    ])
  })

  test('a licence application, with its claims but not its token', async () => {
    const license = issueTestLicense({ nowMs: p.t.clock.now(), seats: 40, days: 300 })
    secrets.push(license)
    expect((await p.t.request('POST', '/api/org/apply_license', { token: p.admin, body: { license_token: license } })).status).toBe(200)
    const [entry] = await audit('?action=license.apply')
    expect(entry).toMatchObject({ actor_id: adminId, details: { seats: 40 } })
  })

  test('an admin cancelling a member’s run is recorded; a starter cancelling their own is not', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, gateFlow())
    const runs = await Promise.all(
      [0, 1].map(
        async () =>
          (await p.t.request('POST', `/api/workflows/${agent}/${id}/run`, { token: p.owner.token, body: { input: { amount: 1 } } })).body.run_id as string,
      ),
    )
    expect((await p.t.request('POST', `/api/workflows/${agent}/runs/${runs[0]}/cancel`, { token: p.owner.token })).status).toBe(200)
    expect((await p.t.request('POST', `/api/workflows/${agent}/runs/${runs[1]}/cancel`, { token: p.admin })).status).toBe(200)
    const cancels = await audit('?action=workflow.cancel')
    expect(cancels.map((e) => [e.target_id, e.actor_id, e.details.starter_id])).toEqual([[runs[1], adminId, p.owner.id]])
  })

  test('no entry holds a password, a token or a licence', async () => {
    const text = JSON.stringify(await audit('?limit=500'))
    for (const secret of secrets) expect(text).not.toContain(secret)
  })
})

describe('GET /api/audit', () => {
  test('filters by time window; members are refused', async () => {
    const all = await audit('?limit=500')
    const newest = all[0]!.at
    expect((await audit(`?since=${encodeURIComponent(newest)}`)).every((e) => e.at >= newest)).toBe(true)
    expect((await audit(`?until=${encodeURIComponent(newest)}&limit=500`)).length).toBe(all.filter((e) => e.at < newest).length)
    expect(await audit('?since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00Z')).toEqual([])
    expect((await p.t.request('GET', '/api/audit', { token: p.owner.token })).status).toBe(403)
    expect((await p.t.request('GET', '/api/audit?since=yesterday', { token: p.admin })).status).toBe(422)
  })
})
