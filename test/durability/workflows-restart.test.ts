// kill -9 while a workflow run waits for approval (server run from source): after a restart the checkpoint is there and resume works.
import { openTestReader } from '../helpers/database.ts'
import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { issueTestLicense } from '../helpers/license.ts'
import { callJson, launchServer, sleep, stopAllServers, stopServer, type RunningServer } from '../helpers/process.ts'

const tmp = mkdtempSync(join(tmpdir(), 'agentbox-wf-kill9-'))
const DATA = join(tmp, 'data')
const SETUP_TOKEN = 'wf-kill9-fixed-setup-token-0123456789'
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' }
const launch = () => launchServer({ dataDir: DATA, env: { AGENTBOX_SETUP_TOKEN: SETUP_TOKEN, AGENTBOX_LOG_LEVEL: 'warn' } })
const call = (server: RunningServer, method: string, path: string, token?: string, body?: unknown) => callJson(server, method, path, token, body)

afterAll(async () => {
  await stopAllServers()
  rmSync(tmp, { recursive: true, force: true })
})

test('kill -9 while waiting_human, restart on the same data dir: the run still waits and resumes once', async () => {
  let server = await launch()
  const setup = await call(server, 'POST', '/api/tenant/setup', SETUP_TOKEN, {
    license_token: issueTestLicense({}),
    admin_email: ADMIN.email,
    admin_name: ADMIN.name,
    admin_password: ADMIN.password,
  })
  expect(setup.status).toBe(200)
  const token = (await call(server, 'POST', '/api/auth/login', undefined, { email: ADMIN.email, password: ADMIN.password })).body.access_token
  // Recording disabled: the checkpoint must be written anyway, and it is all there is.
  expect((await call(server, 'PUT', '/api/org/settings', token, { workflow_recording: 'disabled' })).status).toBe(200)
  expect((await call(server, 'POST', '/api/agents', token, { name: 'kill-bot', description: 'd', instructions: 'i' })).status).toBe(201)
  const definition = {
    nodes: [
      { id: 'prep', type: 'agentbox.set', params: { values: { amount: '{{ $json.amount }}' } } },
      { id: 'gate', type: 'agentbox.approval', params: { message: 'Refund {{ $json.amount }}?' } },
      { id: 'out', type: 'agentbox.output', params: { value: '{{ $json }}' } },
    ],
    connections: [
      { from: 'prep', to: 'gate' },
      { from: 'gate', port: 'approved', to: 'out' },
    ],
  }
  const workflow = await call(server, 'POST', '/api/workflows/kill-bot', token, { name: 'refund', definition })
  expect(workflow.status).toBe(201)
  await call(server, 'POST', '/api/agents/kill-bot/publish', token, {})
  const run = await call(server, 'POST', `/api/workflows/kill-bot/${workflow.body.id}/run`, token, { input: { amount: 12 } })
  expect(run.body.status).toBe('waiting_human')

  await stopServer(server, 'SIGKILL')
  server = await launch()

  const waiting = await call(server, 'GET', `/api/workflows/kill-bot/runs/${run.body.run_id}`, token)
  expect(waiting.body).toMatchObject({ status: 'waiting_human', waiting: { gate_id: 'gate', message: 'Refund 12?', data: { amount: 12 } } })
  const [a, b] = await Promise.all([
    call(server, 'POST', `/api/workflows/kill-bot/runs/${run.body.run_id}/resume`, token, { decision: 'approve', edits: { amount: 10 } }),
    call(server, 'POST', `/api/workflows/kill-bot/runs/${run.body.run_id}/resume`, token, { decision: 'approve' }),
  ])
  const ok = [a, b].find((r) => r.status === 200)!
  const loser = [a, b].find((r) => r !== ok)!
  // The loser lost the compare-and-set (409), or came after the winner finished: unrecorded runs are gone then (404).
  expect([409, 404]).toContain(loser.status)
  // Either request may reach the compare-and-set first (they race by design); the winner's edits are the ones applied.
  expect(ok.body).toMatchObject({ status: 'succeeded', result: { amount: ok === a ? 10 : 12, _approval: { decision: 'approve' } } })
  // Disabled recording: once finished, nothing of the run is kept.
  expect((await call(server, 'GET', `/api/workflows/kill-bot/runs/${run.body.run_id}`, token)).status).toBe(404)
  await stopServer(server, 'SIGKILL')
}, 60_000)

