// The executor on its own (no server): branching and skip propagation, joins, map order, on_error, retries, run limits.
import { describe, expect, test } from 'bun:test'
import type { WorkflowDefinition } from '../../src/modules/workflows/definition/types.ts'
import { validateDefinition } from '../../src/modules/workflows/definition/validate.ts'
import { WorkflowExecutor, type EngineHost, type LlmCall } from '../../src/modules/workflows/engine/executor.ts'
import { StepError } from '../../src/modules/workflows/engine/errors.ts'
import type { StepTrace } from '../../src/modules/workflows/engine/trace.ts'

const n = (id: string, type: string, params: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  ({ id, type: `agentbox.${type}`, params, ...extra }) as WorkflowDefinition['nodes'][number]
const e = (from: string, to: string, port?: string) => (port ? { from, port, to } : { from, to })

function host(options: { llm?: (call: LlmCall, attempt: number) => string; tick?: number; stepData?: Record<string, unknown> } = {}) {
  let now = Date.parse('2030-01-01T00:00:00Z')
  let calls = 0
  const traces: StepTrace[] = []
  const h: EngineHost = {
    clock: { now: () => (now += options.tick ?? 0) },
    stepData: options.stepData ?? null,
    isCancelled: () => false,
    onTrace: (t) => void traces.push(t),
    sleep: async () => {},
    callLlm: async (call) => ({ text: options.llm ? options.llm(call, ++calls) : `echo ${call.prompt}`, provider: 'mock', model: 'mock' }),
  }
  return { h, traces, calls: () => calls }
}

async function run(definition: WorkflowDefinition, input: unknown, options: Parameters<typeof host>[0] = {}) {
  expect(validateDefinition(definition)).toEqual([])
  const { h, traces, calls } = host(options)
  const info = {
    id: 'r1',
    input,
    started_at: '2030-01-01T00:00:00.000Z',
    starter: 'u1',
    dry_run: false,
    workflow: { id: 'w', name: 'w', version: 1, agent: 'a' },
  }
  const outcome = await new WorkflowExecutor(definition, info, h).start()
  return { outcome, traces, calls }
}

describe('branches and joins', () => {
  const ifJoin: WorkflowDefinition = {
    nodes: [
      n('check', 'if', { conditions: [{ left: '{{ $json.kind }}', operator: 'equals', right: 'vip' }] }),
      n('vip', 'set', { values: { tier: 'gold' } }),
      n('std', 'set', { values: { tier: 'basic' } }),
      n('both', 'join'),
      n('out', 'output', { value: '{{ $json }}' }),
    ],
    connections: [e('check', 'vip', 'true'), e('check', 'std', 'false'), e('vip', 'both'), e('std', 'both'), e('both', 'out')],
  }

  test('a join after an if fires with the taken branch only; the other is skipped, not awaited', async () => {
    const { outcome, traces } = await run(ifJoin, { kind: 'vip' })
    expect(outcome.kind === 'finished' && outcome.status).toBe('succeeded')
    expect(outcome.kind === 'finished' && outcome.result).toEqual({ vip: { kind: 'vip', tier: 'gold' } })
    expect(traces.find((t) => t.node_id === 'std')?.status).toBe('skipped')
  })

  test('a join waits for every parallel branch and keys outputs by source in edge order', async () => {
    const parallel: WorkflowDefinition = {
      nodes: [
        n('start', 'set', { values: { x: 1 } }),
        n('a', 'set', { values: { a: 1 } }, {}),
        n('b', 'llm', { prompt: 'p{{ $json.x }}' }),
        n('j', 'join'),
        n('out', 'output', { value: '{{ $json }}' }),
      ],
      connections: [e('start', 'a'), e('start', 'b'), e('a', 'j'), e('b', 'j'), e('j', 'out')],
    }
    const { outcome } = await run(parallel, {})
    expect(outcome.kind === 'finished' && outcome.result).toEqual({ a: { x: 1, a: 1 }, b: { text: 'echo p1' } })
  })
})

describe('map', () => {
  const mapFlow = (onItemError = 'stop'): WorkflowDefinition => ({
    nodes: [
      n('each', 'map', { items: '{{ $json.xs }}', on_item_error: onItemError }),
      n('calc', 'set', { mode: 'replace', values: { v: '{{ 10 / to_number($item) }}', i: '{{ $index }}' } }),
      n('out', 'output', { value: '{{ $json }}' }),
    ],
    connections: [e('each', 'calc', 'loop'), e('calc', 'each'), e('each', 'out', 'done')],
  })

  test('done receives the iteration results in input order', async () => {
    const { outcome, traces } = await run(mapFlow(), { xs: [1, 2, 5] })
    expect(outcome.kind === 'finished' && outcome.result).toEqual([
      { v: 10, i: 0 },
      { v: 5, i: 1 },
      { v: 2, i: 2 },
    ])
    expect(traces.filter((t) => t.node_id === 'calc').map((t) => t.iteration)).toEqual([[0], [1], [2]])
  })

  test('an empty list goes to done at once with []', async () => {
    const { outcome } = await run(mapFlow(), { xs: [] })
    expect(outcome.kind === 'finished' && outcome.result).toEqual([])
  })

  test('on_item_error null and skip keep or drop a failed item; stop fails the map', async () => {
    expect(((await run(mapFlow('null'), { xs: [1, 'x', 2] })).outcome as any).result).toEqual([{ v: 10, i: 0 }, null, { v: 5, i: 2 }])
    expect(((await run(mapFlow('skip'), { xs: [1, 'x', 2] })).outcome as any).result).toEqual([
      { v: 10, i: 0 },
      { v: 5, i: 2 },
    ])
    const stopped = (await run(mapFlow('stop'), { xs: [1, 'x'] })).outcome as any
    expect(stopped.status).toBe('failed')
    expect(stopped.error.code).toBe('item_failed')
  })

  test('items that are not a list fail the step with map_items_not_array', async () => {
    const { outcome } = await run(mapFlow(), { xs: 'nope' })
    expect((outcome as any).error).toMatchObject({ code: 'map_items_not_array', node_id: 'each' })
  })
})

describe('on_error and retries', () => {
  const failing = (onError: string): WorkflowDefinition => ({
    nodes: [
      n('bad', 'set', { values: { v: '{{ to_number("x") }}' } }, { on_error: onError }),
      n('fallback', 'set', { values: { handled: true } }),
      n('out', 'output', { value: '{{ $json }}' }),
    ],
    connections: onError === 'error_output' ? [e('bad', 'fallback', 'error'), e('fallback', 'out')] : [e('bad', 'out')],
  })

  test('stop fails the run with the step error', async () => {
    const { outcome } = await run(failing('stop'), {})
    expect((outcome as any).error).toMatchObject({ code: 'expression_error', node_id: 'bad' })
  })

  test('continue emits {error} on main', async () => {
    const { outcome } = await run(failing('continue'), {})
    expect((outcome as any).result.error).toMatchObject({ code: 'expression_error', node_id: 'bad' })
  })

  test('error_output routes to the error port', async () => {
    const { outcome } = await run(failing('error_output'), {})
    expect((outcome as any).result).toMatchObject({ handled: true, error: { code: 'expression_error' } })
  })

  test('retryable model errors are retried before on_error applies; others are not', async () => {
    const flow: WorkflowDefinition = {
      nodes: [n('ask', 'llm', { prompt: 'x' }, { retry: { max_tries: 3, wait_ms: 0 } }), n('out', 'output', { value: '{{ $json.text }}' })],
      connections: [e('ask', 'out')],
    }
    const flaky = await run(
      flow,
      {},
      {
        llm: (_c, attempt) => {
          if (attempt < 3) throw new StepError('llm_error', 'answered HTTP 503', true)
          return 'ok'
        },
      },
    )
    expect((flaky.outcome as any).result).toBe('ok')
    expect(flaky.traces.find((t) => t.node_id === 'ask')!.attempts).toHaveLength(2)
    const fatal = await run(
      flow,
      {},
      {
        llm: () => {
          throw new StepError('llm_error', 'answered HTTP 401')
        },
      },
    )
    expect(fatal.calls()).toBe(1)
    expect((fatal.outcome as any).status).toBe('failed')
  })
})

describe('run limits', () => {
  const loop: WorkflowDefinition = {
    nodes: [n('each', 'map', { items: '{{ $json.xs }}' }), n('s', 'set', { values: { ok: true } }), n('out', 'output', { value: 1 })],
    connections: [e('each', 's', 'loop'), e('s', 'each'), e('each', 'out', 'done')],
    settings: { max_steps: 5 },
  }

  test('max_steps stops the run, whatever on_error says', async () => {
    const { outcome } = await run(loop, { xs: [1, 2, 3, 4, 5, 6] })
    expect((outcome as any).error).toMatchObject({ code: 'max_steps_exceeded' })
  })

  test('timeout_s stops a run that takes too long', async () => {
    const { outcome } = await run({ ...loop, settings: { timeout_s: 1 } }, { xs: [1, 2, 3] }, { tick: 400 })
    expect((outcome as any).error).toMatchObject({ code: 'run_timeout' })
  })
})
