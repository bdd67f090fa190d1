// Trusted proxies and the sign-in throttle (issue 25, item 8): behind a proxy listed in AGENTBOX_TRUSTED_PROXIES the
// throttle counts the forwarded client, never an address a client wrote itself; from any other peer X-Forwarded-For is
// ignored and health warns. A flood of failures for unknown e-mails from one address locks that address (the rule) but
// not a browser that signed in there before (its device cookie), and not the clients behind a trusted proxy.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { ClientAddresses, throttleKey } from '../../src/platform/http/client-address.ts'
import { CapturedLog, ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

/** A server listening on a real loopback socket: the peer of every request is 127.0.0.1. */
async function listening(env: Record<string, string> = {}): Promise<{ t: TestServer; base: string }> {
  const t = await startTestServer({ env: { AGENTBOX_PORT: '0', AGENTBOX_HOST: '127.0.0.1', ...env } })
  await t.provision()
  return { t, base: `http://127.0.0.1:${t.server.start()}` }
}

function signIn(base: string, email: string, password: string, forwardedFor?: string): Promise<Response> {
  return fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwardedFor !== undefined && { 'x-forwarded-for': forwardedFor }) },
    body: JSON.stringify({ email, password }),
  })
}

describe('behind a trusted proxy (real sockets; the proxy is 127.0.0.1)', () => {
  let t: TestServer
  let base: string
  beforeAll(async () => {
    ;({ t, base } = await listening({ AGENTBOX_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' }))
  })
  afterAll(() => t.close())

  test('110 failed sign-ins for unknown e-mails from one client lock that client only; the admin behind the same proxy signs in', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 110; i++) statuses.push((await signIn(base, `nobody${i}@example.com`, 'wrong', '203.0.113.66')).status)
    expect(statuses.slice(0, 100)).toEqual(Array(100).fill(401))
    expect(statuses.slice(100)).toEqual(Array(10).fill(429))
    expect((await signIn(base, ADMIN.email, ADMIN.password, '198.51.100.7')).status).toBe(200)
    // The rule still holds for the flooding client itself.
    const locked = await signIn(base, ADMIN.email, ADMIN.password, '203.0.113.66')
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0)
    // Forwarded by a trusted proxy: nothing for health to warn about.
    expect((await (await fetch(`${base}/api/health`)).json()).checks.proxy.status).toBe('pass')
  }, 60_000)

  test('a client cannot choose its address: entries it wrote left of what the proxies appended are not read', async () => {
    for (let i = 0; i < 10; i++) expect((await signIn(base, ADMIN.email, `wrong ${i}`, '203.0.113.80')).status).toBe(401)
    // A fake address in front, or a second trusted proxy (10.0.0.0/8) on the way: the client is still 203.0.113.80.
    expect((await signIn(base, ADMIN.email, ADMIN.password, '198.51.100.99, 203.0.113.80')).status).toBe(429)
    expect((await signIn(base, ADMIN.email, ADMIN.password, '203.0.113.80, 10.1.2.3')).status).toBe(429)
    expect((await signIn(base, ADMIN.email, ADMIN.password, '203.0.113.81, 10.1.2.3')).status).toBe(200)
  })

  test('IPv6 clients are counted by their /64: changing the last half of the address does not reset the count', async () => {
    for (let i = 0; i < 10; i++) expect((await signIn(base, ADMIN.email, 'wrong', `2001:db8:1:2::${i + 1}`)).status).toBe(401)
    expect((await signIn(base, ADMIN.email, ADMIN.password, '2001:db8:1:2:ffff::1')).status).toBe(429)
    expect((await signIn(base, ADMIN.email, ADMIN.password, '2001:db8:1:3::1')).status).toBe(200)
  })
})

