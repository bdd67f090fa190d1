// Skills in an agent's draft (CONTRACT §11): add, list, get, replace, delete; owners only; carried by publish and restore.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startWithPeople } from '../helpers/people.ts'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

type User = { id: string; token: string }
let t: TestServer
let adminToken: string
let owner: User
let viewer: User
let outsider: User
beforeAll(async () => {
  ;({ t, admin: adminToken, owner, viewer, outsider } = await startWithPeople({ now: '2026-04-01T09:00:00.000Z' }))
})
afterAll(() => t.close())

let agentCount = 0
let bot = ''
beforeEach(async () => {
  bot = `/api/agents/bot-${++agentCount}`
  expect(
    (await t.request('POST', '/api/agents', { token: owner.token, body: { name: `bot-${agentCount}`, description: 'A bot', instructions: 'Help.' } })).status,
  ).toBe(201)
  expect((await t.request('POST', `${bot}/members`, { token: owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })).status).toBe(201)
})

const skill = (name: string, description = `The ${name} skill. Use it for ${name}.`, extra: string[] = []) =>
  ['---', `name: ${name}`, `description: ${description}`, ...extra, '---', `# ${name}`, '', 'Steps.', ''].join('\n')
const call = (method: string, path: string, body?: unknown, token = owner.token) => t.request(method, `${bot}${path}`, { token, body })
const add = (content: string, token = owner.token) => call('POST', '/skills', { content }, token)
const OWNERS_ONLY = { detail: 'Only owners can change this agent' }
const OWNERS_ONLY_DRAFT = { detail: 'Only owners can see the draft and versions of this agent' }
const AGENT_NOT_FOUND = { detail: 'Agent not found' }
const SKILL_NOT_FOUND = { detail: 'Skill not found' }

describe('POST /api/agents/{name}/skills', () => {
  test('201 with the skill: every frontmatter field, the content as sent, id and timestamps', async () => {
    t.clock.set('2026-04-01T10:00:00.000Z')
    const content = skill('pdf-processing', 'Extracts text from PDFs.', [
      'license: Apache-2.0',
      'compatibility: Needs poppler',
      'metadata:',
      '  version: 1.0',
      'allowed-tools: Bash(pdftotext:*) Read',
    ])
    const res = await add(content)
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'pdf-processing',
      description: 'Extracts text from PDFs.',
      license: 'Apache-2.0',
      compatibility: 'Needs poppler',
      metadata: { version: '1.0' },
      'allowed-tools': 'Bash(pdftotext:*) Read',
      content,
      created_at: '2026-04-01T10:00:00.000Z',
      updated_at: '2026-04-01T10:00:00.000Z',
    })
  })

  test('absent optional fields are null', async () => {
    const res = await add(skill('plain'))
    expect(res.body).toMatchObject({ license: null, compatibility: null, metadata: null, 'allowed-tools': null })
  })

  test('adding a skill changes the draft: the Draft chip turns on after a publish', async () => {
    expect((await call('POST', '/publish')).status).toBe(201)
    expect((await call('GET', '')).body.has_unpublished_changes).toBe(false)
    await add(skill('pdf'))
    expect((await call('GET', '')).body.has_unpublished_changes).toBe(true)
  })

  test('content that does not validate: 422, one skill_invalid entry per validation error, nothing saved', async () => {
    const res = await add('---\nname: PDF\nname2: x\n---\n')
    expect(res.status).toBe(422)
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['body', 'content'],
          msg: "Unexpected fields in frontmatter: name2. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
          type: 'skill_invalid',
          ctx: { field: null, code: 'fields_unexpected' },
        },
        { loc: ['body', 'content'], msg: "Skill name 'PDF' must be lowercase", type: 'skill_invalid', ctx: { field: 'name', code: 'name_not_lowercase' } },
        {
          loc: ['body', 'content'],
          msg: 'Missing required field in frontmatter: description',
          type: 'skill_invalid',
          ctx: { field: 'description', code: 'description_missing' },
        },
      ],
    })
    expect((await call('GET', '/skills')).body).toEqual([])
  })

  test('empty content: 422 content_empty', async () => {
    const res = await add('')
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ['body', 'content'], msg: 'SKILL.md content is empty', type: 'skill_invalid', ctx: { field: null, code: 'content_empty' } },
    ])
  })

  test('size warnings do not block saving', async () => {
    const content = skill('long') + Array.from({ length: 700 }, (_, i) => `Line ${i}`).join('\n')
    expect((await add(content)).status).toBe(201)
  })

  test('a second skill of the same name: 409, also when the name is written differently but normalises the same', async () => {
    expect((await add(skill('café'))).status).toBe(201)
    const again = await add(skill('café', 'Another one.'))
    expect(again).toMatchObject({ status: 409, body: { detail: "A skill named 'café' already exists in this agent" } })
    expect((await add(skill('cafe\u0301'))).status).toBe(409)
    expect((await add(skill('"  café "'))).status).toBe(409)
    expect((await call('GET', '/skills')).body).toHaveLength(1)
  })

  test('the same skill may be in two agents', async () => {
    expect((await add(skill('shared'))).status).toBe(201)
    expect(
      (await t.request('POST', '/api/agents', { token: owner.token, body: { name: `other-${agentCount}`, description: 'd', instructions: 'i' } })).status,
    ).toBe(201)
    expect((await t.request('POST', `/api/agents/other-${agentCount}/skills`, { token: owner.token, body: { content: skill('shared') } })).status).toBe(201)
  })

  test('body problems: content missing or not a string is 422 from the schema', async () => {
    expect((await call('POST', '/skills', {})).body).toEqual({ detail: [{ loc: ['body', 'content'], msg: 'Field required', type: 'missing' }] })
    expect((await call('POST', '/skills', { content: ['x'] })).body.detail[0]).toMatchObject({ loc: ['body', 'content'], type: 'string_type' })
  })

  test('concurrent adds of different skills are all kept; of one name, exactly one wins', async () => {
    const different = await Promise.all(Array.from({ length: 10 }, (_, i) => add(skill(`s${i}`))))
    expect(different.map((r) => r.status)).toEqual(Array(10).fill(201))
    const same = await Promise.all(Array.from({ length: 5 }, () => add(skill('same'))))
    expect(same.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409])
    expect((await call('GET', '/skills')).body).toHaveLength(11)
  })
})

