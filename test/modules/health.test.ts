// Health (CONTRACT §4): the public report, liveness and readiness.
import { closeReadConnection, TEST_DATABASE_KIND } from '../helpers/database.ts'
import { afterEach, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
afterEach(() => t?.close())

describe('GET /api/health', () => {
  test('answers the contract shape, publicly, as application/json with no personal data', async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision()
    t.clock.advance(5000)
    const res = await t.request('GET', '/api/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(res.body).toEqual({
      status: 'pass',
      version: expect.any(String),
      uptime_s: 5,
      instance_id: t.server.cluster.instanceId,
      provisioned: true,
      license: { status: 'valid', mode: 'test', expires_at: expect.stringMatching(/Z$/), evaluation: false },
      checks: {
        database: { status: 'pass', kind: TEST_DATABASE_KIND, latency_ms: expect.any(Number) },
        scheduler: { status: 'pass', jobs: 0, leader: true },
        disk: { status: 'pass', free_bytes: expect.any(Number) },
        proxy: { status: 'pass', untrusted_forwarded_requests: 0, last_seen_at: null, detail: null },
      },
    })
    const text = JSON.stringify(res.body)
    expect(text).not.toContain('admin@example.com')
    expect(text).not.toContain(t.dataDir)
    expect(text).not.toContain(adminToken)
  })

  test('an unprovisioned instance reports provisioned false and licence none', async () => {
    t = await startTestServer()
    const res = await t.request('GET', '/api/health')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'pass', provisioned: false, license: { status: 'none', mode: 'test', expires_at: null, evaluation: false } })
  })

  test('the database probe does not wait behind a long write transaction', async () => {
    t = await startTestServer()
    await t.provision()
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const transaction = t.server.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ name: 'busy' }).execute()
      await held
    })
    await Bun.sleep(10)
    const started = performance.now()
    const res = await t.request('GET', '/api/health')
    expect(res.body.checks.database.status).toBe('pass')
    expect(performance.now() - started).toBeLessThan(1000)
    release()
    await transaction
  })

  test('answers 503 fail when the database cannot answer', async () => {
    t = await startTestServer()
    await closeReadConnection(t.server.database)
    const res = await t.request('GET', '/api/health')
    expect(res.status).toBe(503)
    expect(res.body.status).toBe('fail')
    expect(res.body.checks.database).toEqual({ status: 'fail', kind: TEST_DATABASE_KIND, latency_ms: null })
    expect((await t.request('GET', '/api/health/ready')).status).toBe(503)
    expect((await t.request('GET', '/api/health/live')).status).toBe(200)
  })
})

describe('liveness and readiness', () => {
  test('live and ready answer {"status":"pass"} on a running instance, provisioned or not', async () => {
    t = await startTestServer()
    expect((await t.request('GET', '/api/health/live')).body).toEqual({ status: 'pass' })
    expect((await t.request('GET', '/api/health/ready')).body).toEqual({ status: 'pass' })
    await t.provision()
    expect((await t.request('GET', '/api/health/ready')).status).toBe(200)
  })
})

describe('probe cache (issue 14, item 25)', () => {
  test('the database probe is reused for a second, then run again: a failure shows once the second has passed', async () => {
    t = await startTestServer()
    expect((await t.request('GET', '/api/health')).body.checks.database.status).toBe('pass')
    await closeReadConnection(t.server.database)
    expect((await t.request('GET', '/api/health')).status).toBe(200)
    expect((await t.request('GET', '/api/health/ready')).status).toBe(200)
    t.clock.advance(999)
    expect((await t.request('GET', '/api/health')).status).toBe(200)
    t.clock.advance(1)
    const res = await t.request('GET', '/api/health')
    expect(res.status).toBe(503)
    expect(res.body.checks.database).toEqual({ status: 'fail', kind: TEST_DATABASE_KIND, latency_ms: null })
    expect((await t.request('GET', '/api/health/ready')).status).toBe(503)
  })
})

describe('the proxy check (issue 25, item 8)', () => {
  test('warns, with a clear detail and without the addresses, when a request carried X-Forwarded-For from an untrusted peer', async () => {
    t = await startTestServer({ env: { AGENTBOX_TRUSTED_PROXIES: '10.0.0.0/8' } })
    await t.request('GET', '/api/health/live', { clientAddress: '10.1.1.1', headers: { 'x-forwarded-for': '203.0.113.1' } })
    expect((await t.request('GET', '/api/health')).body.checks.proxy.status).toBe('pass')
    await t.request('GET', '/api/health/live', { clientAddress: '192.0.2.7', headers: { 'x-forwarded-for': '203.0.113.1' } })
    const res = await t.request('GET', '/api/health')
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('warn')
    expect(res.body.checks.proxy).toEqual({
      status: 'warn',
      untrusted_forwarded_requests: 1,
      last_seen_at: new Date(t.clock.now()).toISOString(),
      detail: expect.stringMatching(/not in AGENTBOX_TRUSTED_PROXIES/),
    })
    expect(JSON.stringify(res.body)).not.toMatch(/192\.0\.2\.7|203\.0\.113\.1/)
    t.clock.advance(60 * 60 * 1000 - 1)
    expect((await t.request('GET', '/api/health')).body.checks.proxy.status).toBe('warn')
    t.clock.advance(1)
    expect((await t.request('GET', '/api/health')).body).toMatchObject({ status: 'pass', checks: { proxy: { status: 'pass', detail: null } } })
  })
})
