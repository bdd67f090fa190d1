// Runs over HTTP: gates and resume (403/404/409/422), timeouts, dry runs, recording modes, history, audit, cancel, restart, retention.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { edge, gateFlow, newAgent, node, refresh, saveWorkflow, setup, type People } from '../workflows/helpers.ts'

let p: People
beforeAll(async () => {
  p = await setup()
})
afterAll(() => p.t.close())

const runPath = (agent: string, id: string) => `/api/workflows/${agent}/${id}/run`
const start = (agent: string, id: string, body: unknown = { input: { amount: 5 } }, token = p.owner.token) =>
  p.t.request('POST', runPath(agent, id), { token, body })
const resume = (agent: string, runId: string, body: unknown, token = p.owner.token) =>
  p.t.request('POST', `/api/workflows/${agent}/runs/${runId}/resume`, { token, body })
const getRun = (agent: string, runId: string, token = p.owner.token, query = '') =>
  p.t.request('GET', `/api/workflows/${agent}/runs/${runId}${query}`, { token })
const setRecording = (mode: string) => p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { workflow_recording: mode } })
const module = () => p.t.server.modules.workflows

describe('running a workflow', () => {
  test('runs the live version by default and answers when the run finishes', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, {
      nodes: [
        node('a', 'set', { values: { doubled: '{{ $json.n * 2 }}' } }),
        node('o', 'output', { value: { v: '{{ $json.doubled }}', who: '{{ $workflow.agent }}' } }),
      ],
      connections: [edge('a', 'o')],
    })
    const res = await start(agent, id, { input: { n: 21 } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'succeeded', result: { v: 42, who: agent }, version: 1, source: 'live', waiting: null })
    expect(res.body.steps).toBeUndefined()
    const withData = await start(agent, id, { input: { n: 1 }, include_data: true })
    expect(withData.body.steps.map((s: { node_id: string }) => s.node_id)).toEqual(['a', 'o'])
  })

  test('a workflow only in the draft is 404 live; owners may run the draft, viewers may not', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, gateFlow(), { publish: false })
    expect((await start(agent, id)).status).toBe(404)
    expect((await start(agent, id, { version: 'draft', input: { amount: 1 } })).body).toMatchObject({ status: 'waiting_human', version: null, source: 'draft' })
    expect((await start(agent, id, { version: 'draft' }, p.viewer.token)).status).toBe(403)
    expect((await start(agent, id, {}, p.outsider.token)).status).toBe(404)
  })

  test('a run-time expression failure follows on_error; the default stop fails the run', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, { nodes: [node('a', 'set', { values: { v: '{{ to_number($json.x) }}' } })], connections: [] })
    const res = await start(agent, id, { input: { x: 'abc' } })
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'expression_error', node_id: 'a' } })
  })

  test('map.items that is not a list fails the run; a run past max_steps fails with max_steps_exceeded', async () => {
    const agent = await newAgent(p)
    const def = {
      nodes: [node('m', 'map', { items: '{{ $json.xs }}' }), node('s', 'set', { values: {} }), node('o', 'output', { value: '{{ $json }}' })],
      connections: [edge('m', 's', 'loop'), edge('s', 'm'), edge('m', 'o', 'done')],
      settings: { max_steps: 4 },
    }
    const id = await saveWorkflow(p, agent, def)
    expect((await start(agent, id, { input: { xs: 'no' } })).body.error.code).toBe('map_items_not_array')
    expect((await start(agent, id, { input: { xs: [1, 2, 3, 4] } })).body.error.code).toBe('max_steps_exceeded')
  })

  test('an llm step uses the mock provider by default', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, {
      nodes: [node('ask', 'llm', { prompt: 'Summarise {{ $json.t }}' }), node('o', 'output', { value: '{{ $json.text }}' })],
      connections: [edge('ask', 'o')],
    })
    expect((await start(agent, id, { input: { t: 'tea' } })).body.result).toContain('Summarise tea')
  })
})

