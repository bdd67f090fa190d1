// A real run stores its steps the way a dry run runs them (issue 25, item 7): in slices with turns of the event loop
// between, never all in one write at the end (100,000 steps held the server for 1.9 s).
import { ON_POSTGRES } from '../helpers/database.ts'
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { edge, newAgent, node, saveWorkflow, setup, type People } from './helpers.ts'

let p: People
let db: Database
beforeAll(async () => {
  p = await setup()
  if (!ON_POSTGRES) db = new Database(join(p.t.dataDir, 'agentbox.db'), { readonly: true })
})
afterAll(async () => {
  db?.close()
  await p.t.close()
})

/** A map over `items` numbers with a two-step body: 1 + 2 × items + 1 steps. */
const longRun = {
  nodes: [
    node('m', 'map', { items: '{{ $json.xs }}' }),
    node('a', 'set', { values: { v: '{{ $item * 2 }}' } }),
    node('b', 'set', { values: { w: '{{ $json.v + 1 }}' } }),
    node('o', 'output', { value: '{{ length($json) }}' }),
  ],
  connections: [edge('m', 'a', 'loop'), edge('a', 'b'), edge('b', 'm'), edge('m', 'o', 'done')],
  settings: { max_steps: 100_000 },
}

// SQLite only: the rows are counted synchronously, on a read connection of the file, inside a chain of event-loop turns;
// on PostgreSQL a read is itself an await and cannot observe one turn from inside it.
test.skipIf(ON_POSTGRES)('the step rows of a 6,002-step run are committed a slice at a time, the event loop turning between slices', async () => {
  const agent = await newAgent(p)
  const id = await saveWorkflow(p, agent, longRun)
  const committed = db.query('SELECT count(*) AS n FROM workflow_steps')
  const count = () => (committed.get() as { n: number }).n
  const before = count()
  // A macrotask chain advances only when the server lets the event loop turn: the rows committed between two of its
  // ticks are the rows one uninterrupted stretch of work wrote.
  let last = before
  let largestStretch = 0
  let ticks = 0
  let running = true
  const tick = () => {
    if (!running) return
    const now = count()
    largestStretch = Math.max(largestStretch, now - last)
    last = now
    ticks++
    setImmediate(tick)
  }
  setImmediate(tick)
  const res = await p.t.request('POST', `/api/workflows/${agent}/${id}/run`, {
    token: p.owner.token,
    body: { input: { xs: Array.from({ length: 3000 }, (_, i) => i) } },
  })
  running = false
  largestStretch = Math.max(largestStretch, count() - last)
  expect(res.body).toMatchObject({ status: 'succeeded', result: 3000, recording: 'full' })
  expect(count() - before).toBe(6002)
  // At most one slice (200 rows) between two turns; before, all 6,002 were written in the run's final transaction.
  expect(largestStretch).toBeLessThanOrEqual(200)
  expect(ticks).toBeGreaterThan(6002 / 200)
  const stored = await p.t.request('GET', `/api/workflows/${agent}/runs/${res.body.run_id}?include_data=true`, { token: p.owner.token })
  expect(stored.body.steps).toHaveLength(6002)
  expect(stored.body.steps.at(-1)).toMatchObject({ node_id: 'o', output: 3000 })
  expect(stored.body.steps[1]).toMatchObject({ node_id: 'b', iteration: [0], input: { v: 0 }, output: { v: 0, w: 1 } })
})

// The PostgreSQL twin: a read there is itself an await, so the slices are seen in what PostgreSQL keeps of each row, the
// transaction that inserted it (xmin): no transaction holds more than one slice, and each commit is a round trip to the
// server, during which the event loop turns.
test.skipIf(!ON_POSTGRES)('the step rows of a 6,002-step run are committed a slice at a time, one transaction per slice (PostgreSQL)', async () => {
  const agent = await newAgent(p)
  const id = await saveWorkflow(p, agent, longRun)
  const res = await p.t.request('POST', `/api/workflows/${agent}/${id}/run`, {
    token: p.owner.token,
    body: { input: { xs: Array.from({ length: 3000 }, (_, i) => i) } },
  })
  expect(res.body).toMatchObject({ status: 'succeeded', result: 3000, recording: 'full' })
  const transactions = await p.t.sql.all<{ n: number }>(
    'SELECT xmin::text AS tx, count(*) AS n FROM workflow_steps WHERE run_id = ? GROUP BY 1',
    res.body.run_id,
  )
  expect(transactions.reduce((sum, { n }) => sum + Number(n), 0)).toBe(6002)
  // At most one slice (200 rows) per transaction; before, all 6,002 were written in the run's final transaction.
  expect(Math.max(...transactions.map(({ n }) => Number(n)))).toBeLessThanOrEqual(200)
  expect(transactions.length).toBeGreaterThan(6002 / 200)
})
