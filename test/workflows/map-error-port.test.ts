// A map's `error` and `done` ports are alternatives (issue 14, item 24): outputs on each are not parallel branches.
import { describe, expect, test } from 'bun:test'
import type { WorkflowDefinition } from '../../src/modules/workflows/definition/types.ts'
import { validateDefinition } from '../../src/modules/workflows/definition/validate.ts'
import { WorkflowExecutor, type EngineHost } from '../../src/modules/workflows/engine/executor.ts'

const n = (id: string, type: string, params: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  ({ id, type: `agentbox.${type}`, params, ...extra }) as WorkflowDefinition['nodes'][number]
const e = (from: string, to: string, port?: string) => (port ? { from, port, to } : { from, to })

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
const run = (definition: WorkflowDefinition, input: unknown) => new WorkflowExecutor(definition, { ...info, input }, host).start()

const mapWithErrorOutput: WorkflowDefinition = {
  nodes: [
    n('m', 'map', { items: '{{ $json.xs }}' }, { on_error: 'error_output' }),
    n('double', 'set', { values: { v: '{{ $item * 2 }}' } }),
    n('ok', 'output', { value: '{{ $json }}' }),
    n('failed', 'output', { value: { failed: '{{ $json.error.code }}' } }),
  ],
  connections: [e('m', 'double', 'loop'), e('double', 'm'), e('m', 'ok', 'done'), e('m', 'failed', 'error')],
}

describe('map error and done ports', () => {
  test('an output on error and another on done are accepted at save', () => {
    expect(validateDefinition(mapWithErrorOutput)).toEqual([])
  })

  test('the done output decides the result when the map succeeds, the error output when it fails', async () => {
    expect(await run(mapWithErrorOutput, { xs: [1, 2] })).toMatchObject({ status: 'succeeded', result: [{ v: 2 }, { v: 4 }] })
    expect(await run(mapWithErrorOutput, { xs: 'not a list' })).toMatchObject({ status: 'succeeded', result: { failed: 'map_items_not_array' } })
  })

  test('outputs that really are parallel are still refused', () => {
    const parallel: WorkflowDefinition = {
      nodes: [n('start', 'set', { values: {} }), n('m', 'map', { items: '{{ [1] }}' }), n('a', 'output', { value: 1 }), n('b', 'output', { value: 2 })],
      connections: [e('start', 'm'), e('start', 'b'), e('m', 'a', 'done')],
    }
    expect(
      validateDefinition(parallel)
        .map((i) => i.msg)
        .join(),
    ).toMatch(/parallel branches/)
  })
})
