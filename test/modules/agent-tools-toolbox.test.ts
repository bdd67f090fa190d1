// The agent toolbox as chat, the gateway and GPT apps will use it (server.modules.toolbox.service): mock mode simulates
// every tool and records nothing; a run records the caller's client, conversation and message; a set of applications
// with the organisation's credentials only; resources are read when asked for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Principal } from '../../src/platform/auth/principal.ts'
import type { Toolbox } from '../../src/modules/toolbox/index.ts'
import { uploadSpec } from '../applications/helpers.ts'
import { type People, startWithPeople } from '../helpers/people.ts'
import { echoFlow } from '../mcp/helpers.ts'

let p: People
let toolbox: Toolbox
let upstream: ReturnType<typeof Bun.serve>
const hits: { path: string; key: string | null }[] = []

const ticketsApi = (serverUrl: string, title: string) => ({
  openapi: '3.1.0',
  info: { title, version: '1' },
  servers: [{ url: serverUrl }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
  paths: {
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        summary: 'Read a ticket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok', content: { 'application/json': { example: { id: 'T-0', state: 'sample' } } } } },
      },
    },
  },
})

const SKILL = '---\nname: triage\ndescription: How to triage a ticket.\n---\nRead the ticket, then label it.\n'

const principalOf = (userId: string, role: Principal['role'] = 'member'): Principal => ({
  userId,
  email: `${userId}@example.com`,
  name: userId,
  role,
  kind: 'person',
  via: 'access_token',
  tokenId: null,
})

const interactionCount = async () => {
  await p.t.server.modules.interactions.service.flush()
  return (await p.t.server.database.db.selectFrom('interactions').select('id').execute()).length
}

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname
      hits.push({ path, key: request.headers.get('x-api-key') })
      return Response.json({ id: path.split('/')[2], state: 'open' })
    },
  })
  p = await startWithPeople({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  toolbox = p.t.server.modules.toolbox.service
  const base = `http://127.0.0.1:${upstream.port}`
  expect((await uploadSpec(p.t, p.admin, ticketsApi(base, 'Tickets'), { api_name: 'tickets', global_spec: 'true' })).status).toBe(201)
  expect(
    (await uploadSpec(p.t, p.admin, ticketsApi(base, 'Shared Tickets'), { api_name: 'shared-tickets', global_spec: 'true', shared_security_info: 'true' }))
      .status,
  ).toBe(201)
  await p.t.request('PUT', '/api/applications/tickets/credentials', { token: p.owner.token, body: { scheme: 'key', api_key: 'owner-key' } })
  await p.t.request('PUT', '/api/applications/shared-tickets/credentials', { token: p.admin, body: { scheme: 'key', api_key: 'org-key' } })
  await p.t.request('POST', '/api/agents', { token: p.owner.token, body: { name: 'helper', description: 'Helps', instructions: 'Be brief.' } })
  await p.t.request('PATCH', '/api/agents/helper', { token: p.owner.token, body: { applications: [{ api_name: 'tickets' }] } })
  await p.t.request('POST', '/api/agents/helper/skills', { token: p.owner.token, body: { content: SKILL } })
  await p.t.request('POST', '/api/workflows/helper', { token: p.owner.token, body: { name: 'echo', definition: echoFlow() } })
  expect((await p.t.request('POST', '/api/agents/helper/publish', { token: p.owner.token, body: {} })).status).toBe(201)
})
afterAll(async () => {
  await p.t.close()
  upstream.stop(true)
})

describe('tools for an agent', () => {
  test('the live version in the contract order, with instructions and the skills as resources read when asked', async () => {
    const set = await toolbox.forAgent(principalOf(p.owner.id), 'helper', { version: 'live', mode: 'live' })
    expect(set.tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow', 'getTicket', 'load_skill'])
    expect(set).toMatchObject({ name: 'helper', instructions: 'Be brief.', mode: 'live', operations: { mode: 'per_operation', count: 1, limit: 64 } })
    expect(set.resources.map((resource) => resource.uri)).toEqual(['skill://helper/triage'])
    expect(await set.resources[0]!.read()).toEqual({ text: SKILL })
    expect(set.described().map((tool) => tool.name)).toEqual(set.tools.map((tool) => tool.name))
    await expect(toolbox.forAgent(principalOf(p.outsider.id), 'helper', { version: 'live', mode: 'live' })).rejects.toThrow('Agent not found')
    await expect(toolbox.forAgent(principalOf(p.viewer.id), 'helper', { version: 'draft', mode: 'live' })).rejects.toThrow('Agent not found')
  })

  test('a run records one interaction with the client, conversation and user message', async () => {
    const set = await toolbox.forAgent(principalOf(p.owner.id), 'helper', { version: 'live', mode: 'live' })
    const run = await toolbox.run(principalOf(p.owner.id), set, {
      name: 'getTicket',
      arguments: { id: 'T-9' },
      clientSource: 'agentbox-copilot',
      conversationId: 'conv-42',
      userInput: 'What does T-9 say?',
    })
    expect(run.outcome).toEqual({ ok: true, content: { status: 200, body: { id: 'T-9', state: 'open' }, truncated: false, duration_ms: expect.any(Number) } })
    expect(hits.at(-1)).toEqual({ path: '/tickets/T-9', key: 'owner-key' })
    const id = await run.recorded
    const row = await p.t.server.database.db.selectFrom('interactions').selectAll().where('id', '=', id!).executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      kind: 'mcp_tool',
      api_title: 'helper',
      action: 'getTicket',
      client_source: 'agentbox-copilot',
      conversation_id: 'conv-42',
      user_input: 'What does T-9 say?',
      arguments: '{"id":"T-9"}',
      is_error: 0,
    })
  })

  test('an unknown tool is a not_found outcome and is not recorded', async () => {
    const set = await toolbox.forAgent(principalOf(p.owner.id), 'helper', { version: 'live', mode: 'live' })
    const before = await interactionCount()
    const run = await toolbox.run(principalOf(p.owner.id), set, { name: 'nope', arguments: {} })
    expect(run.outcome.ok).toBe(false)
    expect(run.text).toBe('Unknown tool: nope')
    expect(await run.recorded).toBeNull()
    expect(await interactionCount()).toBe(before)
  })
})