describe('approval gates and resume', () => {
  let agent = ''
  let plain = ''
  let withPorts = ''
  beforeAll(async () => {
    agent = await newAgent(p)
    plain = await saveWorkflow(p, agent, gateFlow(), { name: 'plain' })
    withPorts = await saveWorkflow(p, agent, gateFlow({ timeout_s: 60 }, { rejected: true, timeout: true }), { name: 'ports' })
  })

  test('the run waits with the gate message and data, and GET shows the waiting block', async () => {
    const run = await start(agent, plain)
    expect(run.body).toMatchObject({
      status: 'waiting_human',
      result: null,
      waiting: { gate_id: 'gate', message: 'Refund 5?', data: { amount: 5, note: 'refund' } },
    })
    const expires = Date.parse(run.body.waiting.expires_at) - Date.parse(run.body.waiting.since)
    expect(expires).toBe(72 * 3600 * 1000)
    expect((await getRun(agent, run.body.run_id)).body.waiting.data).toEqual({ amount: 5, note: 'refund' })
  })

  test('approve merges edits as a JSON merge patch and adds _approval', async () => {
    const run = await start(agent, plain)
    const res = await resume(agent, run.body.run_id, { decision: 'approve', edits: { amount: 4, note: null, extra: { k: 1 } }, include_data: true })
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('succeeded')
    expect(res.body.result).toMatchObject({ amount: 4, extra: { k: 1 }, _approval: { decision: 'approve', decided_by: p.owner.id, channel: 'api' } })
    expect(res.body.result.note).toBeUndefined()
    expect(res.body.steps.map((s: { node_id: string }) => s.node_id)).toEqual(['gate', 'out'])
  })

  test('a second resume of the same run answers 409 (also when two arrive at once)', async () => {
    const run = await start(agent, plain)
    const [a, b] = await Promise.all([resume(agent, run.body.run_id, { decision: 'approve' }), resume(agent, run.body.run_id, { decision: 'approve' })])
    expect([a.status, b.status].sort()).toEqual([200, 409])
    expect((await resume(agent, run.body.run_id, { decision: 'reject' })).status).toBe(409)
  })

  test('reject with no rejected port ends the run rejected with the reason on the gate output', async () => {
    const run = await start(agent, plain)
    const res = await resume(agent, run.body.run_id, { decision: 'reject', reason: 'too much', include_data: true })
    expect(res.body.status).toBe('rejected')
    expect(res.body.steps[0].output._approval).toMatchObject({ decision: 'reject', reason: 'too much' })
  })

  test('reject follows the rejected port when connected', async () => {
    const run = await start(agent, withPorts)
    const res = await resume(agent, run.body.run_id, { decision: 'reject', reason: 'no' })
    expect(res.body).toMatchObject({ status: 'succeeded', result: { rejected: true, reason: 'no' } })
  })

  test('only the starter resumes: an admin who can see the run gets 403, another member 404, unknown runs 404', async () => {
    const run = await start(agent, plain, { input: { amount: 1 } }, p.viewer.token)
    expect((await resume(agent, run.body.run_id, { decision: 'approve' }, p.admin)).status).toBe(403)
    expect((await resume(agent, run.body.run_id, { decision: 'approve' }, p.owner.token)).status).toBe(404)
    expect((await resume(agent, 'no-such-run', { decision: 'approve' }, p.viewer.token)).status).toBe(404)
    expect((await resume(agent, run.body.run_id, { decision: 'approve' }, p.outsider.token)).status).toBe(404)
    expect((await resume(agent, run.body.run_id, { decision: 'approve' }, p.viewer.token)).body.status).toBe('succeeded')
  })

  test('bad resume bodies are 422: decision, edits with reject, edits not an object, reserved keys', async () => {
    const run = await start(agent, plain)
    const id = run.body.run_id
    const bad = async (body: unknown, loc: (string | number)[]) => {
      const res = await resume(agent, id, body)
      expect(res.status).toBe(422)
      expect(res.body.detail[0].loc).toEqual(loc)
    }
    await bad({ decision: 'maybe' }, ['body', 'decision'])
    await bad({}, ['body', 'decision'])
    await bad({ decision: 'reject', edits: { a: 1 } }, ['body', 'edits'])
    await bad({ decision: 'approve', edits: [1, 2] }, ['body', 'edits'])
    await bad({ decision: 'approve', edits: 'x' }, ['body', 'edits'])
    await bad({ decision: 'approve', edits: { _approval: {} } }, ['body', 'edits', '_approval'])
    expect((await getRun(agent, id)).body.status).toBe('waiting_human')
  })

  test('resume of a finished or cancelled run is 409', async () => {
    const done = await start(agent, withPorts)
    await resume(agent, done.body.run_id, { decision: 'approve' })
    expect((await resume(agent, done.body.run_id, { decision: 'approve' })).status).toBe(409)
    const cancelled = await start(agent, plain)
    expect((await p.t.request('POST', `/api/workflows/${agent}/runs/${cancelled.body.run_id}/cancel`, { token: p.owner.token })).body.status).toBe('cancelled')
    expect((await resume(agent, cancelled.body.run_id, { decision: 'approve' })).status).toBe(409)
  })

  test('a gate timeout fails the run with approval_timeout, or follows the timeout port', async () => {
    const failing = await start(agent, plain)
    const routed = await start(agent, withPorts)
    p.t.clock.advance(73 * 3600 * 1000)
    await refresh(p)
    expect(await module().service.expireGates()).toBeGreaterThanOrEqual(2)
    expect((await getRun(agent, failing.body.run_id)).body).toMatchObject({ status: 'failed', error: { code: 'approval_timeout' } })
    expect((await getRun(agent, routed.body.run_id)).body).toMatchObject({ status: 'succeeded', result: 'timed out' })
    expect((await resume(agent, failing.body.run_id, { decision: 'approve' })).status).toBe(409)
  })

  test('a resume after expiry, before the sweep, applies the timeout and answers 409', async () => {
    const run = await start(agent, withPorts)
    p.t.clock.advance(61_000)
    const res = await resume(agent, run.body.run_id, { decision: 'approve' })
    expect(res.status).toBe(409)
    expect(res.body.detail).toMatch(/timed out/)
    expect((await getRun(agent, run.body.run_id)).body.result).toBe('timed out')
  })

  test('waiting runs survive a restart and resume afterwards', async () => {
    const run = await start(agent, plain)
    await p.t.restart()
    expect((await getRun(agent, run.body.run_id)).body.status).toBe('waiting_human')
    expect((await resume(agent, run.body.run_id, { decision: 'approve' })).body.status).toBe('succeeded')
  })

  test('runs pin their definition: editing and publishing while waiting does not change the resumed run', async () => {
    const a = await newAgent(p)
    const id = await saveWorkflow(p, a, gateFlow())
    const run = await start(a, id)
    const changed = gateFlow()
    ;(changed.nodes[2] as { params: Record<string, unknown> }).params = { value: 'changed' }
    await p.t.request('PUT', `/api/workflows/${a}/${id}`, { token: p.owner.token, body: { name: 'flow', definition: changed } })
    await p.t.request('POST', `/api/agents/${a}/publish`, { token: p.owner.token, body: {} })
    const res = await resume(a, run.body.run_id, { decision: 'approve' })
    expect(res.body.result).toMatchObject({ amount: 5 })
    expect(res.body.version).toBe(1)
  })
})

