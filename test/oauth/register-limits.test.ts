// Anonymous registration is bounded (issue 25, item 9): 11,000 registrations in 14 s used to fill the 10,000 cap and
// turn every new MCP client away for a day. Now one address makes at most 20 an hour (429 with Retry-After), and a
// registration never used within an hour (no grant, no pending authorization) is removed, by housekeeping and at the
// cap, so a flood keeps new clients out for an hour at most. Time is the injected clock.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { MAX_REGISTERED_CLIENTS, REGISTRATIONS_PER_ADDRESS_PER_HOUR, UNUSED_REGISTRATION_TTL_MS } from '../../src/modules/oauth/clients.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { authorizeParams, authorizeUrl, connect, pkce, REDIRECT, startAuthorization } from './helpers.ts'

let t: TestServer
let adminToken: string
beforeEach(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
})
afterEach(() => t.close())

const register = (clientAddress: string, headers: Record<string, string> = {}) =>
  t.request('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT], client_name: 'Flood' }, clientAddress, headers })
const clientCount = async () =>
  Number(
    (
      await t.server.database.db
        .selectFrom('oauth_clients')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('per client address', () => {
  test('20 registrations an hour; the 21st is 429 with Retry-After (readable by browser clients); other addresses go on', async () => {
    for (let i = 0; i < REGISTRATIONS_PER_ADDRESS_PER_HOUR; i++) {
      expect((await register('203.0.113.5')).status).toBe(201)
      t.clock.advance(60_000)
    }
    const limited = await register('203.0.113.5')
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('Too many client registrations') })
    // The oldest of the 20 was made 20 minutes ago: a slot frees in 40 minutes.
    expect(Number(limited.headers.get('retry-after'))).toBe(40 * 60)
    expect(limited.headers.get('access-control-allow-origin')).toBe('*')
    expect(limited.headers.get('access-control-expose-headers')).toBe('retry-after')
    expect(limited.headers.get('cache-control')).toBe('no-store')
    expect((await register('203.0.113.6')).status).toBe(201)
    t.clock.advance(40 * 60_000)
    expect((await register('203.0.113.5')).status).toBe(201)
  })

  test('an IPv6 client is counted by its /64; refused registrations do not count', async () => {
    for (let i = 0; i < 3; i++)
      expect((await t.request('POST', '/oauth/register', { body: { redirect_uris: ['http://bad.example/cb'] }, clientAddress: '2001:db8:7::1' })).status).toBe(
        400,
      )
    for (let i = 0; i < REGISTRATIONS_PER_ADDRESS_PER_HOUR; i++) expect((await register(`2001:db8:7::${i + 1}`)).status).toBe(201)
    expect((await register('2001:db8:7:0:ffff::1')).status).toBe(429)
    expect((await register('2001:db8:7:1::1')).status).toBe(201)
  })

  test('behind a trusted proxy each forwarded client has its own count', async () => {
    const proxied = await startTestServer({ env: { AGENTBOX_TRUSTED_PROXIES: '10.0.0.1' } })
    try {
      const via = (client: string) =>
        proxied.request('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT] }, clientAddress: '10.0.0.1', headers: { 'x-forwarded-for': client } })
      for (let i = 0; i < REGISTRATIONS_PER_ADDRESS_PER_HOUR; i++) expect((await via('198.51.100.1')).status).toBe(201)
      expect((await via('198.51.100.1')).status).toBe(429)
      expect((await via('198.51.100.2')).status).toBe(201)
    } finally {
      await proxied.close()
    }
  })

  test('parallel registrations from one address cannot all pass the count', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => register('203.0.113.9')))
    expect(answers.filter((res) => res.status === 201)).toHaveLength(REGISTRATIONS_PER_ADDRESS_PER_HOUR)
    expect(answers.filter((res) => res.status === 429)).toHaveLength(50 - REGISTRATIONS_PER_ADDRESS_PER_HOUR)
  })
})

describe('registrations never used within an hour', () => {
  test('are removed by housekeeping; a client with a grant or a pending authorization stays', async () => {
    const unused = (await register('203.0.113.20')).body.client_id
    const granted = await connect(t, adminToken)
    const pending = (await register('203.0.113.21')).body.client_id
    const started = t.clock.now()
    t.clock.advance(UNUSED_REGISTRATION_TTL_MS - 5 * 60_000)
    await startAuthorization(t, authorizeParams(pending, pkce().challenge))
    t.clock.set(started + UNUSED_REGISTRATION_TTL_MS - 1)
    await t.server.modules.oauth.service.prune()
    expect(await clientCount()).toBe(3)
    t.clock.set(started + UNUSED_REGISTRATION_TTL_MS + 1)
    await t.server.modules.oauth.service.prune()
    const left = await t.server.database.db.selectFrom('oauth_clients').select(['client_id', 'registered_from']).orderBy('client_id').execute()
    expect(left.map((row) => row.client_id).sort()).toEqual([granted.clientId, pending].sort())
    // The address is kept only while it counts.
    expect(left.map((row) => row.registered_from)).toEqual([null, null])
    // The removed client is unknown now: it registers again.
    const res = await t.request('GET', authorizeUrl(authorizeParams(unused, pkce().challenge)))
    expect(res.status).toBe(400)
    expect(res.body).toContain('Unknown client_id')
    // Once the pending request expired unused, that client goes too.
    t.clock.advance(10 * 60_000)
    await t.server.modules.oauth.service.prune()
    expect(await clientCount()).toBe(1)
  })

  test('a flood that fills the cap keeps new clients out for an hour at most: at the cap, unused ones over an hour old make room', async () => {
    const db = t.server.database.db
    const floodAt = t.clock.now()
    const rows = Array.from({ length: MAX_REGISTERED_CLIENTS }, (_, i) => ({
      client_id: `abx_client_flood_${i}`,
      kind: 'registered' as const,
      client_name: null,
      client_uri: null,
      logo_uri: null,
      redirect_uris: JSON.stringify([REDIRECT]),
      grant_types: '["authorization_code"]',
      created_at: new Date(floodAt + Math.floor(i / 1000)).toISOString(),
      fetched_at: null,
      registered_from: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
    }))
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += 500)
        await trx
          .insertInto('oauth_clients')
          .values(rows.slice(i, i + 500))
          .execute()
    })
    const full = await register('198.51.100.50')
    expect(full.status).toBe(503)
    expect(full.body.error).toBe('temporarily_unavailable')
    t.clock.set(floodAt + UNUSED_REGISTRATION_TTL_MS + 1_000)
    const room = await register('198.51.100.50')
    expect(room.status).toBe(201)
    expect(await clientCount()).toBe(MAX_REGISTERED_CLIENTS - 1000 + 1)
    // Housekeeping removes the rest of the flood, in batches.
    await t.server.modules.oauth.service.prune()
    expect(await clientCount()).toBe(1)
  }, 30_000)
})
