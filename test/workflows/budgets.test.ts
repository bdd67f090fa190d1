// Runs cannot hold the server (issue 14, items 2 and 3): they yield to the event loop, their expressions have a work
// budget, every value and step output is bounded, and timeout_s has a sane default and maximum.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { LIMITS } from '../../src/modules/workflows/definition/types.ts'
import { ExpressionBudget, jsonSizeUpTo } from '../../src/modules/workflows/expr/budget.ts'
import { resolveValue } from '../../src/modules/workflows/expr/template.ts'
import { edge, newAgent, node, saveWorkflow, setup, type People } from './helpers.ts'

let p: People
beforeAll(async () => {
  p = await setup()
})
afterAll(() => p.t.close())

const start = (agent: string, id: string, body: unknown) => p.t.request('POST', `/api/workflows/${agent}/${id}/run`, { token: p.owner.token, body })

describe('expression budget', () => {
  test('a dry run doing ~1,500 split() calls on a 900 KB text fails with expression_budget_exceeded instead of running for seconds', async () => {
    const agent = await newAgent(p)
    // 300 values × 5 splits of a 900 KB text: 1,500 splits of ~450,000 pieces each (about 20 s of blocking before the fix).
    const expr =
      '{{ length(split($json.s, ",")) + length(split($json.s, ",")) + length(split($json.s, ",")) + length(split($json.s, ",")) + length(split($json.s, ",")) }}'
    const values = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`v${i}`, expr]))
    const id = await saveWorkflow(p, agent, { nodes: [node('heavy', 'set', { values })], connections: [] })
    const res = await start(agent, id, { dry_run: true, input: { s: 'a,'.repeat(450_000) } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'expression_budget_exceeded', node_id: 'heavy' } })
    // One step's share of the budget runs out first: a step runs without a break, so its share bounds that hold.
    expect(res.body.error.message).toContain("One step's expressions did more work than allowed (5,000,000 units")
  })

  test('the budget is per run: it holds across steps and map iterations, and ordinary runs are far below it', async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [
        node('m', 'map', { items: '{{ $json.xs }}' }),
        node('s', 'set', { values: { n: '{{ length(split($run.input.s, ",")) }}' } }),
        node('o', 'output', { value: '{{ length($json) }}' }),
      ],
      connections: [edge('m', 's', 'loop'), edge('s', 'm'), edge('m', 'o', 'done')],
      settings: { max_steps: 5000 },
    }
    const id = await saveWorkflow(p, agent, def)
    const small = await start(agent, id, { dry_run: true, input: { s: 'a,'.repeat(100), xs: Array.from({ length: 100 }, (_, i) => i) } })
    expect(small.body).toMatchObject({ status: 'succeeded', result: 100 })
    // 1,000 iterations, each splitting a 100,000-character text: past the budget part way through.
    const big = await start(agent, id, { dry_run: true, input: { s: 'a,'.repeat(50_000), xs: Array.from({ length: 1000 }, (_, i) => i) } })
    expect(big.body).toMatchObject({ status: 'failed', error: { code: 'item_failed' } })
    expect(big.body.error.message).toContain("The run's expressions did more work than allowed (50,000,000 units")
  })

  test('functions refuse results past their caps before building them', () => {
    const budget = new ExpressionBudget()
    const scope = { $json: { s: 'x'.repeat(1100), big: { a: 'y'.repeat(600_000) } } }
    expect(() => resolveValue('{{ replace($json.s, "x", $json.s) }}', scope, budget)).toThrow('replace() would make more than')
    expect(() => resolveValue('{{ join([$json.big, $json.big], "") }}', scope, budget)).toThrow('join() would make more than')
    expect(() => resolveValue('{{ to_json([$json.big, $json.big]) }}', scope, budget)).toThrow('at most 1000000 characters')
    expect(() => resolveValue('{{ "" + [$json.big, $json.big] }}', scope, budget)).toThrow('at most 1000000 characters')
    expect(budget.used).toBeGreaterThan(0)
    expect(() => resolveValue('{{ length($json.s) }}', scope, new ExpressionBudget(0, 2))).toThrow('did more work than allowed')
    // Each resolveValue is a step with its own share; the run's total goes on across steps.
    const shared = new ExpressionBudget(0, 10_000, 1500)
    for (let step = 0; step < 5; step++) resolveValue('{{ length($json.s) }}', scope, shared)
    expect(shared.used).toBeGreaterThan(5 * 1100)
    expect(() => resolveValue('{{ length($json.s) + length($json.s) }}', scope, shared)).toThrow("One step's expressions")
    expect(() => {
      for (let step = 0; step < 10; step++) resolveValue('{{ length($json.s) }}', scope, shared)
    }).toThrow("The run's expressions")
  })
})

