// Large APIs as tools: above the organisation's mcp_operation_tool_limit an endpoint offers find_operations and
// call_operation instead of one tool per operation; tools/list pages at 1,000 tools; the console reads the mode and the
// count from GET /api/agents/{name}/tools and GET /api/applications/{api_name}/tools.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { agentWithEcho, connectV1, connectV2, type McpWorld, recordedCalls, rpc, startMcpWorld } from './helpers.ts'

let w: McpWorld
let upstream: ReturnType<typeof Bun.serve>
let agent: string

const FILLER = 66
/** Four operations a model would look for, among 66 others: 70 in all, above the default limit of 64. */
function incidentsApi(serverUrl: string, filler = FILLER) {
  const paths: Record<string, unknown> = {
    '/incidents': {
      get: { operationId: 'listIncidents', summary: 'List incidents', tags: ['Incidents'], responses: { '200': { description: 'ok' } } },
      post: { operationId: 'createIncident', summary: 'Open a new incident', tags: ['Incidents'], responses: { '201': { description: 'ok' } } },
    },
    '/incidents/{id}': {
      get: {
        operationId: 'getIncident',
        summary: 'Read one incident',
        tags: ['Incidents'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/users/{id}/oncall': {
      get: {
        operationId: 'getOnCallSchedule',
        summary: "A user's on-call schedule",
        tags: ['Schedules'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  }
  for (let i = 0; i < filler; i++)
    paths[`/widgets-${i}/{id}`] = {
      get: {
        operationId: `getWidget${i}`,
        summary: `Read widget ${i}`,
        tags: ['Widgets'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    }
  return { openapi: '3.1.0', info: { title: 'Incidents', version: '1' }, servers: [{ url: serverUrl }], paths }
}

const setLimit = (limit: unknown, token = w.admin) => w.t.request('PUT', '/api/org/settings', { token, body: { mcp_operation_tool_limit: limit } })

beforeAll(async () => {
  upstream = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => Response.json({ path: new URL(request.url).pathname }) })
  w = await startMcpWorld({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  const base = `http://127.0.0.1:${upstream.port}`
  expect((await uploadSpec(w.t, w.admin, incidentsApi(base), { api_name: 'incidents', global_spec: 'true', create_mcp: 'true' })).status).toBe(201)
  agent = await agentWithEcho(w)
  expect((await w.t.request('PATCH', `/api/agents/${agent}`, { token: w.owner.token, body: { applications: [{ api_name: 'incidents' }] } })).status).toBe(200)
  expect((await w.t.request('POST', `/api/agents/${agent}/publish`, { token: w.owner.token, body: {} })).status).toBe(201)
})
afterAll(async () => {
  await w.stop()
  upstream.stop(true)
})

describe('the organisation setting mcp_operation_tool_limit', () => {
  test('64 by default; admins change it within 0–1000 (audited); anything else is a 422 on the field, members get 403', async () => {
    expect((await w.t.request('GET', '/api/org/settings', { token: w.admin })).body.mcp_operation_tool_limit).toBe(64)
    for (const bad of [-1, 1001, 2.5, 'ten', null]) {
      const res = await setLimit(bad)
      expect([bad, res.status]).toEqual([bad, 422])
      expect(res.body.detail[0].loc).toEqual(['body', 'mcp_operation_tool_limit'])
    }
    expect((await setLimit(10, w.owner.token)).status).toBe(403)
    const changed = await setLimit(500)
    expect(changed.status).toBe(200)
    expect(changed.body.mcp_operation_tool_limit).toBe(500)
    const audit = await w.t.request('GET', '/api/audit?action=org_settings.update', { token: w.admin })
    expect(audit.body[0].details.changes.mcp_operation_tool_limit).toEqual({ from: 64, to: 500 })
    expect((await setLimit(64)).status).toBe(200)
  })
})

describe('above the limit: find_operations and call_operation', () => {
  test('tools/list offers the two tools in the operations’ place, in the stable order; the console sees the mode and the count', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow', 'find_operations', 'call_operation'])
    expect(tools[2]!.inputSchema).toMatchObject({ type: 'object', required: ['query'] })
    expect(tools[2]!.annotations).toMatchObject({ readOnlyHint: true })
    await client.close()
    const offer = await w.t.request('GET', `/api/agents/${agent}/tools`, { token: w.viewer.token })
    expect(offer.status).toBe(200)
    expect(offer.body).toEqual({
      name: agent,
      version: 'live',
      operation_mode: 'dynamic',
      operation_count: 70,
      operation_tool_limit: 64,
      tools: [
        { name: 'run_workflow', title: 'Run a workflow' },
        { name: 'resume_workflow', title: 'Decide an approval' },
        { name: 'find_operations', title: 'Find API operations' },
        { name: 'call_operation', title: 'Call an API operation' },
      ],
      resources: 0,
    })
  })

  test('find_operations ranks by name, summary, tags and path, and returns each hit’s input schema', async () => {
    const client = await connectV2(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const found = (await client.callTool({ name: 'find_operations', arguments: { query: 'list the open incidents', limit: 3 } })) as any
    expect(found.isError).toBeFalsy()
    const hits = JSON.parse(found.content[0].text)
    expect(hits).toHaveLength(3)
    expect(hits[0]).toEqual({ api_name: 'incidents', operation_id: 'listIncidents', summary: 'List incidents', input_schema: expect.any(Object) })
    const oncall = JSON.parse(((await client.callTool({ name: 'find_operations', arguments: { query: 'who is on call' } })) as any).content[0].text)
    expect(oncall[0].operation_id).toBe('getOnCallSchedule')
    expect(oncall[0].input_schema).toMatchObject({ type: 'object', required: ['id'] })
    const exact = JSON.parse(((await client.callTool({ name: 'find_operations', arguments: { query: 'getWidget17' } })) as any).content[0].text)
    expect(exact[0].operation_id).toBe('getWidget17')
    expect(exact.length).toBeLessThanOrEqual(10)
    const elsewhere = (await client.callTool({ name: 'find_operations', arguments: { query: 'incidents', api_name: 'nope' } })) as any
    expect(elsewhere.isError).toBe(true)
    expect(elsewhere.content[0].text).toContain("No application 'nope'")
    const badLimit = (await client.callTool({ name: 'find_operations', arguments: { query: 'x', limit: 500 } })) as any
    expect(badLimit.isError).toBe(true)
    expect(badLimit.content[0].text).toMatch(/^limit: /)
    await client.close()
  })

  test('call_operation runs and records the operation as its own tool would; bad arguments and unknown operations are tool errors', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token, 'dyn-client')
    const called = (await client.callTool({
      name: 'call_operation',
      arguments: { api_name: 'incidents', operation_id: 'getIncident', arguments: { id: 'I-7' } },
    })) as any
    expect(called.isError).toBeFalsy()
    expect(called.structuredContent).toMatchObject({ status: 200, body: { path: '/incidents/I-7' } })
    const bad = (await client.callTool({ name: 'call_operation', arguments: { api_name: 'incidents', operation_id: 'getIncident', arguments: {} } })) as any
    expect(bad.isError).toBe(true)
    expect(bad.content[0].text).toMatch(/^id: /)
    const unknown = (await client.callTool({ name: 'call_operation', arguments: { api_name: 'incidents', operation_id: 'nope' } })) as any
    expect(unknown.isError).toBe(true)
    expect(unknown.content[0].text).toContain('find_operations lists')
    const missing = (await client.callTool({ name: 'call_operation', arguments: { operation_id: 'getIncident' } })) as any
    expect(missing.isError).toBe(true)
    expect(missing.content[0].text).toContain('api_name')
    await client.close()
    const calls = (await recordedCalls(w)).filter((row) => row.client_source === 'dyn-client')
    expect(calls.map((row) => [row.action, row.is_error, JSON.parse(row.arguments!)])).toEqual([
      ['getIncident', 0, { id: 'I-7' }],
      ['getIncident', 1, {}],
      ['call_operation', 1, { api_name: 'incidents', operation_id: 'nope' }],
      ['call_operation', 1, { operation_id: 'getIncident' }],
    ])
  })

  test('the MCP app over the same API is in the dynamic mode too', async () => {
    const client = await connectV1(`${w.base}/app/incidents/mcp`, w.outsider.token)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['find_operations', 'call_operation'])
    await client.close()
    const offer = await w.t.request('GET', '/api/applications/incidents/tools', { token: w.outsider.token })
    expect(offer.body).toMatchObject({ name: 'incidents', version: null, operation_mode: 'dynamic', operation_count: 70 })
  })

  test('raising the limit lists one tool per operation again, at once', async () => {
    expect((await setLimit(70)).status).toBe(200)
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(72)
    expect(tools.slice(0, 5).map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow', 'listIncidents', 'createIncident', 'getIncident'])
    await client.close()
    expect((await w.t.request('GET', `/api/agents/${agent}/tools`, { token: w.viewer.token })).body).toMatchObject({
      operation_mode: 'per_operation',
      operation_count: 70,
      operation_tool_limit: 70,
    })
    expect((await setLimit(64)).status).toBe(200)
  })
})

describe('GET …/tools', () => {
  test('the draft for owners only (403 for a viewer); 404 for an agent or MCP app the caller may not see; 422 for an unknown version', async () => {
    const draft = await w.t.request('GET', `/api/agents/${agent}/tools?version=draft`, { token: w.owner.token })
    expect(draft.status).toBe(200)
    expect(draft.body.tools.map((tool: { name: string }) => tool.name).slice(0, 2)).toEqual(['get_agent', 'update_agent'])
    expect(draft.body.operation_mode).toBe('dynamic')
    expect((await w.t.request('GET', `/api/agents/${agent}/tools?version=draft`, { token: w.viewer.token })).status).toBe(403)
    expect((await w.t.request('GET', `/api/agents/${agent}/tools`, { token: w.outsider.token })).status).toBe(404)
    expect((await w.t.request('GET', `/api/agents/${agent}/tools?version=v1`, { token: w.owner.token })).status).toBe(422)
    expect((await w.t.request('GET', '/api/applications/nope/tools', { token: w.owner.token })).status).toBe(404)
    expect((await w.t.request('GET', `/api/agents/${agent}/tools`)).status).toBe(401)
  })
})

describe('tools/list pages', () => {
  test('1,000 tools a page with an opaque cursor; the pages add up to the whole list; a foreign cursor is -32602', async () => {
    const big = incidentsApi(`http://127.0.0.1:${upstream.port}`, 996) // 1,000 operations
    expect((await uploadSpec(w.t, w.admin, big, { api_name: 'incidents-big', global_spec: 'true' })).status).toBe(201)
    const name = await agentWithEcho(w)
    await w.t.request('PATCH', `/api/agents/${name}`, { token: w.owner.token, body: { applications: [{ api_name: 'incidents-big' }] } })
    await w.t.request('POST', `/api/agents/${name}/publish`, { token: w.owner.token, body: {} })
    expect((await setLimit(1000)).status).toBe(200)
    const url = `${w.base}/agent/${name}/mcp`
    const list = (cursor?: unknown) => rpc(url, w.owner.token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor === undefined ? {} : { cursor } })
    const first = await list()
    expect(first.status).toBe(200)
    expect(first.body.result.tools).toHaveLength(1000)
    expect(typeof first.body.result.nextCursor).toBe('string')
    const second = await list(first.body.result.nextCursor)
    expect(second.body.result.tools).toHaveLength(2)
    expect(second.body.result.nextCursor).toBeUndefined()
    const names = [...first.body.result.tools, ...second.body.result.tools].map((tool: { name: string }) => tool.name)
    expect(new Set(names).size).toBe(1002)
    expect(names.slice(0, 3)).toEqual(['run_workflow', 'resume_workflow', 'listIncidents'])
    // The same cursor gives the same page.
    expect((await list(first.body.result.nextCursor)).body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(names.slice(1000))
    const foreign = await list('bm90LWEtY3Vyc29y')
    expect(foreign.body.error).toMatchObject({ code: -32602 })
    const client = await connectV2(url, w.owner.token)
    const page = await client.listTools({ cursor: first.body.result.nextCursor })
    expect(page.tools.map((tool) => tool.name)).toEqual(names.slice(1000))
    await client.close()

    // Back to the default: the same agent is served in the dynamic mode, in a small answer.
    expect((await setLimit(64)).status).toBe(200)
    const dynamic = await list()
    expect(dynamic.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual([
      'run_workflow',
      'resume_workflow',
      'find_operations',
      'call_operation',
    ])
    expect(JSON.stringify(dynamic.body).length).toBeLessThan(8 * 1024)
  })

  test('GET …/operations pages by default: 100 unless limit says, at most 500', async () => {
    const page = (query = '') => w.t.request('GET', `/api/applications/incidents-big/operations${query}`, { token: w.owner.token })
    const first = await page()
    expect(first.status).toBe(200)
    expect(first.body).toHaveLength(100)
    expect(first.body[0].operation_id).toBe('listIncidents')
    const last = await page('?limit=500&offset=900')
    expect(last.body).toHaveLength(100)
    expect(last.body.at(-1).operation_id).toBe('getWidget995')
    expect((await page('?offset=1000')).body).toEqual([])
    const tooMany = await page('?limit=501')
    expect(tooMany.status).toBe(422)
    expect(tooMany.body.detail[0].loc).toEqual(['query', 'limit'])
  })
})
