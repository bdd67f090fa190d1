// What a run's values really cost (issue 25, item 1): small-object fan-outs that stay under the JSON byte caps but
// take gigabytes as objects, in every shape (set chains, map results, joins, step traces kept for include_data or for
// a full recording, MCP run_workflow). Each fails the run with a readable error and the server carries on.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { LIMITS } from '../../src/modules/workflows/definition/types.ts'
import { measureValue, NO_LIMITS, SizeCache } from '../../src/modules/workflows/expr/value-size.ts'
import { edge, newAgent, node, saveWorkflow, setup, type People } from './helpers.ts'

let p: People
beforeAll(async () => {
  p = await setup()
})
afterAll(() => p.t.close())

const start = (agent: string, id: string, body: unknown) => p.t.request('POST', `/api/workflows/${agent}/${id}/run`, { token: p.owner.token, body })
const setRecording = (mode: string) => p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { workflow_recording: mode } })
/** `n` empty objects: 3 bytes each as JSON, ~70 bytes each in memory. */
const empties = (n: number) => Array.from({ length: n }, () => ({}))

/** A chain of set nodes in replace mode, each holding `copies` references to $run.input.x (the attack). */
function fanOutChain(steps: number, copies: number) {
  const ids = Array.from({ length: steps }, (_, i) => `s${i}`)
  const values = Object.fromEntries(Array.from({ length: copies }, (_, c) => [`c${c}`, '{{ $run.input.x }}']))
  return {
    ids,
    definition: {
      nodes: [...ids.map((id) => node(id, 'set', { mode: 'replace', values })), node('o', 'output', { value: '{{ length($json) }}' })],
      connections: [...ids.slice(1).map((id, i) => edge(ids[i]!, id)), edge(ids.at(-1)!, 'o')],
      settings: { max_steps: 10_000 },
    },
  }
}

/** The server still answers, and the caller's next run works. */
async function serverCarriesOn(agent: string) {
  const id = await saveWorkflow(p, agent, { nodes: [node('o', 'output', { value: '{{ $json.n + 1 }}' })], connections: [] }, { name: `after-${Date.now()}` })
  const res = await start(agent, id, { input: { n: 1 }, dry_run: true })
  expect(res.body).toMatchObject({ status: 'succeeded', result: 2 })
}

describe('the issue: set nodes holding 12 copies of 100,000 empty objects', () => {
  test('a dry run fails at the first step with a readable error (it took 2.1 GB at 20 steps before)', async () => {
    const agent = await newAgent(p)
    const { ids, definition } = fanOutChain(20, 12)
    const id = await saveWorkflow(p, agent, definition)
    const res = await start(agent, id, { dry_run: true, input: { x: empties(100_000) } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: ids[0] } })
    expect(res.body.error.message).toContain('in memory')
    expect(res.body.error.message).toContain('16 MiB')
    await serverCarriesOn(agent)
  })

  test('a real run fails the same way and is recorded as failed', async () => {
    const agent = await newAgent(p)
    const { ids, definition } = fanOutChain(20, 12)
    const id = await saveWorkflow(p, agent, definition)
    const res = await start(agent, id, { input: { x: empties(100_000) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: ids[0] } })
    const stored = await p.t.request('GET', `/api/workflows/${agent}/runs/${res.body.run_id}`, { token: p.owner.token })
    expect(stored.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: ids[0] } })
  })
})