describe('mock mode', () => {
  test('operations answer as dry runs, workflows run dry, read-only tools run; nothing reaches the upstream and nothing is recorded', async () => {
    const owner = principalOf(p.owner.id)
    const set = await toolbox.forAgent(owner, 'helper', { version: 'live', mode: 'mock' })
    expect(set.mode).toBe('mock')
    const before = { hits: hits.length, rows: await interactionCount() }
    const operation = await toolbox.run(owner, set, { name: 'getTicket', arguments: { id: 'T-1' } })
    expect(operation.outcome).toEqual({
      ok: true,
      content: { status: 200, body: { id: 'T-0', state: 'sample' }, truncated: false, duration_ms: 0, dry_run: true },
    })
    const invalid = await toolbox.run(owner, set, { name: 'getTicket', arguments: {} })
    expect(invalid.outcome.ok).toBe(false)
    expect(invalid.text).toMatch(/^id: /)
    const workflow = await toolbox.run(owner, set, { name: 'run_workflow', arguments: { workflow: 'echo', input: { text: 'hi' }, dry_run: false } })
    expect(workflow.outcome).toMatchObject({ ok: true, content: { dry_run: true, status: 'succeeded' } })
    const skill = await toolbox.run(owner, set, { name: 'load_skill', arguments: { name: 'triage' } })
    expect(skill.outcome).toMatchObject({ ok: true, content: { name: 'triage', body: 'Read the ticket, then label it.' } })
    for (const run of [operation, invalid, workflow, skill]) expect(await run.recorded).toBeNull()
    expect(hits.length).toBe(before.hits)
    expect(await interactionCount()).toBe(before.rows)
    // Dry runs keep no run history.
    const runs = await p.t.request('GET', '/api/workflows/helper/runs', { token: p.owner.token })
    expect(runs.status).toBe(200)
    expect(runs.body).toEqual([])
  })

  test('design tools that change the draft answer a simulation and change nothing; reading ones run', async () => {
    const owner = principalOf(p.owner.id)
    const set = await toolbox.forAgent(owner, 'helper', { version: 'draft', mode: 'mock' })
    const update = await toolbox.run(owner, set, { name: 'update_agent', arguments: { description: 'Changed in mock mode' } })
    expect(update.outcome).toEqual({
      ok: true,
      content: { simulated: true, tool: 'update_agent', detail: 'Mock mode: this tool was not run and nothing was changed' },
    })
    const publish = await toolbox.run(owner, set, { name: 'publish', arguments: {} })
    expect(publish.outcome).toMatchObject({ ok: true, content: { simulated: true } })
    const read = await toolbox.run(owner, set, { name: 'get_agent', arguments: {} })
    expect(read.outcome).toMatchObject({ ok: true, content: { name: 'helper', description: 'Helps', live_version: 1 } })
    expect((await p.t.request('GET', '/api/agents/helper', { token: p.owner.token })).body).toMatchObject({ description: 'Helps', live_version: 1 })
  })
})

describe('tools for a set of applications (GPT apps)', () => {
  test("with the organisation's credentials: a shared application runs with the org credential, recorded as api_action under its title", async () => {
    const actor = principalOf(p.viewer.id)
    const set = await toolbox.forApplications(actor, {
      name: 'support-gpt',
      instructions: 'Answer tickets',
      applications: [{ api_name: 'shared-tickets' }, { api_name: 'tickets' }],
      credentials: 'organisation',
      mode: 'live',
    })
    expect(set.tools.map((tool) => tool.name)).toEqual(['shared-tickets__getTicket', 'tickets__getTicket'])
    expect(set.recordKind).toBe('api_action')
    const shared = await toolbox.run(actor, set, { name: 'shared-tickets__getTicket', arguments: { id: 'S-1' }, clientSource: 'support-gpt' })
    expect(shared.outcome.ok).toBe(true)
    expect(hits.at(-1)).toEqual({ path: '/tickets/S-1', key: 'org-key' })
    const row = await p.t.server.database.db
      .selectFrom('interactions')
      .selectAll()
      .where('id', '=', (await shared.recorded)!)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ kind: 'api_action', api_title: 'Shared Tickets', action: 'getTicket', client_source: 'support-gpt', is_error: 0 })
    const perUser = await toolbox.run(actor, set, { name: 'tickets__getTicket', arguments: { id: 'S-2' } })
    expect(perUser.outcome.ok).toBe(false)
    expect(perUser.text).toContain("uses each user's own credentials")
    expect(hits.at(-1)!.path).toBe('/tickets/S-1')
  })
})
