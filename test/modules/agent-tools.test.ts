// The tool model (issue 15, item 3): workflows and skills produce tools that any transport (MCP, chat) calls with a
// principal and arguments; arguments are checked against the tool's schema, and failures are ToolErrors located in
// the arguments, never HTTP-shaped. Driven through the real server's module registry.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Principal } from '../../src/platform/auth/principal.ts'
import { callTool, describeTool, isToolName, type Tool } from '../../src/platform/tools/tool.ts'
import { edge, gateFlow, newAgent, node, saveWorkflow, setup, type People } from '../workflows/helpers.ts'

let p: People
let agent: string
let owner: Principal
let viewer: Principal
let outsider: Principal

/** The principal a transport would authenticate for this token. */
async function principalOf(token: string): Promise<Principal> {
  const me = (await p.t.request('GET', '/api/auth/me', { token })).body
  return { userId: me.id, email: me.email, name: me.name, role: me.role, kind: 'person', via: 'access_token', tokenId: null }
}

const SKILL = '---\nname: refunds\ndescription: How to handle a refund request\n---\n# Refunds\n\nCheck the order first.\n'

beforeAll(async () => {
  p = await setup()
  agent = await newAgent(p)
  await saveWorkflow(
    p,
    agent,
    {
      nodes: [node('double', 'set', { values: { n: '{{ $json.n * 2 }}' } }), node('out', 'output', { value: '{{ $json.n }}' })],
      connections: [edge('double', 'out')],
    },
    { name: 'doubler', publish: false },
  )
  await saveWorkflow(p, agent, gateFlow(), { name: 'refund', publish: false })
  expect((await p.t.request('POST', `/api/agents/${agent}/skills`, { token: p.owner.token, body: { content: SKILL } })).status).toBe(201)
  expect((await p.t.request('POST', `/api/agents/${agent}/publish`, { token: p.owner.token, body: {} })).status).toBe(201)
  ;[owner, viewer, outsider] = await Promise.all([principalOf(p.owner.token), principalOf(p.viewer.token), principalOf(p.outsider.token)])
})
afterAll(() => p.t.close())

const liveTools = async (principal: Principal): Promise<Tool[]> => {
  const target = { agent, source: 'live' as const, channel: 'mcp' as const }
  return [...(await p.t.server.modules.workflows.tools(principal, target)), ...(await p.t.server.modules.skills.tools(principal, target))]
}
const byName = (tools: Tool[], name: string) => tools.find((tool) => tool.name === name)!

describe('tools from workflows and skills', () => {
  test('an agent offers run_workflow, resume_workflow and load_skill, described as JSON Schema with MCP annotations', async () => {
    const tools = await liveTools(viewer)
    expect(tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow', 'load_skill'])
    for (const tool of tools) expect(isToolName(tool.name)).toBe(true)
    const described = describeTool(byName(tools, 'run_workflow'))
    expect(described.inputSchema).toMatchObject({ type: 'object', required: ['workflow'], properties: { workflow: { type: 'string' } } })
    expect(JSON.stringify(described)).not.toContain('Symbol')
    expect(describeTool(byName(tools, 'load_skill')).description).toContain('- refunds: How to handle a refund request')
    expect(byName(tools, 'load_skill').annotations).toMatchObject({ readOnlyHint: true })
  })

  test('run_workflow runs the live version by name or id, as the calling user', async () => {
    const run = byName(await liveTools(viewer), 'run_workflow')
    const byNameRun = await callTool(run, viewer, { workflow: 'doubler', input: { n: 21 } })
    expect(byNameRun).toMatchObject({ ok: true, content: { status: 'succeeded', result: 42, source: 'live' } })
    const id = (byNameRun as { content: { workflow_id: string } }).content.workflow_id
    expect(await callTool(run, viewer, { workflow: id, input: { n: 1 } })).toMatchObject({ ok: true, content: { result: 2 } })
    const listed = await p.t.request('GET', `/api/workflows/${agent}/runs`, { token: p.viewer.token })
    expect(listed.body.length).toBe(2)
  })

  test('bad arguments are invalid_arguments located in the arguments, before anything runs', async () => {
    const run = byName(await liveTools(viewer), 'run_workflow')
    const outcome = await callTool(run, viewer, { input: 1, dry_run: 'yes' })
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.error.code).toBe('invalid_arguments')
    expect(outcome.error.issues.map((issue) => [issue.loc, issue.type])).toEqual([
      [['workflow'], 'missing'],
      [['dry_run'], 'bool_type'],
    ])
    // A service's own 422 loses its HTTP prefix too: step_data without dry_run.
    const service = await callTool(run, viewer, { workflow: 'doubler', step_data: {} })
    expect(service).toMatchObject({ ok: false, error: { code: 'invalid_arguments', issues: [{ loc: ['step_data'], type: 'value_error' }] } })
  })

  test('unknown workflows and strangers get not_found; only the starter decides an approval', async () => {
    expect(await callTool(byName(await liveTools(viewer), 'run_workflow'), viewer, { workflow: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    await expect(liveTools(outsider)).rejects.toThrow('Agent not found')
    const started = await callTool(byName(await liveTools(owner), 'run_workflow'), owner, { workflow: 'refund', input: { amount: 5 } })
    expect(started).toMatchObject({ ok: true, content: { status: 'waiting_human' } })
    const runId = (started as { content: { run_id: string } }).content.run_id
    const resume = byName(await liveTools(viewer), 'resume_workflow')
    // As over HTTP, a member does not see someone else's runs at all.
    expect(await callTool(resume, viewer, { run_id: runId, decision: 'approve' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: 'Run not found' },
    })
    const decided = await callTool(resume, owner, { run_id: runId, decision: 'approve', edits: { amount: 4 } })
    expect(decided).toMatchObject({ ok: true, content: { status: 'succeeded', result: { amount: 4 } } })
  })

  test('load_skill returns the body of a live skill; an unknown one is not_found', async () => {
    const load = byName(await liveTools(viewer), 'load_skill')
    expect(await callTool(load, viewer, { name: 'refunds' })).toEqual({
      ok: true,
      content: { name: 'refunds', description: 'How to handle a refund request', body: '# Refunds\n\nCheck the order first.' },
    })
    expect(await callTool(load, viewer, { name: 'missing' })).toMatchObject({ ok: false, error: { code: 'not_found', message: "Skill not found: 'missing'" } })
  })

  test('the design target runs the draft (owners only) and dry-runs by default', async () => {
    const target = { agent, source: 'draft' as const, channel: 'mcp' as const }
    const [run] = await p.t.server.modules.workflows.tools(owner, target)
    expect(await callTool(run!, owner, { workflow: 'doubler', input: { n: 3 } })).toMatchObject({
      ok: true,
      content: { status: 'succeeded', dry_run: true, source: 'draft', result: 6 },
    })
    expect(await callTool(run!, viewer, { workflow: 'doubler' })).toMatchObject({ ok: false, error: { code: 'forbidden' } })
  })
})