describe('one value: its memory, not only its JSON', () => {
  test('12 copies of 30,000 empty objects (1 MB of JSON, ~23 MB of objects) fail the step that would hold them', async () => {
    const agent = await newAgent(p)
    const { ids, definition } = fanOutChain(3, 12)
    const id = await saveWorkflow(p, agent, definition)
    const res = await start(agent, id, { dry_run: true, input: { x: empties(30_000) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: ids[0] } })
    expect(res.body.error.message).toMatch(/would take more than 16 MiB in memory \(estimated from what it holds: over [\d,]+ values/)
  })

  test('a join of two branches that are each allowed is refused when together they pass the value limit', async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [
        node('a', 'set', { mode: 'replace', values: { v: '{{ $run.input.x }}' } }),
        node('b', 'set', { mode: 'replace', values: { v: '{{ $run.input.x }}' } }),
        node('j', 'join'),
        node('o', 'output', { value: '{{ length($json) }}' }),
      ],
      connections: [edge('a', 'j'), edge('b', 'j'), edge('j', 'o')],
    }
    const id = await saveWorkflow(p, agent, def)
    // 150,000 empty objects: ~9.6 MiB in memory each branch, so the join's output would be ~19 MiB.
    const res = await start(agent, id, { dry_run: true, input: { x: empties(150_000) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: 'j' } })
    const small = await start(agent, id, { dry_run: true, input: { x: empties(1000) } })
    expect(small.body).toMatchObject({ status: 'succeeded', result: 2 })
  })

  test("a map's results are bounded in memory as they grow", async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [node('m', 'map', { items: '{{ $run.input.xs }}' }), node('s', 'set', { mode: 'replace', values: { v: '{{ $run.input.y }}' } })],
      connections: [edge('m', 's', 'loop'), edge('s', 'm')],
      settings: { max_steps: 5000 },
    }
    const id = await saveWorkflow(p, agent, def)
    // 1,000 results of 1,000 empty objects: 3 MB of JSON (under 4 MiB), ~64 MB of objects.
    const res = await start(agent, id, { dry_run: true, input: { y: empties(1000), xs: Array.from({ length: 1000 }, (_, i) => i) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: 'm' } })
    expect(res.body.error.message).toContain("map's results")
    expect(res.body.error.message).toContain('in memory')
  })

  test('the run input itself is measured the same way', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, { nodes: [node('o', 'output', { value: 1 })], connections: [] })
    // 300,000 empty objects: 900 KB of JSON (under the 1 MiB body limit), ~19 MiB of objects.
    const res = await start(agent, id, { dry_run: true, input: { x: empties(300_000) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large' } })
    expect(res.body.error.message).toContain('The run input')
  })
})

describe("the run's memory budget: what it holds across steps", () => {
  test('40 steps each holding 30,000 empty objects (~2 MB) fail once the run holds 64 MiB; dry and real alike', async () => {
    const agent = await newAgent(p)
    const { ids, definition } = fanOutChain(40, 1)
    const id = await saveWorkflow(p, agent, definition)
    for (const dry of [true, false]) {
      const res = await start(agent, id, { dry_run: dry, input: { x: empties(30_000) } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'memory_budget_exceeded' } })
      expect(ids.slice(20)).toContain(res.body.error.node_id)
      expect(res.body.error.message).toContain(`${LIMITS.runMemoryBytesCap / 1024 / 1024} MiB`)
    }
    // Half as many steps stay inside the budget.
    const { definition: shorter } = fanOutChain(20, 1)
    const id2 = await saveWorkflow(p, agent, shorter, { name: 'shorter' })
    expect((await start(agent, id2, { dry_run: true, input: { x: empties(30_000) } })).body).toMatchObject({ status: 'succeeded', result: 1 })
    await serverCarriesOn(agent)
  })

  test("a map's iterations give back what they held: 1,000 iterations of ~320 KB each succeed", async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [
        node('m', 'map', { items: '{{ $run.input.xs }}' }),
        node('s', 'set', { mode: 'replace', values: { v: '{{ $run.input.x }}' } }),
        node('t', 'set', { mode: 'replace', values: { n: '{{ length($json.v) }}' } }),
        node('o', 'output', { value: '{{ length($json) }}' }),
      ],
      connections: [edge('m', 's', 'loop'), edge('s', 't'), edge('t', 'm'), edge('m', 'o', 'done')],
      settings: { max_steps: 10_000 },
    }
    const id = await saveWorkflow(p, agent, def)
    const res = await start(agent, id, { dry_run: true, input: { x: empties(5000), xs: Array.from({ length: 1000 }, (_, i) => i) } })
    expect(res.body).toMatchObject({ status: 'succeeded', result: 1000 })
  })

  test("include_data keeps every step's data for the answer: counted, so a long chain over a big input fails", async () => {
    const agent = await newAgent(p)
    const ids = Array.from({ length: 60 }, (_, i) => `if${i}`)
    const def = {
      nodes: [...ids.map((id) => node(id, 'if', { conditions: [{ left: '{{ 1 }}', operator: 'exists' }] })), node('o', 'output', { value: 'done' })],
      connections: [...ids.slice(1).map((id, i) => edge(ids[i]!, id, 'true')), edge(ids.at(-1)!, 'o', 'true')],
    }
    const id = await saveWorkflow(p, agent, def)
    const input = { s: 'x'.repeat(900_000) }
    // Each if passes its $json on untouched: without the traces the run holds one copy of the input.
    expect((await start(agent, id, { dry_run: true, input })).body).toMatchObject({ status: 'succeeded', result: 'done' })
    // With include_data each step's input and output (~1.8 MB of JSON) wait for the answer.
    const res = await start(agent, id, { dry_run: true, include_data: true, input })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'memory_budget_exceeded' } })
    expect(res.body.error.message).toContain('include_data')
    expect(res.body.steps.length).toBeLessThan(60)
  })

  test("a full recording keeps every step's data too; headers_only does not", async () => {
    const agent = await newAgent(p)
    const ids = Array.from({ length: 60 }, (_, i) => `if${i}`)
    const def = {
      nodes: [...ids.map((id) => node(id, 'if', { conditions: [{ left: '{{ 1 }}', operator: 'exists' }] })), node('o', 'output', { value: 'done' })],
      connections: [...ids.slice(1).map((id, i) => edge(ids[i]!, id, 'true')), edge(ids.at(-1)!, 'o', 'true')],
    }
    const id = await saveWorkflow(p, agent, def)
    const input = { s: 'x'.repeat(900_000) }
    try {
      expect((await setRecording('full')).status).toBe(200)
      const full = await start(agent, id, { input })
      expect(full.body).toMatchObject({ status: 'failed', recording: 'full', error: { code: 'memory_budget_exceeded' } })
      expect(full.body.error.message).toContain('recording')
      expect((await setRecording('headers_only')).status).toBe(200)
      const headers = await start(agent, id, { input })
      expect(headers.body).toMatchObject({ status: 'succeeded', recording: 'headers_only', result: 'done' })
      const stored = await p.t.request('GET', `/api/workflows/${agent}/runs/${headers.body.run_id}?include_data=true`, { token: p.owner.token })
      expect(stored.body.steps).toHaveLength(61)
      expect(stored.body.steps[0]).toMatchObject({ node_id: 'if0', input: null, output: null })
    } finally {
      await setRecording('full')
    }
  })
})

