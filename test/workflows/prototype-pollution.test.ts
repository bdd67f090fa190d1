// Hostile workflows (issue 14, item 1): node ids, join outputs, $steps, step data, set paths and edits never reach a prototype.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { WorkflowDefinition } from '../../src/modules/workflows/definition/types.ts'
import { WorkflowExecutor, type EngineHost } from '../../src/modules/workflows/engine/executor.ts'
import { edge, newAgent, node, saveWorkflow, setup, type People } from './helpers.ts'

/** Own keys of the prototypes a polluting write would land on, taken before anything hostile runs. */
const watched = () => [
  Object.prototype,
  Object.prototype.toString,
  Object.prototype.hasOwnProperty,
  Object.prototype.valueOf,
  Array.prototype,
  Function.prototype,
]
const snapshot = () => watched().map((target) => Reflect.ownKeys(target).map(String).sort())
const before = snapshot()

/** Reads a few properties through a fresh object, as the admin-update and task-visibility code paths did when polluted. */
function expectPrototypesUntouched() {
  expect(snapshot()).toEqual(before)
  const fresh: Record<string, unknown> = {}
  for (const key of ['polluted', 'x', 'password', 'visibility', 'a', 'b', 'role']) expect(fresh[key]).toBeUndefined()
}

let p: People
beforeAll(async () => {
  p = await setup()
})
afterAll(async () => {
  await p.t.close()
  expectPrototypesUntouched()
})

const run = (agent: string, id: string, body: unknown) => p.t.request('POST', `/api/workflows/${agent}/${id}/run`, { token: p.owner.token, body })

/** Two branches into one join, the join and both sources named by the caller. */
const joinFlow = (joinId: string, left: string, right: string) => ({
  nodes: [
    node('start', 'set', { values: { x: 1 } }),
    node(left, 'set', { values: { polluted: 'left' } }),
    node(right, 'set', { values: { polluted: 'right' } }),
    node(joinId, 'join'),
    node('out', 'output', { value: '{{ $json }}' }),
  ],
  connections: [edge('start', left), edge('start', right), edge(left, joinId), edge(right, joinId), edge(joinId, 'out')],
})

describe('node ids', () => {
  test.each(['__proto__', 'constructor', 'prototype', 'a.b', 'a b', '', 'x'.repeat(65), 'ünï'])('%p is refused at save with its location', async (id) => {
    const agent = await newAgent(p)
    const res = await p.t.request('POST', `/api/workflows/${agent}`, { token: p.owner.token, body: { name: 'hostile', definition: joinFlow(id, 'a', 'b') } })
    expect(res.status).toBe(422)
    expect(res.body.detail.some((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(['body', 'definition', 'nodes', 3, 'id']))).toBe(true)
    expectPrototypesUntouched()
  })
})

describe('hostile workflows leave every prototype untouched', () => {
  // Ids that are valid but name inherited members of a plain object: with plain-object maps they read methods.
  const inherited = ['toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf']

  test.each(inherited)('a join named %p, fed by branches named after inherited members, in a dry run and a real run', async (joinId) => {
    const agent = await newAgent(p)
    const left = joinId === 'valueOf' ? 'toLocaleString' : 'valueOf'
    const id = await saveWorkflow(p, agent, joinFlow(joinId, left, 'constructor_'))
    for (const dry of [true, false]) {
      const res = await run(agent, id, { input: {}, dry_run: dry, step_data: dry ? { [joinId]: { polluted: true } } : undefined })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ status: 'succeeded', result: { [left]: { x: 1, polluted: 'left' }, constructor_: { x: 1, polluted: 'right' } } })
      expectPrototypesUntouched()
    }
  })

  test('$steps of inherited-member ids, set paths and approval edits with prototype keys', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, {
      nodes: [
        node('toString', 'set', { values: { 'a.b': '{{ $json.v }}' } }),
        node('gate', 'approval', { message: 'ok?' }),
        node('out', 'output', { value: { steps: '{{ $steps.toString.json }}', gate: '{{ $json }}' } }),
      ],
      connections: [edge('toString', 'gate'), edge('gate', 'out', 'approved')],
    })
    const waiting = await run(agent, id, { input: { v: 2 } })
    expect(waiting.body.status).toBe('waiting_human')
    const resume = (rawBody: string) =>
      p.t.request('POST', `/api/workflows/${agent}/runs/${waiting.body.run_id}/resume`, {
        token: p.owner.token,
        rawBody,
        headers: { 'content-type': 'application/json' },
      })
    for (const edits of ['{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}', '{"a":{"__proto__":{"x":1}}}']) {
      const refused = await resume(`{"decision":"approve","edits":${edits}}`)
      expect(refused.status).toBe(422)
      expectPrototypesUntouched()
    }
    const resumed = await resume('{"decision":"approve","edits":{"a":{"c":3}}}')
    expect(resumed.status).toBe(200)
    expect(resumed.body).toMatchObject({ status: 'succeeded', result: { steps: { a: { b: 2 } }, gate: { a: { b: 2, c: 3 } } } })
    expectPrototypesUntouched()
    const dry = await run(agent, id, {
      input: { v: 3 },
      dry_run: true,
      step_data: JSON.parse('{"gate":{"decision":"approve","edits":{"__proto__":{"polluted":true}}},"__proto__":{"polluted":true}}'),
    })
    expect(dry.body.status).toBe('succeeded')
    expectPrototypesUntouched()
  })
})

describe('the engine refuses a stored definition with an unsafe id', () => {
  test('a __proto__ join saved before ids were checked fails the run instead of writing onto Object.prototype', async () => {
    const definition = joinFlow('__proto__', 'a', 'b') as WorkflowDefinition
    const host: EngineHost = {
      clock: { now: () => Date.parse('2030-01-01T00:00:00Z') },
      stepData: null,
      isCancelled: () => false,
      onTrace: () => {},
      sleep: async () => {},
      callLlm: async () => ({ text: '', provider: 'mock', model: 'mock' }),
    }
    const info = {
      id: 'r1',
      input: {},
      started_at: '2030-01-01T00:00:00.000Z',
      starter: 'u1',
      dry_run: false,
      workflow: { id: 'w', name: 'w', version: 1, agent: 'a' },
    }
    const outcome = await new WorkflowExecutor(definition, info, host).start()
    expect(outcome).toMatchObject({ kind: 'finished', status: 'failed', error: { code: 'invalid_definition' } })
    expectPrototypesUntouched()
  })
})
