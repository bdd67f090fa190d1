// Agent roles and sharing (CONTRACT §9, spec Authentication 8): owners edit, viewers use live, admins see all, others get 404.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startWithPeople } from '../helpers/people.ts'
import type { TestServer } from '../helpers/server.ts'

type User = { id: string; token: string }
let t: TestServer
let adminToken: string
let orgToken: string
let owner: User
let viewer: User
let outsider: User
let extra: User
// One server and one set of users for the file (password hashing dominates set-up); each test gets its own agent.
beforeAll(async () => {
  ;({ t, admin: adminToken, org: orgToken, owner, viewer, outsider } = await startWithPeople())
  extra = await t.createUser(adminToken, { email: 'extra@example.com' })
})
afterAll(() => t.close())

let agentCount = 0
let bot = ''
beforeEach(async () => {
  bot = `/api/agents/bot-${++agentCount}`
  expect(
    (
      await t.request('POST', '/api/agents', {
        token: owner.token,
        body: { name: `bot-${agentCount}`, description: 'Live description', instructions: 'Live instructions.' },
      })
    ).status,
  ).toBe(201)
  expect((await share('viewer@example.com', 'viewer')).status).toBe(201)
  expect((await share('extra@example.com', 'viewer')).status).toBe(201)
  expect((await t.request('POST', `${bot}/publish`, { token: owner.token })).status).toBe(201)
  expect((await t.request('PATCH', bot, { token: owner.token, body: { description: 'Draft description', instructions: 'Draft instructions.' } })).status).toBe(
    200,
  )
})

const share = (email: string, role: string, token = owner.token) => t.request('POST', `${bot}/members`, { token, body: { email, role } })
const OWNERS_ONLY = { detail: 'Only owners can change this agent' }
const OWNERS_ONLY_DESIGN = { detail: 'Only owners can see the draft and versions of this agent' }

describe('the role matrix', () => {
  const actions = (): [string, string, string, unknown?][] => [
    ['get', 'GET', bot],
    ['save', 'PATCH', bot, { description: 'x' }],
    ['publish', 'POST', `${bot}/publish`],
    ['list versions', 'GET', `${bot}/versions`],
    ['read version', 'GET', `${bot}/versions/1`],
    ['restore', 'POST', `${bot}/versions/1/restore`],
    ['switch live', 'POST', `${bot}/live`, { version: 1 }],
    ['list members', 'GET', `${bot}/members`],
    ['share', 'POST', `${bot}/members`, { email: 'outsider@example.com', role: 'viewer' }],
    ['unshare someone else', 'DELETE', `${bot}/members/${extra.id}`],
    ['delete', 'DELETE', bot],
  ]
  const run = async (token: string) => {
    const statuses: Record<string, number> = {}
    for (const [label, method, path, body] of actions()) statuses[label] = (await t.request(method, path, { token, body })).status
    return statuses
  }

  test('viewers use the live version and get 403 on everything else', async () => {
    expect(await run(viewer.token)).toEqual({
      get: 200,
      save: 403,
      publish: 403,
      'list versions': 403,
      'read version': 403,
      restore: 403,
      'switch live': 403,
      'list members': 403,
      share: 403,
      'unshare someone else': 403,
      delete: 403,
    })
  })

  test('admins who are not members see the live version and the members, and change nothing (403)', async () => {
    const expected = {
      get: 200,
      save: 403,
      publish: 403,
      'list versions': 403,
      'read version': 403,
      restore: 403,
      'switch live': 403,
      'list members': 200,
      share: 403,
      'unshare someone else': 403,
      delete: 403,
    }
    expect(await run(adminToken)).toEqual(expected)
    // The org token acts as the organisation's admin account.
    expect(await run(orgToken)).toEqual(expected)
  })

  test('everyone else gets 404 for everything, as if the agent did not exist', async () => {
    const statuses = await run(outsider.token)
    expect(new Set(Object.values(statuses))).toEqual(new Set([404]))
    const res = await t.request('PATCH', bot, { token: outsider.token, body: { description: 'x' } })
    expect(res.body).toEqual({ detail: 'Agent not found' })
    expect((await t.request('GET', '/api/agents', { token: outsider.token })).body.map((a: any) => a.name)).not.toContain(bot.split('/').at(-1))
  })

  test('owners may do everything', async () => {
    expect(await run(owner.token)).toEqual({
      get: 200,
      save: 200,
      publish: 201,
      'list versions': 200,
      'read version': 200,
      restore: 200,
      'switch live': 200,
      'list members': 200,
      share: 201,
      'unshare someone else': 204,
      delete: 204,
    })
  })

  test('denials say why: mutations and design reads answer different 403s', async () => {
    expect((await t.request('PATCH', bot, { token: viewer.token, body: { description: 'x' } })).body).toEqual(OWNERS_ONLY)
    expect((await t.request('POST', `${bot}/publish`, { token: adminToken })).body).toEqual(OWNERS_ONLY)
    expect((await t.request('GET', `${bot}/versions`, { token: viewer.token })).body).toEqual(OWNERS_ONLY_DESIGN)
    expect((await t.request('GET', `${bot}/members`, { token: viewer.token })).body).toEqual({ detail: 'Only owners can see who this agent is shared with' })
  })

  test('nothing a denied caller tried changed the agent', async () => {
    await run(viewer.token)
    await run(adminToken)
    await run(outsider.token)
    const res = await t.request('GET', bot, { token: owner.token })
    expect(res.body).toMatchObject({ description: 'Draft description', live_version: 1, has_unpublished_changes: true })
    expect((await t.request('GET', `${bot}/members`, { token: owner.token })).body).toHaveLength(3)
  })
})