describe('other shapes of the same attack', () => {
  test('$steps references: twelve copies of an earlier output, and forty steps each holding a copy', async () => {
    const agent = await newAgent(p)
    const first = node('first', 'set', { mode: 'replace', values: { v: '{{ $run.input.x }}' } })
    const copies = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, c) => [`c${c}`, '{{ $steps.first.json }}']))
    const wide = await saveWorkflow(
      p,
      agent,
      { nodes: [first, node('wide', 'set', { mode: 'replace', values: copies(12) })], connections: [edge('first', 'wide')] },
      { name: 'wide' },
    )
    const res = await start(agent, wide, { dry_run: true, input: { x: empties(30_000) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: 'wide' } })
    const ids = Array.from({ length: 40 }, (_, i) => `s${i}`)
    const long = await saveWorkflow(
      p,
      agent,
      {
        nodes: [first, ...ids.map((id) => node(id, 'set', { mode: 'replace', values: copies(1) }))],
        connections: [edge('first', 's0'), ...ids.slice(1).map((id, i) => edge(ids[i]!, id))],
      },
      { name: 'long' },
    )
    const again = await start(agent, long, { dry_run: true, input: { x: empties(30_000) } })
    expect(again.body).toMatchObject({ status: 'failed', error: { code: 'memory_budget_exceeded' } })
  })

  test('step_data: a simulated model answer of 1,000 empty objects, once per item of a map, fills its results', async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [node('m', 'map', { items: '{{ $json.xs }}' }), node('ask', 'llm', { prompt: 'Classify {{ $item }}' })],
      connections: [edge('m', 'ask', 'loop'), edge('ask', 'm')],
      settings: { max_steps: 5000 },
    }
    const id = await saveWorkflow(p, agent, def)
    const xs = Array.from({ length: 1000 }, (_, i) => i)
    const res = await start(agent, id, { dry_run: true, input: { xs }, step_data: { ask: { labels: empties(1000) } } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: 'm' } })
    expect(res.body.error.message).toContain("The map's results at item")
    const small = await start(agent, id, { dry_run: true, input: { xs }, step_data: { ask: { labels: empties(10) } } })
    expect(small.body).toMatchObject({ status: 'succeeded' })
  })

  test('an output node whose value holds twelve references fails like a set node', async () => {
    const agent = await newAgent(p)
    const value = Object.fromEntries(Array.from({ length: 12 }, (_, c) => [`c${c}`, '{{ $run.input.x }}']))
    const id = await saveWorkflow(p, agent, { nodes: [node('o', 'output', { value })], connections: [] })
    const res = await start(agent, id, { dry_run: true, input: { x: empties(30_000) } })
    expect(res.body).toMatchObject({ status: 'failed', result: null, error: { code: 'output_too_large', node_id: 'o' } })
  })
})