describe('value and output sizes', () => {
  test('thirteen chained [$json,$json,$json,$json] set nodes fail with output_too_large, quickly', async () => {
    const agent = await newAgent(p)
    const ids = Array.from({ length: 13 }, (_, i) => `s${i}`)
    const def = {
      nodes: [...ids.map((id) => node(id, 'set', { values: { v: '{{ [$json,$json,$json,$json] }}' } })), node('o', 'output', { value: '{{ $json }}' })],
      connections: [...ids.slice(1).map((id, i) => edge(ids[i]!, id)), edge(ids.at(-1)!, 'o')],
    }
    const id = await saveWorkflow(p, agent, def)
    const res = await start(agent, id, { dry_run: true, input: { t: 'z'.repeat(10_000) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large' } })
    expect(res.body.error.message).toContain('4 MiB')
    expect(ids).toContain(res.body.error.node_id)
  })

  test('map results are bounded as they grow', async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [node('m', 'map', { items: '{{ $json.xs }}' }), node('s', 'set', { mode: 'replace', values: { v: '{{ $run.input.t }}' } })],
      connections: [edge('m', 's', 'loop'), edge('s', 'm')],
      settings: { max_steps: 5000 },
    }
    const id = await saveWorkflow(p, agent, def)
    const res = await start(agent, id, { dry_run: true, input: { t: 'z'.repeat(500_000), xs: Array.from({ length: 100 }, (_, i) => i) } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'output_too_large', node_id: 'm' } })
    expect(res.body.error.message).toContain("map's results")
  })

  test('the size estimate stops early on huge shared structures', () => {
    let v: unknown = { t: 'z'.repeat(1000) }
    for (let i = 0; i < 40; i++) v = [v, v, v, v] // 4^40 leaves if written out
    // Without the early stop this walk would never end (the test's time limit would end it).
    expect(jsonSizeUpTo(v, LIMITS.valueBytesCap)).toBeGreaterThan(LIMITS.valueBytesCap)
    expect(jsonSizeUpTo({ a: [1, 'xy', null, true] }, 1e9)).toBeLessThan(60)
  })
})

describe('yielding and run time', () => {
  test('a heavy run gives the event loop turns while it executes (timers fire; a request would be served)', async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [
        node('m', 'map', { items: '{{ $json.xs }}' }),
        node('s', 'set', { values: { n: '{{ length(split($run.input.s, ",")) + $item }}' } }),
        node('o', 'output', { value: '{{ length($json) }}' }),
      ],
      connections: [edge('m', 's', 'loop'), edge('s', 'm'), edge('m', 'o', 'done')],
      settings: { max_steps: 20_000 },
    }
    const id = await saveWorkflow(p, agent, def)
    // The test server is called in-process (app.handle), so a request made here would interleave with the run through
    // promise callbacks alone and prove nothing. A macrotask chain does: it advances only when the run lets the loop turn.
    let turns = 0
    let settled = false
    const tick = () => {
      if (settled) return
      turns++
      setImmediate(tick)
    }
    setImmediate(tick)
    const res = await start(agent, id, { input: { s: 'a,'.repeat(100), xs: Array.from({ length: 9000 }, (_, i) => i) } })
    settled = true
    expect(res.body).toMatchObject({ status: 'succeeded', result: 9000 })
    // 9,000 iterations take well over 5 ms, after each of which the run yields once.
    expect(turns).toBeGreaterThan(10)
  })

  test('timeout_s defaults to 300 s and is at most 3,600: 86400 is refused at save', async () => {
    expect(LIMITS.timeoutDefaultS).toBe(300)
    const agent = await newAgent(p)
    const def = (timeout_s: number) => ({ nodes: [node('a', 'set', { values: {} })], connections: [], settings: { timeout_s } })
    const refused = await p.t.request('POST', `/api/workflows/${agent}`, { token: p.owner.token, body: { name: 'long', definition: def(86_400) } })
    expect(refused.status).toBe(422)
    expect(JSON.stringify(refused.body)).toContain('timeout_s must be an integer from 1 to 3600')
    const ok = await p.t.request('POST', `/api/workflows/${agent}`, { token: p.owner.token, body: { name: 'hour', definition: def(3600) } })
    expect(ok.status).toBe(201)
  })
})