describe('what each role sees', () => {
  test('owners see the draft; viewers and admins the live version', async () => {
    const see = async (token: string) => {
      const { description, instructions, role } = (await t.request('GET', bot, { token })).body
      return { description, instructions, role }
    }
    expect(await see(owner.token)).toEqual({ description: 'Draft description', instructions: 'Draft instructions.', role: 'owner' })
    expect(await see(viewer.token)).toEqual({ description: 'Live description', instructions: 'Live instructions.', role: 'viewer' })
    expect(await see(adminToken)).toEqual({ description: 'Live description', instructions: 'Live instructions.', role: 'admin' })
  })

  test('before the first publish, viewers see the agent with null content', async () => {
    await t.request('POST', '/api/agents', { token: owner.token, body: { name: 'unpublished', description: 'Secret draft', instructions: 'Secret.' } })
    await t.request('POST', '/api/agents/unpublished/members', { token: owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })
    const res = await t.request('GET', '/api/agents/unpublished', { token: viewer.token })
    expect(res.body).toMatchObject({ description: null, instructions: null, live_version: null, has_unpublished_changes: true, role: 'viewer' })
    expect(JSON.stringify(res.body)).not.toContain('Secret')
  })

  test('an admin who owns an agent is its owner in every respect', async () => {
    expect((await share('admin@example.com', 'owner')).status).toBe(201)
    expect((await t.request('GET', bot, { token: adminToken })).body).toMatchObject({ role: 'owner', description: 'Draft description' })
    expect((await t.request('POST', `${bot}/publish`, { token: adminToken })).status).toBe(201)
  })

  test('an admin who is only a viewer keeps the admin oversight of members but cannot edit', async () => {
    expect((await share('admin@example.com', 'viewer')).status).toBe(201)
    expect((await t.request('GET', bot, { token: adminToken })).body.role).toBe('viewer')
    expect((await t.request('GET', `${bot}/members`, { token: adminToken })).status).toBe(200)
    expect((await t.request('PATCH', bot, { token: adminToken, body: { description: 'x' } })).status).toBe(403)
  })
})