describe('GET /api/agents/{name}/skills and /skills/{skill_name}', () => {
  test('the list is in the order added, every field but the content', async () => {
    const a = (await add(skill('alpha'))).body
    const b = (await add(skill('beta', 'Beta.', ['license: MIT']))).body
    const { content: _a, ...alpha } = a
    const { content: _b, ...beta } = b
    expect((await call('GET', '/skills')).body).toEqual([alpha, beta])
  })

  test('an agent with no skills lists []', async () => {
    expect((await call('GET', '/skills')).body).toEqual([])
  })

  test('one skill comes with its content', async () => {
    const created = (await add(skill('alpha'))).body
    expect((await call('GET', '/skills/alpha')).body).toEqual(created)
  })

  test('Unicode names work in the path, percent-encoded, in composed or decomposed form', async () => {
    const created = (await add(skill('技能'))).body
    expect((await call('GET', `/skills/${encodeURIComponent('技能')}`)).body).toEqual(created)
    const cafe = (await add(skill('café'))).body
    expect((await call('GET', `/skills/${encodeURIComponent('cafe\u0301')}`)).body).toEqual(cafe)
  })

  test('an unknown skill: 404 Skill not found', async () => {
    expect(await call('GET', '/skills/nope')).toMatchObject({ status: 404, body: SKILL_NOT_FOUND })
  })
})

