// The vault with several instances on one database and one secrets directory (SQLite or PostgreSQL): two vaults, each
// with the Leases of an instance of its own, stand for two servers. A rotation waits for one held anywhere, then
// rotates from the keyring the first left (none of its keys dropped); a value sealed on one instance after the other
// rotated uses the new key; an OAuth 2 refresh waits for one under way on another instance and uses what it stored.
// Waits are for the log line a waiting lease writes, never for time.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Leases } from '../../src/platform/cluster/index.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import type { LogFields, Logger } from '../../src/platform/log.ts'
import { parseAllowEntry } from '../../src/platform/outbound/allow-list.ts'
import { createOutboundClient } from '../../src/platform/outbound/outbound-client.ts'
import { REFRESH_MARGIN_MS, ROTATION_LEASE, SecretStore, SecretVault } from '../../src/platform/secrets/index.ts'
import { dropTestDatabase, emptyTestDatabase, testSql } from '../helpers/database.ts'

const root = mkdtempSync(join(tmpdir(), 'agentbox-rotation-'))
const clock = new ManualClock(Date.parse('2026-03-01T10:00:00.000Z'))
const handles: DatabaseHandle[] = []
const dataDirs: string[] = []
let dirs = 0

afterAll(async () => {
  for (const handle of handles) await handle.close()
  for (const dataDir of dataDirs) await dropTestDatabase(dataDir)
  rmSync(root, { recursive: true, force: true })
})

/** Lines logged, and a promise for the first line (already logged or to come) that matches. */
class WatchedLog implements Logger {
  readonly lines: ({ msg: string } & LogFields)[] = []
  #waiters: { match: (line: { msg: string } & LogFields) => boolean; resolve: () => void }[] = []
  #push = (msg: string, fields?: LogFields) => {
    const line = { msg, ...fields }
    this.lines.push(line)
    this.#waiters = this.#waiters.filter((waiter) => !(waiter.match(line) && (waiter.resolve(), true)))
  }
  debug = this.#push
  info = this.#push
  warn = this.#push
  error = this.#push
  isEnabled = () => true

  seen(match: (line: { msg: string } & LogFields) => boolean): Promise<void> {
    if (this.lines.some(match)) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push({ match, resolve }))
  }
}

const KIND = { name: 'test_token', label: 'test tokens', types: ['bearer', 'oauth2'] as const }

/** One database and one secrets directory; `instance(id)` is a server's vault with Leases of its own. */
async function sharedSetup() {
  const dataDir = join(root, `data-${++dirs}`)
  mkdirSync(dataDir, { recursive: true })
  dataDirs.push(dataDir)
  const database = openDatabase(await emptyTestDatabase(dataDir))
  handles.push(database)
  await migrateToLatest(database, join(dataDir, 'backups'), clock.now())
  const outbound = createOutboundClient({ operatorAllow: [parseAllowEntry('127.0.0.1')], adminAllow: async () => [] })
  const leasesOf = (instanceId: string, logger: Logger = new WatchedLog()) => new Leases({ db: database.db, clock, logger, instanceId, soleInstance: false })
  const instance = (id: string) => {
    const log = new WatchedLog()
    // Each server reads the shared directory through a store of its own, as separate processes would.
    const vault = new SecretVault({ db: database.db, files: new SecretStore(dataDir), clock, fetch: outbound.fetch, leases: leasesOf(id, log) })
    return { vault, log, tokens: vault.namespace(KIND) }
  }
  const keyring = () => JSON.parse(readFileSync(join(dataDir, 'secrets', 'credentials.key'), 'utf8')) as { current: string; keys: { kid: string }[] }
  return { database, sql: testSql(database.db, database.kind), leasesOf, instance, keyring }
}