describe('members', () => {
  test('lists owners first, then viewers, by e-mail', async () => {
    const res = await t.request('GET', `${bot}/members`, { token: owner.token })
    expect(res.status).toBe(200)
    expect(res.body).toEqual([
      { user_id: owner.id, email: 'owner@example.com', name: 'owner', role: 'owner', added_at: expect.any(String), added_by: 'owner@example.com' },
      { user_id: extra.id, email: 'extra@example.com', name: 'extra', role: 'viewer', added_at: expect.any(String), added_by: 'owner@example.com' },
      { user_id: viewer.id, email: 'viewer@example.com', name: 'viewer', role: 'viewer', added_at: expect.any(String), added_by: 'owner@example.com' },
    ])
  })

  test('sharing is by e-mail in any case; repeating it is 200, changing the role is 200 and takes effect', async () => {
    const added = await share('OUTSIDER@Example.com', 'viewer')
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ user_id: outsider.id, email: 'outsider@example.com', role: 'viewer' })
    expect((await t.request('GET', bot, { token: outsider.token })).status).toBe(200)
    expect((await share('outsider@example.com', 'viewer')).status).toBe(200)
    const promoted = await share('outsider@example.com', 'owner')
    expect(promoted.status).toBe(200)
    expect(promoted.body.role).toBe('owner')
    // A co-owner sees the draft and may publish and share.
    expect((await t.request('GET', bot, { token: outsider.token })).body.description).toBe('Draft description')
    expect((await t.request('POST', `${bot}/publish`, { token: outsider.token })).status).toBe(201)
  })

  test('only active people can be added: unknown, deactivated and organisation e-mails are 422', async () => {
    const leaver = await t.createUser(adminToken, { email: 'leaver@example.com' })
    await t.request('DELETE', `/api/users/${leaver.id}`, { token: adminToken })
    for (const email of ['nobody@example.com', 'leaver@example.com', 'organisation@agentbox.invalid']) {
      const res = await share(email, 'viewer')
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([{ loc: ['body', 'email'], msg: 'No active user with this e-mail', type: 'value_error', input: email }])
    }
  })

  test('bad bodies are 422 with every field reported', async () => {
    const res = await t.request('POST', `${bot}/members`, { token: owner.token, body: { email: 'not-an-email', role: 'editor' } })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc.join('.'), d.type])).toEqual([
      ['body.email', 'value_error'],
      ['body.role', 'literal_error'],
    ])
    const missing = await t.request('POST', `${bot}/members`, { token: owner.token, body: {} })
    expect(missing.body.detail.map((d: any) => d.type)).toEqual(['missing', 'missing'])
  })

  test('the last owner cannot be demoted or removed (409); with a second owner the first may leave', async () => {
    const last = { detail: 'An agent must keep at least one owner' }
    expect(await share('owner@example.com', 'viewer')).toMatchObject({ status: 409, body: last })
    expect(await t.request('DELETE', `${bot}/members/${owner.id}`, { token: owner.token })).toMatchObject({ status: 409, body: last })
    await share('extra@example.com', 'owner')
    expect((await t.request('DELETE', `${bot}/members/${owner.id}`, { token: owner.token })).status).toBe(204)
    expect((await t.request('GET', bot, { token: owner.token })).status).toBe(404)
    expect((await t.request('GET', bot, { token: extra.token })).body.role).toBe('owner')
  })

  test('a viewer may leave a shared agent; they may not remove anyone else', async () => {
    expect((await t.request('DELETE', `${bot}/members/${extra.id}`, { token: viewer.token })).status).toBe(403)
    expect((await t.request('DELETE', `${bot}/members/${viewer.id}`, { token: viewer.token })).status).toBe(204)
    expect((await t.request('GET', bot, { token: viewer.token })).status).toBe(404)
    expect((await t.request('GET', '/api/agents', { token: viewer.token })).body.map((a: any) => a.name)).not.toContain(bot.split('/').at(-1))
  })

  test('removing someone who is not a member is 404 Member not found', async () => {
    const res = await t.request('DELETE', `${bot}/members/${outsider.id}`, { token: owner.token })
    expect(res).toMatchObject({ status: 404, body: { detail: 'Member not found' } })
  })

  test('sharing an unknown agent is 404', async () => {
    expect((await t.request('POST', '/api/agents/nope/members', { token: owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })).status).toBe(
      404,
    )
  })
})
