// The design endpoint: an owner builds an agent from inside an MCP client, through the same validation as the HTTP
// API, and publishes it; the live endpoint changes only then.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { agentWithEcho, connectV1, echoFlow, type McpWorld, startMcpWorld } from './helpers.ts'

let w: McpWorld
let agent: string
let design: Client

const SKILL = `---
name: tone-guide
description: How to answer customers politely.
---
Always greet the customer by name.
`

const call = async (name: string, args: Record<string, unknown> = {}) => (await design.callTool({ name, arguments: args })) as any

beforeAll(async () => {
  w = await startMcpWorld()
  agent = await agentWithEcho(w)
  design = await connectV1(`${w.base}/agent/${agent}/design/mcp`, w.owner.token, 'claude-desktop')
})
afterAll(async () => {
  await design.close()
  await w.stop()
})

describe('design tools', () => {
  test('the design endpoint lists the design tools in a stable order, with its own instructions', async () => {
    const { tools } = await design.listTools()
    expect(tools.map((tool) => tool.name)).toEqual([
      'get_agent',
      'update_agent',
      'list_skills',
      'put_skill',
      'delete_skill',
      'list_workflows',
      'put_workflow',
      'delete_workflow',
      'run_workflow',
      'list_templates',
      'put_template',
      'publish',
      'resume_workflow',
    ])
    expect(tools.find((tool) => tool.name === 'get_agent')!.annotations?.readOnlyHint).toBe(true)
    expect(design.getInstructions()).toContain('design endpoint')
  })

  test('get_agent and update_agent read and change the draft, with the HTTP API validation', async () => {
    expect((await call('get_agent')).structuredContent).toMatchObject({ name: agent, instructions: 'Be brief.', role: 'owner' })
    const updated = await call('update_agent', { instructions: 'Be very brief.' })
    expect(updated.isError).toBeFalsy()
    expect(updated.structuredContent).toMatchObject({ instructions: 'Be very brief.', has_unpublished_changes: true })
    const tooLong = await call('update_agent', { description: 'x'.repeat(301) })
    expect(tooLong.isError).toBe(true)
    expect(tooLong.content[0].text).toContain('description')
    const unknownApp = await call('update_agent', { applications: [{ api_name: 'no-such-app' }] })
    expect(unknownApp.isError).toBe(true)
    expect(unknownApp.content[0].text).toContain('no-such-app')
  })

  test('put_skill adds, then replaces by frontmatter name; an invalid SKILL.md is a tool error; delete_skill removes', async () => {
    expect((await call('put_skill', { content: SKILL })).structuredContent).toMatchObject({ name: 'tone-guide', created: true })
    const replaced = await call('put_skill', { content: SKILL.replace('by name', 'by first name') })
    expect(replaced.structuredContent).toMatchObject({ name: 'tone-guide', created: false })
    const bad = await call('put_skill', { content: 'no frontmatter here' })
    expect(bad.isError).toBe(true)
    expect((await call('list_skills')).content[0].text).toContain('tone-guide')
    expect((await call('delete_skill', { name: 'tone-guide' })).isError).toBeFalsy()
    const gone = await call('delete_skill', { name: 'tone-guide' })
    expect(gone.isError).toBe(true)
    expect(gone.content[0].text).toBe('Skill not found')
  })

  test('put_workflow creates or replaces by name; an invalid definition is refused like the HTTP API; delete_workflow by name', async () => {
    const created = await call('put_workflow', { name: 'second', definition: echoFlow() })
    expect(created.isError).toBeFalsy()
    const again = await call('put_workflow', { name: 'second', definition: echoFlow() })
    expect(again.structuredContent.id).toBe(created.structuredContent.id)
    const invalid = await call('put_workflow', { name: 'broken', definition: { nodes: [{ id: 'a', type: 'agentbox.nope' }], connections: [] } })
    expect(invalid.isError).toBe(true)
    expect(invalid.content[0].text).toContain('nodes')
    const names = (await call('list_workflows')).content[0].text
    expect(names).toContain('second')
    expect(names).not.toContain('broken')
    expect((await call('delete_workflow', { workflow: 'second' })).isError).toBeFalsy()
    expect((await call('delete_workflow', { workflow: 'second' })).content[0].text).toBe("Workflow not found: 'second'")
    const unknownId = await call('put_workflow', { id: 'no-such-id', name: 'x', definition: echoFlow() })
    expect(unknownId.isError).toBe(true)
    expect(unknownId.content[0].text).toBe('Workflow not found')
    const wrongType = await call('update_agent', { instructions: 42 })
    expect(wrongType.isError).toBe(true)
    expect(wrongType.content[0].text).toContain('instructions')
  })

  test('run_workflow on the draft is a dry run by default', async () => {
    const run = await call('run_workflow', { workflow: 'echo', input: { text: 'draft' } })
    expect(run.isError).toBeFalsy()
    expect(run.structuredContent).toMatchObject({ status: 'succeeded', dry_run: true, result: { echo: 'draft' } })
  })

  test('publish makes the draft live: the live endpoint serves the new instructions only then', async () => {
    await call('update_agent', { instructions: 'Published from MCP.' })
    const before = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    expect(before.getInstructions()).toBe('Be brief.')
    await before.close()
    const published = await call('publish', { note: 'from the design endpoint' })
    expect(published.isError).toBeFalsy()
    expect(published.structuredContent).toMatchObject({ version: 2, note: 'from the design endpoint' })
    const after = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    expect(after.getInstructions()).toBe('Published from MCP.')
    await after.close()
    const nothing = await call('publish', {})
    expect(nothing.isError).toBe(true)
    expect(nothing.content[0].text).toContain('Nothing to publish')
  })

  test('a viewer who becomes owner gets the design tools; demoted again, 403 (access is checked on every request)', async () => {
    const url = `${w.base}/agent/${agent}/design/mcp`
    await expect(connectV1(url, w.viewer.token)).rejects.toThrow(/Only owners can see the draft/)
    await w.t.request('POST', `/api/agents/${agent}/members`, { token: w.owner.token, body: { email: 'viewer@example.com', role: 'owner' } })
    const client = await connectV1(url, w.viewer.token)
    expect((await client.listTools()).tools[0]!.name).toBe('get_agent')
    await w.t.request('POST', `/api/agents/${agent}/members`, { token: w.owner.token, body: { email: 'viewer@example.com', role: 'viewer' } })
    await expect(client.listTools()).rejects.toThrow(/Only owners can see the draft/)
    await client.close()
  })
})
