// The same attacks through MCP run_workflow (issue 25, item 1): the tool answers the failed run, the server carries on.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { connectV1, startMcpWorld, type McpWorld } from '../mcp/helpers.ts'
import { edge, newAgent, node, saveWorkflow } from './helpers.ts'

let w: McpWorld
beforeAll(async () => {
  w = await startMcpWorld()
})
afterAll(() => w.stop())

const empties = (n: number) => Array.from({ length: n }, () => ({}))

function chain(steps: number, copies: number) {
  const ids = Array.from({ length: steps }, (_, i) => `s${i}`)
  const values = Object.fromEntries(Array.from({ length: copies }, (_, c) => [`c${c}`, '{{ $run.input.x }}']))
  return {
    nodes: [...ids.map((id) => node(id, 'set', { mode: 'replace', values })), node('o', 'output', { value: '{{ length($json) }}' })],
    connections: [...ids.slice(1).map((id, i) => edge(ids[i]!, id)), edge(ids.at(-1)!, 'o')],
  }
}

test('run_workflow: 12 copies of 100,000 empty objects, and 40 steps of 30,000, fail as runs; the next call works', async () => {
  const agent = await newAgent(w)
  await saveWorkflow(w, agent, chain(20, 12), { name: 'fan-out', publish: false })
  await saveWorkflow(w, agent, chain(40, 1), { name: 'long', publish: false })
  await saveWorkflow(w, agent, { nodes: [node('o', 'output', { value: '{{ $json.n + 1 }}' })], connections: [] }, { name: 'small' })
  const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
  for (const dry_run of [true, false]) {
    const fanOut = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'fan-out', dry_run, input: { x: empties(100_000) } } })) as any
    expect(fanOut.structuredContent).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: 's0' } })
    expect(fanOut.structuredContent.error.message).toContain('in memory')
    const long = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'long', dry_run, input: { x: empties(30_000) } } })) as any
    expect(long.structuredContent).toMatchObject({ status: 'failed', error: { code: 'memory_budget_exceeded' } })
    expect(long.structuredContent.error.message).toContain('memory budget of 64 MiB')
  }
  const small = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'small', input: { n: 1 } } })) as any
  expect(small.structuredContent).toMatchObject({ status: 'succeeded', result: 2 })
  await client.close()
})
