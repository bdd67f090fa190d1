// Skills of MCP apps (CONTRACT §14): managed at /api/applications/{api_name}/skills like an agent's, listed by
// list_skills app_type=mcp, and served by /app/{api_name}/mcp as load_skill and skill:// resources.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { connectV1, type McpWorld, startMcpWorld } from './helpers.ts'

let w: McpWorld

const skill = (name: string, body = 'Search first, then answer.') => `---\nname: ${name}\ndescription: How to use the ${name} API well.\n---\n${body}\n`
const api = (title: string) => ({
  openapi: '3.1.0',
  info: { title, version: '1' },
  servers: [{ url: 'https://api.example.com' }],
  paths: { '/search': { get: { operationId: 'search', responses: { '200': { description: 'ok' } } } } },
})

beforeAll(async () => {
  w = await startMcpWorld()
  expect((await uploadSpec(w.t, w.admin, api('Catalog'), { api_name: 'catalog', global_spec: 'true', create_mcp: 'true' })).status).toBe(201)
  expect((await uploadSpec(w.t, w.owner.token, api('Private'), { api_name: 'private', create_mcp: 'true' })).status).toBe(201)
  expect((await uploadSpec(w.t, w.admin, api('Plain'), { api_name: 'plain', global_spec: 'true' })).status).toBe(201)
})
afterAll(() => w.stop())

describe('/api/applications/{api_name}/skills', () => {
  test('the owner (or an admin) adds, reads, replaces and deletes; a duplicate name is 409; invalid content 422', async () => {
    const added = await w.t.request('POST', '/api/applications/catalog/skills', { token: w.admin, body: { content: skill('catalog-search') } })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ name: 'catalog-search', description: 'How to use the catalog-search API well.' })
    const again = await w.t.request('POST', '/api/applications/catalog/skills', { token: w.admin, body: { content: skill('catalog-search') } })
    expect(again).toMatchObject({ status: 409, body: { detail: "A skill named 'catalog-search' already exists in this application" } })
    const invalid = await w.t.request('POST', '/api/applications/catalog/skills', { token: w.admin, body: { content: 'no frontmatter' } })
    expect(invalid.status).toBe(422)
    expect(invalid.body.detail[0]).toMatchObject({ loc: ['body', 'content'], type: 'skill_invalid' })
    const replaced = await w.t.request('PUT', '/api/applications/catalog/skills/catalog-search', {
      token: w.admin,
      body: { content: skill('catalog-search', 'Always filter by category.') },
    })
    expect(replaced.status).toBe(200)
    expect(replaced.body.id).toBe(added.body.id)
    const one = await w.t.request('GET', '/api/applications/catalog/skills/catalog-search', { token: w.viewer.token })
    expect(one.body.content).toContain('Always filter by category.')
    const list = await w.t.request('GET', '/api/applications/catalog/skills', { token: w.outsider.token })
    expect(list.body.map((s: any) => s.name)).toEqual(['catalog-search'])
    const temp = await w.t.request('POST', '/api/applications/catalog/skills', { token: w.admin, body: { content: skill('temp') } })
    expect(temp.status).toBe(201)
    expect((await w.t.request('DELETE', '/api/applications/catalog/skills/temp', { token: w.admin })).status).toBe(204)
    expect((await w.t.request('DELETE', '/api/applications/catalog/skills/temp', { token: w.admin })).status).toBe(404)
  })

  test('a member who only sees the application may read but not write (403); one who cannot see it gets 404', async () => {
    const write = await w.t.request('POST', '/api/applications/catalog/skills', { token: w.owner.token, body: { content: skill('mine') } })
    expect(write.status).toBe(403)
    expect((await w.t.request('POST', '/api/applications/private/skills', { token: w.owner.token, body: { content: skill('mine') } })).status).toBe(201)
    expect((await w.t.request('GET', '/api/applications/private/skills', { token: w.outsider.token })).status).toBe(404)
    // 404 before validation: a stranger learns nothing from a 422.
    expect((await w.t.request('POST', '/api/applications/private/skills', { token: w.outsider.token, body: { content: 'bad' } })).status).toBe(404)
    expect((await w.t.request('GET', '/api/applications/nothing/skills', { token: w.admin })).status).toBe(404)
  })
})

describe('list_skills app_type=mcp', () => {
  test("an MCP app's skills, summary or full; an application without create_mcp, or not visible, is 404 App not found", async () => {
    const full = await w.t.request('GET', '/api/mcp/list_skills?app_type=mcp&genai_app=catalog', { token: w.viewer.token })
    expect(full.status).toBe(200)
    expect(full.body.skill_list).toEqual([expect.objectContaining({ name: 'catalog-search', created_at: expect.any(String) })])
    const summary = await w.t.request('GET', '/api/mcp/list_skills?app_type=mcp&genai_app=catalog&detail_level=summary', { token: w.viewer.token })
    expect(Object.keys(summary.body.skill_list[0]).sort()).toEqual(['description', 'id', 'name'])
    for (const name of ['plain', 'private']) {
      const res = await w.t.request('GET', `/api/mcp/list_skills?app_type=mcp&genai_app=${name}`, { token: w.outsider.token })
      expect(res).toMatchObject({ status: 404, body: { detail: 'App not found' } })
    }
  })
})

describe('/app/{api_name}/mcp', () => {
  test('serves load_skill and the skills as skill:// resources, and sees a new skill at once', async () => {
    const client = await connectV1(`${w.base}/app/catalog/mcp`, w.outsider.token)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search', 'load_skill'])
    const loaded = (await client.callTool({ name: 'load_skill', arguments: { name: 'catalog-search' } })) as any
    expect(loaded.structuredContent).toMatchObject({ name: 'catalog-search', body: 'Always filter by category.' })
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['skill://catalog/catalog-search'])
    await w.t.request('POST', '/api/applications/catalog/skills', { token: w.admin, body: { content: skill('catalog-browse') } })
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['skill://catalog/catalog-search', 'skill://catalog/catalog-browse'])
    await client.close()
  })
})