describe('PUT /api/agents/{name}/skills/{skill_name}', () => {
  test('replaces the content, keeping id and created_at', async () => {
    t.clock.set('2026-04-01T10:00:00.000Z')
    const created = (await add(skill('alpha'))).body
    t.clock.set('2026-04-01T11:00:00.000Z')
    const content = skill('alpha', 'Better description.', ['license: MIT'])
    const res = await call('PUT', '/skills/alpha', { content })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ ...created, description: 'Better description.', license: 'MIT', content, updated_at: '2026-04-01T11:00:00.000Z' })
    expect((await call('GET', '/skills/alpha')).body).toEqual(res.body)
  })

  test('new content may rename the skill; the id stays and the old name is gone', async () => {
    const created = (await add(skill('alpha'))).body
    const res = await call('PUT', '/skills/alpha', { content: skill('omega') })
    expect(res).toMatchObject({ status: 200, body: { id: created.id, name: 'omega' } })
    expect((await call('GET', '/skills/alpha')).status).toBe(404)
    expect((await call('GET', '/skills/omega')).body.id).toBe(created.id)
  })

  test("a rename onto another skill's name: 409, nothing changed", async () => {
    await add(skill('alpha'))
    await add(skill('beta'))
    const res = await call('PUT', '/skills/alpha', { content: skill('beta') })
    expect(res).toMatchObject({ status: 409, body: { detail: "A skill named 'beta' already exists in this agent" } })
    expect((await call('GET', '/skills')).body.map((s: any) => s.name)).toEqual(['alpha', 'beta'])
  })

  test('the same content again changes nothing, not even updated_at or the Draft chip', async () => {
    t.clock.set('2026-04-01T10:00:00.000Z')
    const created = (await add(skill('alpha'))).body
    expect((await call('POST', '/publish')).status).toBe(201)
    t.clock.set('2026-04-01T12:00:00.000Z')
    expect((await call('PUT', '/skills/alpha', { content: created.content })).body).toEqual(created)
    expect((await call('GET', '')).body).toMatchObject({ has_unpublished_changes: false })
  })

  test('invalid content: 422 and the skill is unchanged', async () => {
    const created = (await add(skill('alpha'))).body
    const res = await call('PUT', '/skills/alpha', { content: '---\nname: alpha\n---\n' })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'content'],
        msg: 'Missing required field in frontmatter: description',
        type: 'skill_invalid',
        ctx: { field: 'description', code: 'description_missing' },
      },
    ])
    expect((await call('GET', '/skills/alpha')).body).toEqual(created)
  })

  test('an unknown skill: 404 (PUT does not create; POST does)', async () => {
    expect(await call('PUT', '/skills/nope', { content: skill('nope') })).toMatchObject({ status: 404, body: SKILL_NOT_FOUND })
    expect(await call('PUT', '/skills/nope', { content: 'not a skill' })).toMatchObject({ status: 404, body: SKILL_NOT_FOUND })
    expect((await call('GET', '/skills')).body).toEqual([])
  })
})

describe('DELETE /api/agents/{name}/skills/{skill_name}', () => {
  test('204, then the skill is gone and its name is free', async () => {
    await add(skill('alpha'))
    await add(skill('beta'))
    const res = await call('DELETE', '/skills/alpha')
    expect(res.status).toBe(204)
    expect(res.body).toBeNull()
    expect((await call('GET', '/skills')).body.map((s: any) => s.name)).toEqual(['beta'])
    expect((await add(skill('alpha'))).status).toBe(201)
  })

  test('an unknown skill: 404', async () => {
    expect(await call('DELETE', '/skills/nope')).toMatchObject({ status: 404, body: SKILL_NOT_FOUND })
  })
})

describe('publish and restore carry the skills', () => {
  test('add → publish → change → live keeps v1 → restore v1 brings the draft skills back', async () => {
    const alpha = (await add(skill('alpha', 'Alpha v1.'))).body
    expect((await call('POST', '/publish')).status).toBe(201)

    await call('PUT', '/skills/alpha', { content: skill('alpha', 'Alpha v2.') })
    await call('DELETE', '/skills/alpha')
    await add(skill('beta'))
    expect((await call('GET', '/skills')).body.map((s: any) => s.name)).toEqual(['beta'])

    const live = await t.request('GET', `/api/mcp/list_skills?genai_app=bot-${agentCount}&app_type=agent&detail_level=summary`, { token: viewer.token })
    expect(live.body).toEqual({ skill_list: [{ id: alpha.id, name: 'alpha', description: 'Alpha v1.' }] })

    expect((await call('POST', '/versions/1/restore')).body).toMatchObject({ has_unpublished_changes: false })
    const { content: _, ...alphaMetadata } = alpha
    expect((await call('GET', '/skills')).body).toEqual([alphaMetadata])
    expect((await call('GET', '/skills/alpha')).body).toEqual(alpha)
  })

  test('publishing v2 with changed skills makes them live; switching live back shows v1 again', async () => {
    await add(skill('alpha', 'Alpha v1.'))
    await call('POST', '/publish')
    await call('PUT', '/skills/alpha', { content: skill('alpha', 'Alpha v2.') })
    await call('POST', '/publish')
    const list = () => t.request('GET', `/api/mcp/list_skills?genai_app=bot-${agentCount}&app_type=agent&detail_level=summary`, { token: owner.token })
    expect((await list()).body.skill_list.map((s: any) => s.description)).toEqual(['Alpha v2.'])
    await call('POST', '/live', { version: 1 })
    expect((await list()).body.skill_list.map((s: any) => s.description)).toEqual(['Alpha v1.'])
    // The draft did not move.
    expect((await call('GET', '/skills/alpha')).body.description).toBe('Alpha v2.')
  })

  test('deleting the agent deletes its skills; a new agent of the same name starts with none', async () => {
    await add(skill('alpha'))
    expect((await call('DELETE', '')).status).toBe(204)
    expect(
      (await t.request('POST', '/api/agents', { token: owner.token, body: { name: `bot-${agentCount}`, description: 'again', instructions: 'i' } })).status,
    ).toBe(201)
    expect((await call('GET', '/skills')).body).toEqual([])
  })
})

