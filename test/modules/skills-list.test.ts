// GET /api/mcp/list_skills (CONTRACT §11): live skills of an agent, summary or full, version=draft for owners, MCP apps 404.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

type User = { id: string; token: string }
let t: TestServer
let adminToken: string
let owner: User
let viewer: User
let outsider: User
beforeAll(async () => {
  t = await startTestServer({ now: '2026-05-01T09:00:00.000Z' })
  ;({ adminToken } = await t.provision())
  owner = await t.createUser(adminToken, { email: 'owner@example.com' })
  viewer = await t.createUser(adminToken, { email: 'viewer@example.com' })
  outsider = await t.createUser(adminToken, { email: 'outsider@example.com' })
})
afterAll(() => t.close())

let agentCount = 0
let app = ''
beforeEach(async () => {
  app = `bot-${++agentCount}`
  expect((await t.request('POST', '/api/agents', { token: owner.token, body: { name: app, description: 'A bot', instructions: 'Help.' } })).status).toBe(201)
  expect((await t.request('POST', `/api/agents/${app}/members`, { token: owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })).status).toBe(
    201,
  )
})

const FULL_SKILL = [
  '---',
  'name: pdf-processing',
  'description: Extracts text from PDFs.',
  'license: Apache-2.0',
  'compatibility: Needs poppler',
  'metadata:',
  '  author: example-org',
  '  version: 1.0',
  'allowed-tools: Bash(pdftotext:*) Read',
  '---',
  '# PDF processing',
  '',
  'The body, which lists never show.',
].join('\n')
const PLAIN_SKILL = '---\nname: plain\ndescription: Plain.\n---\nBody.\n'

const addSkill = (content: string) => t.request('POST', `/api/agents/${app}/skills`, { token: owner.token, body: { content } })
const publish = () => t.request('POST', `/api/agents/${app}/publish`, { token: owner.token })
const list = (query: Record<string, string>, token = owner.token) =>
  t.request('GET', `/api/mcp/list_skills?${new URLSearchParams({ genai_app: app, app_type: 'agent', ...query })}`, { token })

describe('GET /api/mcp/list_skills for agents', () => {
  test('full (the default): every frontmatter field under its own key, id and timestamps, never the body', async () => {
    t.clock.set('2026-05-01T10:00:00.000Z')
    const full = (await addSkill(FULL_SKILL)).body
    const plain = (await addSkill(PLAIN_SKILL)).body
    await publish()
    const res = await list({})
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      skill_list: [
        {
          id: full.id,
          name: 'pdf-processing',
          description: 'Extracts text from PDFs.',
          license: 'Apache-2.0',
          compatibility: 'Needs poppler',
          metadata: { author: 'example-org', version: '1.0' },
          'allowed-tools': 'Bash(pdftotext:*) Read',
          created_at: '2026-05-01T10:00:00.000Z',
          updated_at: '2026-05-01T10:00:00.000Z',
        },
        {
          id: plain.id,
          name: 'plain',
          description: 'Plain.',
          license: null,
          compatibility: null,
          metadata: null,
          'allowed-tools': null,
          created_at: '2026-05-01T10:00:00.000Z',
          updated_at: '2026-05-01T10:00:00.000Z',
        },
      ],
    })
    expect((await list({ detail_level: 'full' })).body).toEqual(res.body)
    expect(JSON.stringify(res.body)).not.toContain('lists never show')
  })

  test('summary: items are exactly {id, name, description}', async () => {
    const full = (await addSkill(FULL_SKILL)).body
    await publish()
    const res = await list({ detail_level: 'summary' })
    expect(res.body).toEqual({ skill_list: [{ id: full.id, name: 'pdf-processing', description: 'Extracts text from PDFs.' }] })
    expect(Object.keys(res.body.skill_list[0])).toEqual(['id', 'name', 'description'])
  })

  test('a never-published agent lists no live skills, whatever its draft holds', async () => {
    await addSkill(PLAIN_SKILL)
    expect((await list({})).body).toEqual({ skill_list: [] })
    expect((await list({}, viewer.token)).body).toEqual({ skill_list: [] })
  })

  test('the live version, not the draft: draft changes show only with version=draft', async () => {
    await addSkill(PLAIN_SKILL)
    await publish()
    await addSkill(FULL_SKILL)
    expect((await list({ detail_level: 'summary' })).body.skill_list.map((s: any) => s.name)).toEqual(['plain'])
    expect((await list({ detail_level: 'summary', version: 'live' })).body.skill_list.map((s: any) => s.name)).toEqual(['plain'])
    expect((await list({ detail_level: 'summary', version: 'draft' })).body.skill_list.map((s: any) => s.name)).toEqual(['plain', 'pdf-processing'])
  })

  test('viewers and admins see the live skills; only owners may ask for the draft', async () => {
    await addSkill(PLAIN_SKILL)
    await publish()
    expect((await list({ detail_level: 'summary' }, viewer.token)).body.skill_list).toHaveLength(1)
    expect((await list({ detail_level: 'summary' }, adminToken)).body.skill_list).toHaveLength(1)
    for (const token of [viewer.token, adminToken]) {
      expect(await list({ version: 'draft' }, token)).toMatchObject({
        status: 403,
        body: { detail: 'Only owners can see the draft and versions of this agent' },
      })
    }
  })

  test('an agent the caller may not see, or that does not exist: 404 Agent not found', async () => {
    await publish()
    for (const version of ['live', 'draft']) expect(await list({ version }, outsider.token)).toMatchObject({ status: 404, body: { detail: 'Agent not found' } })
    expect(await list({ genai_app: 'no-such-agent' })).toMatchObject({ status: 404, body: { detail: 'Agent not found' } })
  })
})

describe('GET /api/mcp/list_skills: other apps and bad queries', () => {
  test('app_type=mcp for an MCP app that does not exist: 404 App not found', async () => {
    expect(await list({ app_type: 'mcp' })).toMatchObject({ status: 404, body: { detail: 'App not found' } })
    expect(await list({ app_type: 'mcp', genai_app: 'anything', detail_level: 'summary' })).toMatchObject({ status: 404, body: { detail: 'App not found' } })
  })

  test('genai_app and app_type are required: 422 for each missing one', async () => {
    const res = await t.request('GET', '/api/mcp/list_skills', { token: owner.token })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc.join('.'), d.type]).sort()).toEqual([
      ['query.app_type', 'missing'],
      ['query.genai_app', 'missing'],
    ])
  })

  test('values outside the enums: 422 literal_error for each', async () => {
    const res = await list({ app_type: 'gpt', detail_level: 'brief', version: 'v1' })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc.join('.'), d.type, d.msg])).toEqual([
      ['query.app_type', 'literal_error', "Input should be 'agent' or 'mcp'"],
      ['query.detail_level', 'literal_error', "Input should be 'summary' or 'full'"],
      ['query.version', 'literal_error', "Input should be 'live' or 'draft'"],
    ])
  })

  test('without a token: 401', async () => {
    expect((await t.request('GET', `/api/mcp/list_skills?genai_app=${app}&app_type=agent`)).status).toBe(401)
  })

  test('the OpenAPI document describes the route and its query', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body
    const op = doc.paths['/api/mcp/list_skills'].get
    expect(op.parameters.map((p: any) => [p.name, p.required])).toEqual([
      ['genai_app', true],
      ['app_type', true],
      ['detail_level', false],
      ['version', false],
    ])
    for (const path of ['/api/skill/validate', '/api/agents/{name}/skills', '/api/agents/{name}/skills/{skill_name}']) expect(doc.paths[path]).toBeDefined()
  })
})