describe('X-Forwarded-For from a peer that is not trusted (real sockets, no AGENTBOX_TRUSTED_PROXIES)', () => {
  test('is ignored by the throttle, makes health warn with a clear check for an hour, and the peer is logged once', async () => {
    const { t, base } = await listening()
    try {
      for (let i = 0; i < 10; i++) expect((await signIn(base, ADMIN.email, 'wrong', `198.51.100.${i}`)).status).toBe(401)
      expect((await signIn(base, ADMIN.email, ADMIN.password, '198.51.100.200')).status).toBe(429)
      const health = await fetch(`${base}/api/health`)
      expect(health.status).toBe(200)
      const report = await health.json()
      expect(report.status).toBe('warn')
      expect(report.checks.proxy).toEqual({
        status: 'warn',
        untrusted_forwarded_requests: 11,
        last_seen_at: new Date(t.clock.now()).toISOString(),
        detail: expect.stringContaining('AGENTBOX_TRUSTED_PROXIES'),
      })
      expect(JSON.stringify(report)).not.toContain('198.51.100')
      const warned = t.log.lines.filter((line) => String(line.msg).startsWith('X-Forwarded-For ignored'))
      expect(warned).toEqual([expect.objectContaining({ level: 'warn', peer: '127.0.0.1' })])
      t.clock.advance(60 * 60 * 1000)
      const later = await (await fetch(`${base}/api/health`)).json()
      expect(later.checks.proxy).toMatchObject({ status: 'pass', untrusted_forwarded_requests: 11, detail: null })
      expect(later.status).toBe('pass')
    } finally {
      await t.close()
    }
  })
})

describe('a known browser (device cookie) under a flood from its own address', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startTestServer()
    const { adminToken } = await t.provision()
    await t.createUser(adminToken, { email: 'm@example.com' })
  })
  afterAll(() => t.close())

  const office = '192.0.2.10'
  const login = (email: string, password: string, device?: string, clientAddress = office) =>
    t.request('POST', '/api/auth/login', { body: { email, password }, clientAddress, headers: device ? { cookie: `agentbox_device=${device}` } : {} })

  test('the address is locked for everyone else, but a browser that signed in there before still gets in', async () => {
    const first = await t.request('POST', '/api/auth/login', {
      body: { email: ADMIN.email, password: ADMIN.password },
      clientAddress: office,
      headers: { origin: 'http://localhost' },
    })
    const device = first.headers
      .getSetCookie()
      .find((line) => line.startsWith('agentbox_device='))!
      .split(';')[0]!
      .slice('agentbox_device='.length)
    for (let i = 0; i < 110; i++) await login(`nobody${i}@example.com`, 'wrong')
    expect((await login(ADMIN.email, ADMIN.password)).status).toBe(429)
    expect((await login(ADMIN.email, ADMIN.password, device)).status).toBe(200)
    // The cookie vouches for that account only, and only as this instance minted it.
    expect((await login('m@example.com', 'a long enough password', device)).status).toBe(429)
    const forged = `${device.split('.')[0]}.${'A'.repeat(43)}`
    expect((await login(ADMIN.email, ADMIN.password, forged)).status).toBe(429)
    // Its failures count on their own: after 10 the browser is judged by its (locked) address like any other.
    for (let i = 0; i < 10; i++) expect((await login(ADMIN.email, `wrong ${i}`, device)).status).toBe(401)
    expect((await login(ADMIN.email, ADMIN.password, device)).status).toBe(429)
    // Elsewhere the account is only slowed, never locked.
    expect((await login(ADMIN.email, ADMIN.password, undefined, '198.51.100.20')).status).toBe(200)
  }, 60_000)
})