describe('dry runs', () => {
  let agent = ''
  let id = ''
  beforeAll(async () => {
    agent = await newAgent(p)
    id = await saveWorkflow(p, agent, {
      nodes: [
        node('ask', 'llm', { prompt: 'Price for {{ $json.item }}' }),
        node('gate', 'approval', { message: 'ok?' }),
        node('o', 'output', { value: '{{ $json }}' }),
      ],
      connections: [edge('ask', 'gate'), edge('gate', 'o', 'approved')],
    })
  })

  test('simulate llm steps and approve gates by default, and are never persisted', async () => {
    const res = await start(agent, id, { dry_run: true, include_data: true, input: { item: 'tea' } })
    expect(res.body).toMatchObject({ status: 'succeeded', dry_run: true, recording: null })
    expect(res.body.result._approval.decision).toBe('approve')
    expect(res.body.steps.map((s: { node_id: string; simulated: boolean }) => [s.node_id, s.simulated])).toEqual([
      ['ask', true],
      ['gate', true],
      ['o', false],
    ])
    expect((await getRun(agent, res.body.run_id)).status).toBe(404)
    const history = await p.t.request('GET', `/api/workflows/${agent}/runs`, { token: p.owner.token })
    expect(history.body.map((r: { run_id: string }) => r.run_id)).not.toContain(res.body.run_id)
  })

  test('take llm outputs and gate decisions from step_data', async () => {
    const approved = await start(agent, id, { dry_run: true, step_data: { ask: { text: 'given' }, gate: { decision: 'approve', edits: { extra: 1 } } } })
    expect(approved.body.result).toMatchObject({ text: 'given', extra: 1 })
    const rejected = await start(agent, id, { dry_run: true, step_data: { gate: { decision: 'reject', reason: 'no' } } })
    expect(rejected.body.status).toBe('rejected')
  })

  test('step_data on a real run is 422', async () => {
    const res = await start(agent, id, { step_data: { ask: {} } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['body', 'step_data'])
  })
})

describe('recording, history and audit', () => {
  test('org settings are admin-only; members get 403; bad modes 422', async () => {
    expect((await p.t.request('GET', '/api/org/settings', { token: p.owner.token })).status).toBe(403)
    expect((await p.t.request('PUT', '/api/org/settings', { token: p.owner.token, body: { workflow_recording: 'disabled' } })).status).toBe(403)
    expect((await p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { workflow_recording: 'some' } })).status).toBe(422)
    expect((await p.t.request('GET', '/api/org/settings', { token: p.admin })).body).toMatchObject({ workflow_recording: 'full', workflow_retention_days: 90 })
  })

  test('headers_only keeps status and step timings without data', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, {
      nodes: [node('a', 'set', { values: { secret: 's3' } }), node('o', 'output', { value: '{{ $json }}' })],
      connections: [edge('a', 'o')],
    })
    await setRecording('headers_only')
    try {
      const run = await start(agent, id, { input: {} })
      expect(run.body.result).toEqual({ secret: 's3' })
      const stored = await getRun(agent, run.body.run_id, p.owner.token, '?include_data=true')
      expect(stored.body).toMatchObject({ status: 'succeeded', recording: 'headers_only', result: null })
      expect(stored.body.steps).toHaveLength(2)
      expect(stored.body.steps.every((s: { input: unknown; output: unknown }) => s.input === null && s.output === null)).toBe(true)
    } finally {
      await setRecording('full')
    }
  })

  test('disabled keeps no history, but a waiting run keeps its checkpoint until it finishes; the mode is pinned per run', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, gateFlow())
    const simple = await saveWorkflow(p, agent, { nodes: [node('o', 'output', { value: 1 })], connections: [] }, { name: 'simple' })
    await setRecording('disabled')
    const finished = await start(agent, simple)
    const waiting = await start(agent, id)
    await setRecording('full')
    expect(finished.body.status).toBe('succeeded')
    expect((await getRun(agent, finished.body.run_id)).status).toBe(404)
    expect((await getRun(agent, waiting.body.run_id)).body).toMatchObject({ status: 'waiting_human', recording: 'disabled' })
    const listed = await p.t.request('GET', `/api/workflows/${agent}/runs?status=waiting_human`, { token: p.owner.token })
    expect(listed.body.map((r: { run_id: string }) => r.run_id)).toEqual([waiting.body.run_id])
    const resumed = await resume(agent, waiting.body.run_id, { decision: 'approve' })
    expect(resumed.body.status).toBe('succeeded')
    expect((await getRun(agent, waiting.body.run_id)).status).toBe(404)
  })

  test('admins see every run, members only their own', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, { nodes: [node('o', 'output', { value: 1 })], connections: [] })
    const mine = await start(agent, id, {}, p.owner.token)
    const theirs = await start(agent, id, {}, p.viewer.token)
    const ids = async (token: string) => (await p.t.request('GET', `/api/workflows/${agent}/runs`, { token })).body.map((r: { run_id: string }) => r.run_id)
    expect(await ids(p.owner.token)).toEqual([mine.body.run_id])
    expect(await ids(p.viewer.token)).toEqual([theirs.body.run_id])
    expect(await ids(p.admin)).toEqual([theirs.body.run_id, mine.body.run_id])
    expect((await getRun(agent, theirs.body.run_id, p.owner.token)).status).toBe(404)
    expect((await getRun(agent, theirs.body.run_id, p.admin)).status).toBe(200)
    expect((await p.t.request('GET', `/api/workflows/${agent}/runs`, { token: p.outsider.token })).status).toBe(404)
  })

  test('the audit log records approval decisions and setting changes, whatever the recording mode; admins only', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, gateFlow())
    await setRecording('disabled')
    const run = await start(agent, id)
    await resume(agent, run.body.run_id, { decision: 'reject', reason: 'nope' })
    await setRecording('full')
    const audit = await p.t.request('GET', '/api/audit?action=workflow.approval', { token: p.admin })
    expect(audit.body[0]).toMatchObject({
      action: 'workflow.approval',
      actor_id: p.owner.id,
      actor_email: 'owner@example.com',
      target_id: run.body.run_id,
      details: { decision: 'reject', channel: 'api' },
    })
    const settings = await p.t.request('GET', '/api/audit?action=org_settings.update', { token: p.admin })
    expect(settings.body[0].details.changes.workflow_recording).toEqual({ from: 'disabled', to: 'full' })
    expect((await p.t.request('GET', '/api/audit', { token: p.owner.token })).status).toBe(403)
  })
})

