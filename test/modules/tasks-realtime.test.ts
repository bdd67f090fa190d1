// One real-time check, on the system clock: a fast cron task fires by itself, on its slots, never overlapping.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.ts'
import { createServer, type AgentboxServer } from '../../src/server.ts'
import { ADMIN, CapturedLog } from '../helpers/server.ts'
import { issueTestLicense } from '../helpers/license.ts'

let server: AgentboxServer
let dataDir: string
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'agentbox-realtime-'))
  server = await createServer(loadConfig(['serve'], { AGENTBOX_DATA_DIR: dataDir, AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_TASK_MIN_INTERVAL_S: '1' }), {
    logger: new CapturedLog(),
  })
})
afterAll(async () => {
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

async function call(method: string, path: string, token: string, body?: unknown) {
  const response = await server.app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  )
  return { status: response.status, body: (await response.json()) as any }
}

test('a cron task every second fires on its own timer, once per slot, with no overlap', async () => {
  const setup = await call('POST', '/api/tenant/setup', server.setupToken!, {
    license_token: issueTestLicense({ nowMs: Date.now() }),
    admin_email: ADMIN.email,
    admin_name: ADMIN.name,
    admin_password: ADMIN.password,
  })
  const token = setup.body.tenant_org_token as string
  const task = await call('POST', '/api/task', token, { name: 'tick', prompt: 'ping', schedule: { frequency: 'cron', cron: '* * * * * *' } })
  expect(task.status).toBe(201)

  let runs: any[] = []
  const deadline = Date.now() + 5_000
  while (Date.now() < deadline) {
    runs = (await call('GET', `/api/task/${task.body.id}/runs`, token)).body
    if (runs.filter((r) => r.status === 'succeeded').length >= 3) break
    await Bun.sleep(100)
  }
  await call('PATCH', `/api/task/${task.body.id}`, token, { state: 'disabled' })
  runs = (await call('GET', `/api/task/${task.body.id}/runs`, token)).body.reverse()

  expect(runs.length).toBeGreaterThanOrEqual(3)
  const slots = runs.map((r) => Date.parse(r.scheduled_for))
  expect(new Set(slots).size).toBe(slots.length)
  for (const [i, run] of runs.entries()) {
    expect(run.trigger).toBe('schedule')
    expect(slots[i]! % 1000).toBe(0)
    const lag = Date.parse(run.started_at) - slots[i]!
    expect(lag).toBeGreaterThanOrEqual(0)
    expect(lag).toBeLessThan(1000)
    if (i > 0) expect(Date.parse(run.started_at)).toBeGreaterThanOrEqual(Date.parse(runs[i - 1].finished_at))
  }
}, 15_000)