describe('who the client is (platform/http/client-address.ts)', () => {
  const trusted = (list: string) => new ClientAddresses(loadConfig(['serve'], { AGENTBOX_TRUSTED_PROXIES: list }).trustedProxies, new ManualClock(0))

  test('the nearest address that is not a trusted proxy, read from the right', () => {
    const addresses = trusted('10.0.0.0/8, ::1, 2001:db8:ffff::/48')
    expect(addresses.ofForwarded('10.0.0.1', '203.0.113.5')).toBe('203.0.113.5')
    expect(addresses.ofForwarded('10.0.0.1', '1.1.1.1, 203.0.113.5, 10.9.9.9, 10.8.8.8')).toBe('203.0.113.5')
    expect(addresses.ofForwarded('::1', '2001:DB8::0001')).toBe('2001:db8::1')
    expect(addresses.ofForwarded('::ffff:10.0.0.1', '203.0.113.5')).toBe('203.0.113.5')
    expect(addresses.ofForwarded('2001:db8:ffff::7', '[2001:db8::5]:4711')).toBe('2001:db8::5')
    expect(addresses.ofForwarded('10.0.0.1', '203.0.113.5:4711')).toBe('203.0.113.5')
    expect(addresses.ofForwarded('10.0.0.1', '::ffff:203.0.113.5')).toBe('203.0.113.5')
    // Every hop trusted: the leftmost. An entry that cannot be read ends the walk at the last one that could.
    expect(addresses.ofForwarded('10.0.0.1', '10.2.2.2, 10.3.3.3')).toBe('10.2.2.2')
    expect(addresses.ofForwarded('10.0.0.1', '203.0.113.5, unknown, 10.3.3.3')).toBe('10.3.3.3')
    expect(addresses.ofForwarded('10.0.0.1', 'garbage')).toBe('10.0.0.1')
    expect(addresses.ofForwarded('10.0.0.1', '')).toBe('10.0.0.1')
    expect(addresses.untrustedForwarding()).toEqual({ requests: 0, lastSeenAt: null })
  })

  test('from an untrusted peer the header is ignored and noticed; no X-Forwarded-For: the peer', () => {
    const addresses = trusted('10.0.0.0/8')
    expect(addresses.ofForwarded('192.0.2.1', '10.0.0.5')).toBe('192.0.2.1')
    expect(addresses.ofForwarded(undefined, '10.0.0.5')).toBe('unknown')
    expect(addresses.untrustedForwarding()).toEqual({ requests: 2, lastSeenAt: 0 })
    expect(addresses.ofPeer('::ffff:192.0.2.1')).toBe('192.0.2.1')
    expect(addresses.ofPeer(undefined)).toBe('unknown')
  })

  test('a chain longer than 32 trusted hops is not walked further', () => {
    const addresses = trusted('10.0.0.0/8')
    const hops = Array.from({ length: 40 }, (_, i) => `10.0.${i}.1`)
    expect(addresses.ofForwarded('10.0.0.1', ['203.0.113.9', ...hops].join(', '))).toBe('10.0.8.1')
  })

  test('throttle keys: IPv4 as is, IPv6 by its /64', () => {
    expect(throttleKey('203.0.113.5')).toBe('203.0.113.5')
    expect(throttleKey('::ffff:203.0.113.5')).toBe('203.0.113.5')
    expect(throttleKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(throttleKey('unknown')).toBe('unknown')
  })

  test('AGENTBOX_TRUSTED_PROXIES: addresses and CIDRs; host names, bad CIDRs and host bits are refused at start', () => {
    expect(loadConfig(['serve'], {}).trustedProxies).toEqual([])
    expect(loadConfig(['serve'], { AGENTBOX_TRUSTED_PROXIES: ' 127.0.0.1 , ::ffff:10.0.0.0/104,fd00::/8,' }).trustedProxies).toHaveLength(3)
    for (const [value, message] of [
      ['proxy.internal', 'host names are not accepted'],
      ['10.0.0.0/33', 'is not a CIDR'],
      ['10.0.0.1/8', 'did you mean 10.0.0.0/8?'],
    ] as const) {
      expect(() => loadConfig(['serve'], { AGENTBOX_TRUSTED_PROXIES: value })).toThrow(ConfigError)
      expect(() => loadConfig(['serve'], { AGENTBOX_TRUSTED_PROXIES: value })).toThrow(message)
    }
  })

  test('untrusted peers are logged once each', () => {
    const log = new CapturedLog()
    const addresses = new ClientAddresses([], new ManualClock(0), log)
    for (let i = 0; i < 3; i++) addresses.ofForwarded('192.0.2.1', '1.2.3.4')
    addresses.ofForwarded('192.0.2.2', '1.2.3.4')
    expect(log.lines.map((line) => line.peer)).toEqual(['192.0.2.1', '192.0.2.2'])
  })
})
