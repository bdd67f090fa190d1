// What a live endpoint offers besides workflows: one tool per operation of the agent's applications (run with the
// caller's credential against a real upstream on 127.0.0.1), MCP apps, skills as load_skill and resources, and the
// approval rules of resume_workflow.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { gateFlow } from '../workflows/helpers.ts'
import { agentWithEcho, connectV1, connectV2, type McpWorld, recordedCalls, rpc, startMcpWorld } from './helpers.ts'

let w: McpWorld
let upstream: ReturnType<typeof Bun.serve>
let agent: string
const seen: { url: string; key: string | null }[] = []

const ticketsApi = (serverUrl: string) => ({
  openapi: '3.1.0',
  info: { title: 'Tickets', version: '1' },
  servers: [{ url: serverUrl }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
  paths: {
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        summary: 'Read a ticket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/tickets': { post: { operationId: 'run_workflow', summary: 'Clashes with a reserved tool name', responses: { '201': { description: 'ok' } } } },
    '/search': { get: { operationId: 'search.all', summary: 'Search', responses: { '200': { description: 'ok' } } } },
  },
})

const SKILL = `---
name: triage
description: How to triage a ticket.
---
Read the ticket, then label it.
`

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      seen.push({ url: url.pathname, key: request.headers.get('x-api-key') })
      if (url.pathname === '/tickets/missing') return Response.json({ error: 'no such ticket' }, { status: 404 })
      return Response.json({ id: url.pathname.split('/')[2] ?? null, state: 'open' })
    },
  })
  w = await startMcpWorld({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  const imported = await uploadSpec(w.t, w.admin, ticketsApi(`http://127.0.0.1:${upstream.port}`), {
    api_name: 'tickets',
    global_spec: 'true',
    create_mcp: 'true',
  })
  expect(imported.status).toBe(201)
  await w.t.request('PUT', '/api/applications/tickets/credentials', { token: w.owner.token, body: { scheme: 'key', api_key: 'owner-key' } })
  agent = await agentWithEcho(w)
  const saved = await w.t.request('PATCH', `/api/agents/${agent}`, { token: w.owner.token, body: { applications: [{ api_name: 'tickets' }] } })
  expect(saved.status).toBe(200)
  expect(saved.body.applications).toEqual([{ api_name: 'tickets' }])
  expect((await w.t.request('POST', `/api/agents/${agent}/skills`, { token: w.owner.token, body: { content: SKILL } })).status).toBe(201)
  expect((await w.t.request('POST', `/api/agents/${agent}/publish`, { token: w.owner.token, body: {} })).status).toBe(201)
})
afterAll(async () => {
  await w.stop()
  upstream.stop(true)
})