describe('the budget across an approval gate', () => {
  test('what the run held before it waited still counts after the resume (the checkpoint keeps the count)', async () => {
    const agent = await newAgent(p)
    const before = Array.from({ length: 20 }, (_, i) => `a${i}`)
    const after = Array.from({ length: 20 }, (_, i) => `b${i}`)
    const set = (id: string) => node(id, 'set', { mode: 'replace', values: { v: '{{ $run.input.x }}' } })
    const def = {
      nodes: [...before.map(set), node('gate', 'approval', { message: 'go on?' }), ...after.map(set)],
      connections: [
        ...before.slice(1).map((id, i) => edge(before[i]!, id)),
        edge(before.at(-1)!, 'gate'),
        edge('gate', after[0]!, 'approved'),
        ...after.slice(1).map((id, i) => edge(after[i]!, id)),
      ],
    }
    const id = await saveWorkflow(p, agent, def)
    const input = { x: empties(30_000) }
    const waiting = await start(agent, id, { input })
    expect(waiting.body.status).toBe('waiting_human')
    // ~40 MiB held before the gate, ~40 more after: only the sum passes 64 MiB.
    const resumed = await p.t.request('POST', `/api/workflows/${agent}/runs/${waiting.body.run_id}/resume`, {
      token: p.owner.token,
      body: { decision: 'approve' },
    })
    expect(resumed.body).toMatchObject({ status: 'failed', error: { code: 'memory_budget_exceeded' } })
    expect(after).toContain(resumed.body.error.node_id)
  })
})

describe('measuring', () => {
  test('a cache of big lists gives the sizes a full walk gives, and a list referred to twelve times is walked once', () => {
    const x = empties(10_000)
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, { a: [1, 'xy', null, true] }]))
    const value = { a: x, b: [x, x, { wide, again: wide }], c: wide, s: 'text', n: 1.5 }
    const cache = new SizeCache()
    const plain = measureValue(value, NO_LIMITS)
    expect(measureValue(value, NO_LIMITS, cache)).toEqual(plain)
    expect(measureValue(value, NO_LIMITS, cache)).toEqual(plain)
    expect(cache.sizes.get(x)).toEqual(measureValue(x, NO_LIMITS))
    expect(cache.sizes.get(wide)).toEqual(measureValue(wide, NO_LIMITS))
    // Counted as written out: twelve references cost twelve copies.
    const twelve = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`c${i}`, x]))
    expect(measureValue(twelve, NO_LIMITS, cache).values).toBe(1 + 12 * 10_001)
    expect(measureValue(twelve, NO_LIMITS).values).toBe(1 + 12 * 10_001)
    // The walk stops once a limit is passed.
    expect(measureValue(twelve, { json: Number.POSITIVE_INFINITY, memory: 1000 }).values).toBeLessThan(50)
  })
})

describe('memory after such a run', () => {
  test('nothing the failed runs made stays reachable: the heap goes back to where it was', async () => {
    const agent = await newAgent(p)
    const { definition } = fanOutChain(40, 1)
    const id = await saveWorkflow(p, agent, definition)
    const input = { x: empties(30_000) }
    // Warm up once (parse caches, statements), then measure around three failing runs (~64 MiB each while they ran).
    await start(agent, id, { dry_run: true, input })
    Bun.gc(true)
    const before = process.memoryUsage().heapUsed
    for (const dry of [true, false, true]) {
      const res = await start(agent, id, { dry_run: dry, include_data: !dry, input })
      expect(res.body).toMatchObject({ status: 'failed', error: { code: 'memory_budget_exceeded' } })
    }
    Bun.gc(true)
    const grown = process.memoryUsage().heapUsed - before
    expect(grown).toBeLessThan(16 * 1024 * 1024)
  })
})