describe('roles', () => {
  const actions = (): [string, string, string, unknown?][] => [
    ['list', 'GET', '/skills'],
    ['get', 'GET', '/skills/alpha'],
    ['add', 'POST', '/skills', { content: skill('beta') }],
    ['replace', 'PUT', '/skills/alpha', { content: skill('alpha', 'Changed.') }],
    ['delete', 'DELETE', '/skills/alpha'],
  ]
  const run = async (token: string) => {
    const result: Record<string, [number, unknown]> = {}
    for (const [label, method, path, body] of actions()) {
      const res = await call(method, path, body, token)
      result[label] = [res.status, res.body]
    }
    return result
  }
  beforeEach(async () => {
    expect((await add(skill('alpha'))).status).toBe(201)
    expect((await call('POST', '/publish')).status).toBe(201)
  })

  test('viewers: 403 on every draft skill route (they read live skills through list_skills)', async () => {
    expect(await run(viewer.token)).toEqual({
      list: [403, OWNERS_ONLY_DRAFT],
      get: [403, OWNERS_ONLY_DRAFT],
      add: [403, OWNERS_ONLY],
      replace: [403, OWNERS_ONLY],
      delete: [403, OWNERS_ONLY],
    })
  })

  test('admins who are not members: 403 like viewers', async () => {
    expect(await run(adminToken)).toEqual({
      list: [403, OWNERS_ONLY_DRAFT],
      get: [403, OWNERS_ONLY_DRAFT],
      add: [403, OWNERS_ONLY],
      replace: [403, OWNERS_ONLY],
      delete: [403, OWNERS_ONLY],
    })
  })

  test('everyone else: 404 Agent not found, so the agent does not leak', async () => {
    const statuses = await run(outsider.token)
    for (const [status, body] of Object.values(statuses)) expect([status, body]).toEqual([404, AGENT_NOT_FOUND])
  })

  test('an unknown agent: 404 for its owner-to-be too', async () => {
    expect(await t.request('GET', '/api/agents/nope/skills', { token: owner.token })).toMatchObject({ status: 404, body: AGENT_NOT_FOUND })
    expect(await t.request('POST', '/api/agents/nope/skills', { token: owner.token, body: { content: skill('x') } })).toMatchObject({
      status: 404,
      body: AGENT_NOT_FOUND,
    })
  })

  test('a stranger sending invalid content gets 404 and a viewer 403, not a 422 about the content', async () => {
    expect((await add('not a skill', outsider.token)).status).toBe(404)
    expect((await add('not a skill', viewer.token)).status).toBe(403)
    expect((await call('PUT', '/skills/alpha', { content: 'not a skill' }, viewer.token)).status).toBe(403)
  })

  test('promoted to owner, a former viewer may edit', async () => {
    expect((await t.request('POST', `${bot}/members`, { token: owner.token, body: { email: 'viewer@example.com', role: 'owner' } })).status).toBe(200)
    expect((await add(skill('beta'), viewer.token)).status).toBe(201)
  })

  test('without a token: 401', async () => {
    for (const [, method, path, body] of actions()) expect((await t.request(method, `${bot}${path}`, { body })).status).toBe(401)
  })
})

describe('licence lapse', () => {
  test('after expiry plus grace, skills can be read but not changed (402)', async () => {
    const s = await startTestServer()
    try {
      const { adminToken: token } = await s.provision({ days: 30 })
      await s.request('POST', '/api/agents', { token, body: { name: 'bot', description: 'd', instructions: 'i' } })
      await s.request('POST', '/api/agents/bot/skills', { token, body: { content: skill('alpha') } })
      s.clock.advance(45 * 86_400_000)
      const fresh = await s.login(ADMIN.email, ADMIN.password)
      expect((await s.request('GET', '/api/agents/bot/skills', { token: fresh })).status).toBe(200)
      expect((await s.request('GET', '/api/agents/bot/skills/alpha', { token: fresh })).status).toBe(200)
      for (const [method, path, body] of [
        ['POST', '/api/agents/bot/skills', { content: skill('beta') }],
        ['PUT', '/api/agents/bot/skills/alpha', { content: skill('alpha', 'x') }],
        ['DELETE', '/api/agents/bot/skills/alpha'],
      ] as const) {
        expect(await s.request(method, path, { token: fresh, body })).toMatchObject({ status: 402, body: { detail: 'License expired' } })
      }
    } finally {
      await s.close()
    }
  })
})