describe('cancel and retention', () => {
  test('starter or admin cancel; others 404; a second cancel 409', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, gateFlow())
    const a = await start(agent, id)
    const cancel = (runId: string, token: string) => p.t.request('POST', `/api/workflows/${agent}/runs/${runId}/cancel`, { token })
    expect((await cancel(a.body.run_id, p.viewer.token)).status).toBe(404)
    expect((await cancel(a.body.run_id, p.admin)).body.status).toBe('cancelled')
    expect((await cancel(a.body.run_id, p.owner.token)).status).toBe(409)
    expect((await cancel('nope', p.owner.token)).status).toBe(404)
  })

  test('pruning removes finished runs past retention and never touches waiting ones', async () => {
    const agent = await newAgent(p)
    const id = await saveWorkflow(p, agent, gateFlow())
    const finished = await start(agent, id)
    await resume(agent, finished.body.run_id, { decision: 'approve' })
    const waiting = await start(agent, id, { input: { amount: 1 } })
    await p.t.request('PUT', '/api/org/settings', { token: p.admin, body: { workflow_retention_days: 1 } })
    p.t.clock.advance(2 * 86_400_000)
    await refresh(p)
    expect(await module().prune()).toBeGreaterThanOrEqual(1)
    expect((await getRun(agent, finished.body.run_id)).status).toBe(404)
    expect((await getRun(agent, waiting.body.run_id)).status).toBe(200)
  })
})