describe('operation tools', () => {
  test('listed after the workflow tools, named by operation id, prefixed when reserved, with safe characters', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow', 'getTicket', 'tickets__run_workflow', 'search_all', 'load_skill'])
    const getTicket = tools.find((tool) => tool.name === 'getTicket')!
    expect(getTicket.inputSchema).toMatchObject({ type: 'object', required: ['id'] })
    expect(getTicket.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true })
    await client.close()
  })

  test("a call runs the operation with the caller's credential and answers the upstream's body", async () => {
    const client = await connectV2(`${w.base}/agent/${agent}/mcp`, w.owner.token, 'zed')
    const result = (await client.callTool({ name: 'getTicket', arguments: { id: 'T-1' } })) as any
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({ status: 200, body: { id: 'T-1', state: 'open' } })
    expect(seen.at(-1)).toEqual({ url: '/tickets/T-1', key: 'owner-key' })
    await client.close()
    const calls = await recordedCalls(w)
    expect(calls.at(-1)).toMatchObject({ action: 'getTicket', api_title: agent, client_source: 'zed', is_error: 0 })
    // The MCP call is the record: the outbound call under it is not counted a second time as an api_action.
    const actions = await w.t.server.database.db.selectFrom('interactions').select('id').where('kind', '=', 'api_action').execute()
    expect(actions).toHaveLength(0)
  })

  test('upstream errors, bad arguments and a missing credential are tool errors a model can read', async () => {
    const owner = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    const missing = (await owner.callTool({ name: 'getTicket', arguments: { id: 'missing' } })) as any
    expect(missing.isError).toBe(true)
    expect(missing.content[0].text).toBe('Tickets answered 404 to getTicket: {"error":"no such ticket"}')
    const bad = (await owner.callTool({ name: 'getTicket', arguments: {} })) as any
    expect(bad.isError).toBe(true)
    expect(bad.content[0].text).toContain('id')
    await owner.close()
    const viewer = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const noKey = (await viewer.callTool({ name: 'getTicket', arguments: { id: 'T-2' } })) as any
    expect(noKey.isError).toBe(true)
    expect(noKey.content[0].text).toMatch(/credential/i)
    expect(seen.at(-1)!.url).not.toBe('/tickets/T-2')
    await viewer.close()
    const failed = (await recordedCalls(w)).filter((row) => row.is_error === 1)
    expect(failed.length).toBeGreaterThanOrEqual(3)
  })

  test('an application imported with create_mcp has its own endpoint with its operations as tools', async () => {
    const client = await connectV1(`${w.base}/app/tickets/mcp`, w.outsider.token)
    expect(client.getServerVersion()?.name).toBe('tickets')
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['getTicket', 'run_workflow', 'search_all'])
    await client.close()
  })

  test('an application without create_mcp has no endpoint', async () => {
    const plain = await uploadSpec(w.t, w.admin, ticketsApi('http://127.0.0.1:9'), { api_name: 'plain', global_spec: 'true' })
    expect(plain.status).toBe(201)
    const res = await rpc(`${w.base}/app/plain/mcp`, w.owner.token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ detail: 'Application not found' })
  })
})

describe('skills', () => {
  test('load_skill returns the body; skills are listed and readable as skill:// resources', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const loaded = (await client.callTool({ name: 'load_skill', arguments: { name: 'triage' } })) as any
    expect(loaded.isError).toBeFalsy()
    expect(loaded.content[0].text).toContain('Read the ticket, then label it.')
    const { resources } = await client.listResources()
    expect(resources).toEqual([{ uri: `skill://${agent}/triage`, name: 'triage', description: 'How to triage a ticket.', mimeType: 'text/markdown' }])
    const read = await client.readResource({ uri: `skill://${agent}/triage` })
    expect((read.contents[0] as any).text).toContain('Read the ticket')
    await expect(client.readResource({ uri: `skill://${agent}/nope` })).rejects.toThrow()
    await client.close()
  })
})

describe('resume_workflow', () => {
  test('only the starter decides, once; someone else and a second decision are tool errors', async () => {
    const saved = await w.t.request('POST', `/api/workflows/${agent}`, { token: w.owner.token, body: { name: 'refund', definition: gateFlow() } })
    expect(saved.status).toBe(201)
    await w.t.request('POST', `/api/agents/${agent}/publish`, { token: w.owner.token, body: {} })
    const viewer = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const started = (await viewer.callTool({ name: 'run_workflow', arguments: { workflow: 'refund', input: { amount: 20 } } })) as any
    expect(started.structuredContent.status).toBe('waiting_human')
    const runId = started.structuredContent.run_id
    const owner = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    const notTheirs = (await owner.callTool({ name: 'resume_workflow', arguments: { run_id: runId, decision: 'approve' } })) as any
    expect(notTheirs.isError).toBe(true)
    expect(notTheirs.content[0].text).toBe('Run not found')
    const approved = (await viewer.callTool({ name: 'resume_workflow', arguments: { run_id: runId, decision: 'approve' } })) as any
    expect(approved.isError).toBeFalsy()
    expect(approved.structuredContent.status).toBe('succeeded')
    const twice = (await viewer.callTool({ name: 'resume_workflow', arguments: { run_id: runId, decision: 'approve' } })) as any
    expect(twice.isError).toBe(true)
    expect(twice.content[0].text).toMatch(/not waiting|already/i)
    await viewer.close()
    await owner.close()
  })
})
