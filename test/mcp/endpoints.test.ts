// The live MCP endpoint with the official SDK clients over a real port: tools, skills, instructions, calls recorded.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { agentWithEcho, connectV1, connectV2, type McpWorld, recordedCalls, startMcpWorld } from './helpers.ts'

let w: McpWorld
let agent: string

beforeAll(async () => {
  w = await startMcpWorld()
  agent = await agentWithEcho(w, { instructions: 'Answer in French.' })
})
afterAll(() => w.stop())

describe('live endpoint, v1 client (2025-11-25)', () => {
  test('lists run_workflow and resume_workflow, and serves the live instructions', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    expect(client.getInstructions()).toBe('Answer in French.')
    expect(client.getServerVersion()?.name).toBe(agent)
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow'])
    await client.close()
  })

  test('run_workflow runs the live workflow and the call is recorded as mcp_tool with the client name', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token, 'claude-code')
    const result = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'echo', input: { text: 'bonjour' } } })) as any
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent.status).toBe('succeeded')
    expect(result.structuredContent.result).toEqual({ echo: 'bonjour' })
    expect(JSON.parse(result.content[0].text).status).toBe('succeeded')
    await client.close()
    const call = (await recordedCalls(w)).find((row) => row.client_source === 'claude-code')
    expect(call).toMatchObject({ user_id: w.viewer.id, api_title: agent, action: 'run_workflow', is_error: 0 })
    expect(JSON.parse(call!.arguments!)).toEqual({ workflow: 'echo', input: { text: 'bonjour' } })
  })

  test('an unknown workflow is a tool error result, not a protocol error', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const result = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'nope' } })) as any
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toContain("Workflow not found in the live version: 'nope'")
    await client.close()
  })

  test('arguments that fail the schema are a readable tool error', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.viewer.token)
    const result = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 42 } })) as any
    expect(result.isError).toBe(true)
    expect(result.content[0].text).toContain('workflow')
    await client.close()
  })
})

describe('live endpoint, v2 client (2026-07-28)', () => {
  test('negotiates the modern era, lists and calls', async () => {
    const client = await connectV2(`${w.base}/agent/${agent}/mcp`, w.owner.token, 'cursor')
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow'])
    const result = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'echo', input: { text: 'hi' } } })) as any
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent.result).toEqual({ echo: 'hi' })
    await client.close()
    const call = (await recordedCalls(w)).find((row) => row.client_source === 'cursor')
    expect(call).toMatchObject({ user_id: w.owner.id, api_title: agent, action: 'run_workflow', is_error: 0 })
  })

  test('an unknown tool is the JSON-RPC error -32602', async () => {
    const client = await connectV2(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/)
    await client.close()
  })
})
