import { afterAll, beforeAll, test } from 'bun:test'
import { edge, newAgent, node, saveWorkflow, setup, type People } from './helpers.ts'
let p: People
beforeAll(async () => { p = await setup() })
afterAll(() => p.t.close())
test('prof', async () => {
  const agent = await newAgent(p)
  const ids = Array.from({ length: 20 }, (_, i) => `s${i}`)
  const values = Object.fromEntries(Array.from({ length: 12 }, (_, c) => [`c${c}`, '{{ $run.input.x }}']))
  const id = await saveWorkflow(p, agent, { nodes: ids.map((i) => node(i, 'set', { mode: 'replace', values })), connections: ids.slice(1).map((x, i) => edge(ids[i]!, x)) })
  const x = Array.from({ length: 100_000 }, () => ({}))
  for (const dry of [true, false, true, false, true, false]) {
    let worst = 0
    let last = performance.now()
    const timer = setInterval(() => { const n = performance.now(); worst = Math.max(worst, n - last); last = n }, 1)
    const t0 = performance.now()
    const r = await p.t.request('POST', `/api/workflows/${agent}/${id}/run`, { token: p.owner.token, body: { dry_run: dry, input: { x } } })
    clearInterval(timer)
    console.log(dry ? 'dry ' : 'real', r.body.status, (performance.now() - t0).toFixed(1), 'ms total, worst gap', worst.toFixed(1))
  }
})