test('kill -9 while a long run writes its steps: the answered run keeps every step, the interrupted one fails with what it wrote', async () => {
  let server = await launch()
  const token = (await call(server, 'POST', '/api/auth/login', undefined, { email: ADMIN.email, password: ADMIN.password })).body.access_token
  expect((await call(server, 'PUT', '/api/org/settings', token, { workflow_recording: 'full' })).status).toBe(200)
  expect((await call(server, 'POST', '/api/agents', token, { name: 'long-bot', description: 'd', instructions: 'i' })).status).toBe(201)
  const definition = {
    nodes: [
      { id: 'm', type: 'agentbox.map', params: { items: '{{ $json.xs }}' } },
      { id: 'a', type: 'agentbox.set', params: { values: { v: '{{ $item * 2 }}' } } },
      { id: 'b', type: 'agentbox.set', params: { values: { w: '{{ $json.v + 1 }}' } } },
      { id: 'c', type: 'agentbox.set', params: { values: { x: '{{ $json.w + 1 }}' } } },
      { id: 'o', type: 'agentbox.output', params: { value: '{{ length($json) }}' } },
    ],
    connections: [
      { from: 'm', port: 'loop', to: 'a' },
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'm' },
      { from: 'm', port: 'done', to: 'o' },
    ],
    settings: { max_steps: 100_000 },
  }
  const workflow = await call(server, 'POST', '/api/workflows/long-bot', token, { name: 'long', definition })
  expect(workflow.status).toBe(201)
  await call(server, 'POST', '/api/agents/long-bot/publish', token, {})
  const runPath = `/api/workflows/long-bot/${workflow.body.id}/run`
  const answered = await call(server, 'POST', runPath, token, { input: { xs: Array.from({ length: 2000 }, (_, i) => i) } })
  expect(answered.body).toMatchObject({ status: 'succeeded', result: 2000 })

  // A run of 30,002 steps (~2 s), killed once some of its rows are committed (the database is read beside the server).
  void call(server, 'POST', runPath, token, { input: { xs: Array.from({ length: 10_000 }, (_, i) => i) } }).catch(() => undefined)
  const db = await openTestReader(DATA)
  for (let i = 0; (await db.count('workflow_steps', 'run_id != ?', answered.body.run_id)) === 0; i++) {
    if (i > 2000) throw new Error('the long run wrote no step rows')
    await sleep(5)
  }
  await db.close()
  await stopServer(server, 'SIGKILL')
  server = await launch()

  const kept = await call(server, 'GET', `/api/workflows/long-bot/runs/${answered.body.run_id}?include_data=true`, token)
  expect(kept.body).toMatchObject({ status: 'succeeded', result: 2000 })
  expect(kept.body.steps).toHaveLength(6002)
  const runs = await call(server, 'GET', '/api/workflows/long-bot/runs', token)
  const interrupted = runs.body.find((r: { run_id: string }) => r.run_id !== answered.body.run_id)
  expect(interrupted).toMatchObject({ status: 'failed', error: { code: 'interrupted' } })
  const partial = await call(server, 'GET', `/api/workflows/long-bot/runs/${interrupted.run_id}?include_data=true`, token)
  expect(partial.body.steps.length).toBeGreaterThan(0)
  expect(partial.body.steps.length).toBeLessThan(30_002)
  await stopServer(server, 'SIGKILL')
}, 60_000)