describe('key rotation across instances', () => {
  test('rotations on two instances while a third holds the lease wait, then run one after the other: no key is lost, every value opens everywhere', async () => {
    const { database, sql, leasesOf, instance, keyring } = await sharedSetup()
    const [a, b] = [instance('a'), instance('b')]
    for (let i = 0; i < 30; i++) await a.tokens.put(database.db, { subject: `repo-${i}`, owner: 'org' }, { type: 'bearer', token: `t-${i}` }, 'admin')
    // Both have read the keyring (their copies are warm), as running servers have.
    expect(await b.tokens.open({ subject: 'repo-0', owner: 'org' })).toEqual({ type: 'bearer', token: 't-0' })
    const original = keyring().current

    const held = (await leasesOf('c').tryTake(ROTATION_LEASE))!
    expect(held).not.toBeNull()
    const onA = a.vault.rotateKey()
    const onB = b.vault.rotateKey()
    const waiting = (line: { msg: string } & LogFields) =>
      line.msg === 'waiting for a lease another instance holds' && line.lease === ROTATION_LEASE && line.holder_instance === 'c'
    await a.log.seen(waiting)
    await b.log.seen(waiting)
    // Neither has touched the keyring while the lease is held elsewhere.
    expect(keyring()).toMatchObject({ current: original, keys: [{ kid: original }] })
    await held.release()
    const [fromA, fromB] = [await onA, await onB]
    const [first, second] = fromA.retired_key_ids.includes(original) ? [fromA, fromB] : [fromB, fromA]
    expect(first).toMatchObject({ reencrypted: 30, unreadable: 0, retired_key_ids: [original] })
    // The second read the keyring the first wrote: it moved the first's values on and retired the first's key.
    expect(second).toMatchObject({ reencrypted: 30, unreadable: 0, retired_key_ids: [first.key_id] })
    expect(keyring()).toMatchObject({ current: second.key_id, keys: [{ kid: second.key_id }] })
    const kids = new Set((await sql.all<{ sealed: string }>('SELECT sealed FROM sealed_secrets')).map((row) => row.sealed.split(':')[1]))
    expect([...kids]).toEqual([second.key_id])
    for (const side of [a, b, instance('restarted')]) {
      for (const i of [0, 17, 29]) expect(await side.tokens.open({ subject: `repo-${i}`, owner: 'org' })).toEqual({ type: 'bearer', token: `t-${i}` })
    }
    expect(await sql.get('SELECT key FROM leases WHERE key = ?', ROTATION_LEASE)).toBeNull()
  })

  test('a value sealed on one instance after another rotated uses the new key, and opens on both', async () => {
    const { database, instance, keyring } = await sharedSetup()
    const [a, b] = [instance('a'), instance('b')]
    await a.tokens.put(database.db, { subject: 'before', owner: 'org' }, { type: 'bearer', token: 'old' }, 'admin')
    expect(await b.tokens.open({ subject: 'before', owner: 'org' })).toEqual({ type: 'bearer', token: 'old' })
    const rotated = await a.vault.rotateKey()
    expect(keyring().keys.map((entry) => entry.kid)).toEqual([rotated.key_id])
    // B's copy of the keyring predates the rotation; what it seals now must not name the key A retired.
    await b.tokens.put(database.db, { subject: 'after', owner: 'org' }, { type: 'bearer', token: 'new' }, 'admin')
    expect(b.vault.currentKeyId).toBe(rotated.key_id)
    for (const side of [a, b, instance('restarted')]) {
      expect(await side.tokens.open({ subject: 'after', owner: 'org' })).toEqual({ type: 'bearer', token: 'new' })
      expect(await side.tokens.open({ subject: 'before', owner: 'org' })).toEqual({ type: 'bearer', token: 'old' })
    }
  })
})

describe('OAuth 2 refresh across instances', () => {
  test('a refresh waits while another instance refreshes the same secret, then uses the tokens it stored: one refresh token is never sent twice', async () => {
    const { database, leasesOf, instance } = await sharedSetup()
    const [a, b] = [instance('a'), instance('b')]
    const secret = { subject: 'server-1', owner: 'user-1' }
    const tokenRequests: string[] = []
    const tokenServer = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (request) => {
        tokenRequests.push(await request.text())
        return Response.json({ access_token: 'from-the-endpoint', token_type: 'bearer', expires_in: 3600 })
      },
    })
    try {
      await a.tokens.put(
        database.db,
        secret,
        {
          type: 'oauth2',
          access_token: 'access-0',
          refresh_token: 'refresh-0',
          expires_at: new Date(clock.now() + REFRESH_MARGIN_MS - 1000).toISOString(),
          token_endpoint: `http://127.0.0.1:${tokenServer.port}/token`,
          client_id: 'agentbox',
        },
        'user-1',
      )
      // Instance C is refreshing this secret (it holds its lease).
      const held = (await leasesOf('c').tryTake(`secret_refresh:${a.tokens.associatedData(secret)}`))!
      expect(held).not.toBeNull()
      const opening = b.tokens.openForUse(secret)
      await b.log.seen((line) => line.msg === 'waiting for a lease another instance holds' && String(line.lease).startsWith('secret_refresh:'))
      // C stores what its token endpoint answered (a rotated refresh token), then lets go.
      const refreshed = {
        type: 'oauth2' as const,
        access_token: 'access-1',
        refresh_token: 'refresh-1',
        expires_at: new Date(clock.now() + 3_600_000).toISOString(),
        token_endpoint: `http://127.0.0.1:${tokenServer.port}/token`,
        client_id: 'agentbox',
      }
      await a.tokens.put(database.db, secret, refreshed, 'user-1')
      await held.release()
      expect(await opening).toEqual(refreshed)
      // B never sent refresh-0 again (a rotating server would have refused it, one detecting reuse revoked both).
      expect(tokenRequests).toEqual([])
    } finally {
      tokenServer.stop(true)
    }
  })
})
