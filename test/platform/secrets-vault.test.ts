// The secrets subsystem (src/platform/secrets): namespaces declared on one vault, values stored through them into one
// table, sealed for their namespace, subject, owner and name; key rotation over the whole table; OAuth 2 refresh in
// one place, shared by concurrent callers, through the guarded outbound client, failing with typed errors. Real
// SQLite (every migration), a real keyring and a real token endpoint on 127.0.0.1.
import { dropTestDatabase, emptyTestDatabase, testSql } from '../helpers/database.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ManualClock } from '../../src/platform/clock.ts'
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts'
import { migrateToLatest } from '../../src/platform/db/migrate.ts'
import { parseAllowEntry } from '../../src/platform/outbound/allow-list.ts'
import { createOutboundClient } from '../../src/platform/outbound/outbound-client.ts'
import {
  authorizationHeader,
  bearerToken,
  buildCredential,
  type Credential,
  CredentialRefreshError,
  credentialIssues,
  type OAuth2Credential,
  REFRESH_MARGIN_MS,
  SecretBoxError,
  SecretStore,
  secretValues,
  SecretVault,
} from '../../src/platform/secrets/index.ts'
import { associatedDataOf } from '../../src/platform/secrets/namespace.ts'
import { parseCredential } from '../../src/platform/secrets/credential.ts'

const root = mkdtempSync(join(tmpdir(), 'agentbox-vault-'))
const clock = new ManualClock(Date.parse('2026-03-01T10:00:00.000Z'))
const handles: DatabaseHandle[] = []
const dataDirs: string[] = []
let dirs = 0

/** A token endpoint whose next answers the test decides; it records every request. */
const tokenRequests: { form: URLSearchParams; authorization: string | null }[] = []
let answer: (form: URLSearchParams) => Response = () => Response.json({})
let tokenServer: ReturnType<typeof Bun.serve>
let tokenUrl: string

beforeAll(() => {
  tokenServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const form = new URLSearchParams(await request.text())
      tokenRequests.push({ form, authorization: request.headers.get('authorization') })
      return answer(form)
    },
  })
  tokenUrl = `http://127.0.0.1:${tokenServer.port}/token`
})
afterAll(async () => {
  tokenServer.stop(true)
  for (const handle of handles) await handle.close()
  for (const dataDir of dataDirs) await dropTestDatabase(dataDir)
  rmSync(root, { recursive: true, force: true })
})

/** A vault on a fresh data dir, with 127.0.0.1 allowed unless `allowLoopback` is false. */
async function freshVault(allowLoopback = true) {
  const dataDir = join(root, `data-${++dirs}`)
  const files = new SecretStore(dataDir)
  mkdirSync(dataDir, { recursive: true })
  dataDirs.push(dataDir)
  const database = openDatabase(await emptyTestDatabase(dataDir))
  handles.push(database)
  await migrateToLatest(database, join(dataDir, 'backups'), clock.now())
  const outbound = createOutboundClient({ operatorAllow: allowLoopback ? [parseAllowEntry('127.0.0.1')] : [], adminAllow: async () => [] })
  const make = () => new SecretVault({ db: database.db, files, clock, fetch: outbound.fetch })
  return { dataDir, database, sql: testSql(database.db, database.kind), vault: make(), make }
}

const KIND = { name: 'test_token', label: 'test tokens', types: ['bearer', 'oauth2'] as const }
const ref = { subject: 'repo-1', owner: 'user-1' }

describe('namespaces', () => {
  test('are declared once, with a stable name and at least one credential type', async () => {
    const { vault } = await freshVault()
    vault.namespace(KIND)
    expect(() => vault.namespace(KIND)).toThrow('already declared')
    expect(() => vault.namespace({ ...KIND, name: 'Bad-Name' })).toThrow(RangeError)
    expect(() => vault.namespace({ ...KIND, name: 'empty', types: [] })).toThrow(RangeError)
    expect(vault.namespaces.map((definition) => definition.name)).toEqual(['test_token'])
  })

  test('store, open, list and clear; another type than declared is refused', async () => {
    const { vault, database } = await freshVault()
    const tokens = vault.namespace(KIND)
    expect(await tokens.open(ref)).toBeNull()
    await tokens.put(database.db, ref, { type: 'bearer', token: 'ghp_secret_1' }, 'user-1')
    await tokens.put(database.db, { ...ref, owner: 'org' }, { type: 'bearer', token: 'org-secret' }, 'admin')
    expect(await tokens.open(ref)).toEqual({ type: 'bearer', token: 'ghp_secret_1' })
    expect([...(await tokens.status('repo-1', 'user-1')).values()]).toEqual([{ name: '', updated_at: '2026-03-01T10:00:00.000Z', problem: null }])
    expect(await tokens.subjectsOf('user-1')).toEqual(['repo-1'])
    await expect(tokens.put(database.db, ref, { type: 'api_key', api_key: 'k' }, 'user-1')).rejects.toThrow('holds bearer, oauth2 credentials')
    expect(await tokens.remove(database.db, ref)).toBe(true)
    expect(await tokens.remove(database.db, ref)).toBe(false)
    expect(await tokens.open(ref)).toBeNull()
    expect(await tokens.open({ ...ref, owner: 'org' })).toEqual({ type: 'bearer', token: 'org-secret' })
    expect(await tokens.removeOf(database.db, 'repo-1')).toBe(1)
    expect(await tokens.open({ ...ref, owner: 'org' })).toBeNull()
  })

  test('a value opens only on its own row: copied to another namespace, subject, owner or name it is undecryptable', async () => {
    const { vault, database, sql } = await freshVault()
    const tokens = vault.namespace(KIND)
    const other = vault.namespace({ ...KIND, name: 'other_token' })
    await tokens.put(database.db, ref, { type: 'bearer', token: 'bound' }, 'user-1')
    const { sealed } = (await sql.get("SELECT sealed FROM sealed_secrets WHERE namespace = 'test_token'")) as { sealed: string }
    const copy = (...values: string[]) => sql.run('INSERT INTO sealed_secrets VALUES (?, ?, ?, ?, ?, ?, ?)', ...values)
    await copy('other_token', 'repo-1', 'user-1', '', sealed, 'x', 'x')
    await copy('test_token', 'repo-2', 'user-1', '', sealed, 'x', 'x')
    await copy('test_token', 'repo-1', 'user-2', '', sealed, 'x', 'x')
    await copy('test_token', 'repo-1', 'user-1', 'second', sealed, 'x', 'x')
    for (const [namespace, target] of [
      [other, ref],
      [tokens, { ...ref, subject: 'repo-2' }],
      [tokens, { ...ref, owner: 'user-2' }],
      [tokens, { ...ref, name: 'second' }],
    ] as const) {
      const error = await namespace.open(target).catch((caught) => caught)
      expect(error).toBeInstanceOf(SecretBoxError)
      expect(error.code).toBe('undecryptable')
    }
    expect(await tokens.open(ref)).toEqual({ type: 'bearer', token: 'bound' })
  })

  test("every write reaches the next open, however warm the vault's cache is", async () => {
    const { vault, database } = await freshVault()
    const tokens = vault.namespace(KIND)
    await tokens.put(database.db, ref, { type: 'bearer', token: 'one' }, 'user-1')
    expect(await tokens.open(ref)).toEqual({ type: 'bearer', token: 'one' })
    await tokens.put(database.db, ref, { type: 'bearer', token: 'two' }, 'user-1')
    expect(await tokens.open(ref)).toEqual({ type: 'bearer', token: 'two' })
    // In a caller's transaction that rolls back: the value stays what was committed.
    await database.db
      .transaction()
      .execute(async (trx) => {
        await tokens.remove(trx, ref)
        throw new Error('rolled back')
      })
      .catch(() => {})
    expect(await tokens.open(ref)).toEqual({ type: 'bearer', token: 'two' })
    await database.db.transaction().execute((trx) => tokens.remove(trx, ref))
    expect(await tokens.open(ref)).toBeNull()
  })
})

describe('key rotation', () => {
  test('re-seals every row of every namespace, declared or not, and retires the keys no value uses', async () => {
    const { vault, database, make, dataDir, sql } = await freshVault()
    const tokens = vault.namespace(KIND)
    // A namespace another (older or removed) part of the server declared: not declared on this vault.
    const elsewhere = make().namespace({ name: 'retired_kind', label: 'no longer declared', types: ['basic'] })
    for (let i = 0; i < 450; i++) await tokens.put(database.db, { subject: `repo-${i}`, owner: 'org' }, { type: 'bearer', token: `t-${i}` }, 'admin')
    await elsewhere.put(database.db, { subject: 's', owner: 'org' }, { type: 'basic', username: 'u', password: 'p' }, 'admin')
    const oldKey = JSON.parse(readFileSync(join(dataDir, 'secrets', 'credentials.key'), 'utf8')).current
    const result = await vault.rotateKey()
    expect(result).toEqual({
      key_id: expect.any(String),
      reencrypted: 451,
      unreadable: 0,
      retired_key_ids: [oldKey],
      namespaces: [
        { namespace: 'retired_kind', values: 1, reencrypted: 1, unreadable: 0 },
        { namespace: 'test_token', values: 450, reencrypted: 450, unreadable: 0 },
      ],
    })
    // The key id is the envelope's second field (v1:<kid>:…).
    const kids = new Set((await sql.all<{ sealed: string }>('SELECT sealed FROM sealed_secrets')).map((row) => row.sealed.split(':')[1]))
    expect([...kids]).toEqual([result.key_id])
    expect(await tokens.open({ subject: 'repo-449', owner: 'org' })).toEqual({ type: 'bearer', token: 't-449' })
    // A vault made afterwards (a restart) reads the new keyring.
    expect(await make().namespace(KIND).open({ subject: 'repo-0', owner: 'org' })).toEqual({ type: 'bearer', token: 't-0' })
  })

  test('a value whose key is missing is counted unreadable, left as it is, and its key never invented', async () => {
    const { vault, database, sql } = await freshVault()
    const tokens = vault.namespace(KIND)
    await tokens.put(database.db, ref, { type: 'bearer', token: 'kept' }, 'user-1')
    await sql.run(
      'INSERT INTO sealed_secrets VALUES (?, ?, ?, ?, ?, ?, ?)',
      'test_token',
      'lost',
      'org',
      '',
      'v1:gone:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA',
      'x',
      'x',
    )
    const result = await vault.rotateKey()
    expect(result).toMatchObject({ reencrypted: 1, unreadable: 1, namespaces: [{ namespace: 'test_token', values: 2, reencrypted: 1, unreadable: 1 }] })
    expect(await sql.get("SELECT sealed FROM sealed_secrets WHERE subject = 'lost'")).toEqual({
      sealed: 'v1:gone:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA',
    })
    const status = await tokens.status('lost', 'org')
    expect(status.get('')!.problem).toContain('"gone"')
  })
})

describe('OAuth 2 refresh', () => {
  const expiring = (extra: Partial<OAuth2Credential> = {}): OAuth2Credential => ({
    type: 'oauth2',
    access_token: 'access-0',
    refresh_token: 'refresh-0',
    expires_at: new Date(clock.now() + REFRESH_MARGIN_MS - 1000).toISOString(),
    token_endpoint: tokenUrl,
    client_id: 'agentbox',
    client_secret: 'client-secret-s3',
    ...extra,
  })
  let issued = 0
  const rotating = () => {
    issued++
    return Response.json({ access_token: `access-${issued}`, token_type: 'bearer', expires_in: 3600, refresh_token: `refresh-${issued}` })
  }

  test('a token far from expiry is used as it is; one within a minute of it is refreshed once for many callers at once', async () => {
    const { vault, database } = await freshVault()
    const tokens = vault.namespace(KIND)
    await tokens.put(database.db, ref, { ...expiring(), expires_at: new Date(clock.now() + 3_600_000).toISOString() }, 'user-1')
    const before = tokenRequests.length
    expect(await tokens.openForUse(ref)).toMatchObject({ access_token: 'access-0' })
    expect(tokenRequests.length).toBe(before)

    await tokens.put(database.db, ref, expiring(), 'user-1')
    expect(await tokens.open(ref)).toMatchObject({ access_token: 'access-0' }) // warm the cache: every caller below starts alike
    answer = rotating
    // Started in one turn: all of them ask before the token endpoint can have answered the first.
    const opened = await Promise.all(Array.from({ length: 8 }, () => tokens.openForUse(ref)))
    expect(tokenRequests.length).toBe(before + 1)
    const sent = tokenRequests.at(-1)!
    expect(Object.fromEntries(sent.form)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'refresh-0',
      client_id: 'agentbox',
      client_secret: 'client-secret-s3',
    })
    expect(new Set(opened.map((credential) => bearerToken(credential!)))).toEqual(new Set([`access-${issued}`]))
    // Stored: the next caller uses the new tokens without asking again, and the rotated refresh token is kept.
    const stored = (await tokens.open(ref)) as OAuth2Credential
    expect(stored).toMatchObject({ access_token: `access-${issued}`, refresh_token: `refresh-${issued}`, client_id: 'agentbox', token_endpoint: tokenUrl })
    expect(Date.parse(stored.expires_at!)).toBe(clock.now() + 3_600_000)
    expect(await tokens.openForUse(ref)).toEqual(stored)
    expect(tokenRequests.length).toBe(before + 1)
  })

  test('client_secret_basic sends the form-encoded id and secret as HTTP Basic, not in the body', async () => {
    const { vault, database } = await freshVault()
    const tokens = vault.namespace(KIND)
    await tokens.put(
      database.db,
      ref,
      expiring({ client_id: 'id with space', client_secret: 's:cret', token_endpoint_auth_method: 'client_secret_basic' }),
      'user-1',
    )
    answer = rotating
    await tokens.openForUse(ref)
    const sent = tokenRequests.at(-1)!
    expect(sent.authorization).toBe(`Basic ${btoa('id%20with%20space:s%3Acret')}`)
    expect(sent.form.has('client_secret')).toBe(false)
    expect(sent.form.has('client_id')).toBe(false)
  })

  test('a refused refresh is a typed 400-kind error naming the OAuth error code, never quoting the answer', async () => {
    const { vault, database } = await freshVault()
    const tokens = vault.namespace(KIND)
    await tokens.put(database.db, ref, expiring(), 'user-1')
    answer = () => Response.json({ error: 'invalid_grant', error_description: 'refresh-0 was revoked by the admin' }, { status: 400 })
    const error = await tokens.openForUse(ref).catch((caught) => caught)
    expect(error).toBeInstanceOf(CredentialRefreshError)
    expect(error).toMatchObject({ code: 'rejected', kind: 'bad_request', oauthError: 'invalid_grant' })
    expect(error.message).toBe('The OAuth 2 token endpoint refused to refresh the token (invalid_grant): connect again')
    // Nothing changed: the stored tokens are still there for the user to see as connected and replace.
    expect(await tokens.open(ref)).toMatchObject({ access_token: 'access-0', refresh_token: 'refresh-0' })
  })

  test('an endpoint that fails, answers nonsense, or is not allowed is a typed 502-kind error', async () => {
    const { vault, database } = await freshVault()
    const tokens = vault.namespace(KIND)
    await tokens.put(database.db, ref, expiring(), 'user-1')
    for (const [respond, words] of [
      [() => new Response('upstream exploded', { status: 500 }), 'answered HTTP 500'],
      [() => new Response('<html>login</html>', { headers: { 'content-type': 'text/html' } }), 'did not answer with a bearer token'],
      [() => Response.json({ access_token: 'a', token_type: 'mac' }), 'did not answer with a bearer token'],
      [() => new Response(null, { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }), 'answered with a redirect'],
    ] as const) {
      answer = respond
      const error = await tokens.openForUse(ref).catch((caught) => caught)
      expect(error).toMatchObject({ code: 'unavailable', kind: 'bad_gateway' })
      expect(error.message).toContain(words)
    }
    const closed = await freshVault(false)
    const guarded = closed.vault.namespace(KIND)
    await guarded.put(closed.database.db, ref, expiring(), 'user-1')
    const before = tokenRequests.length
    const refused = await guarded.openForUse(ref).catch((caught) => caught)
    expect(refused).toMatchObject({
      code: 'unavailable',
      message: 'The OAuth 2 token could not be refreshed: the token endpoint is not an allowed destination',
    })
    expect(tokenRequests.length).toBe(before)
  })

  test('a secret cleared while its refresh was out stays cleared; one replaced meanwhile is used as it is now', async () => {
    const { vault, database, make } = await freshVault()
    const tokens = vault.namespace(KIND)
    await tokens.put(database.db, ref, expiring(), 'user-1')
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let arrived!: () => void
    const arrival = new Promise<void>((resolve) => (arrived = resolve))
    answer = () => {
      arrived()
      return held.then(rotating) as unknown as Response
    }
    const refreshing = tokens.openForUse(ref)
    await arrival
    await tokens.remove(database.db, ref)
    release()
    expect(await refreshing).toBeNull()
    expect(await tokens.open(ref)).toBeNull()

    // Another instance refreshed first (its vault on the same database): this one reads what is stored before sending
    // its old refresh token (which a rotating server would refuse), and uses it without asking the endpoint.
    await tokens.put(database.db, ref, expiring(), 'user-1')
    expect(await tokens.open(ref)).toMatchObject({ access_token: 'access-0' })
    const other = make().namespace(KIND)
    answer = rotating
    const theirs = await other.openForUse(ref)
    const refused = tokenRequests.length
    answer = () => Response.json({ error: 'invalid_grant' }, { status: 400 })
    // This vault still holds the old value in its cache (its revision did not see the other instance's write).
    expect(await tokens.openForUse(ref)).toEqual(theirs)
    expect(tokenRequests.length).toBe(refused)

    // Replaced (a reconnect) while its refresh was out, and the endpoint refuses the old refresh token: the
    // replacement is used, not the refusal.
    await tokens.put(database.db, ref, expiring(), 'user-1')
    let releaseRefusal!: () => void
    const refusalHeld = new Promise<void>((resolve) => (releaseRefusal = resolve))
    let refusalArrived!: () => void
    const refusalArrival = new Promise<void>((resolve) => (refusalArrived = resolve))
    answer = () => {
      refusalArrived()
      return refusalHeld.then(() => Response.json({ error: 'invalid_grant' }, { status: 400 })) as unknown as Response
    }
    const refusing = tokens.openForUse(ref)
    await refusalArrival
    const reconnected = { ...expiring(), access_token: 'reconnected', expires_at: new Date(clock.now() + 3_600_000).toISOString() }
    await tokens.put(database.db, ref, reconnected, 'user-1')
    releaseRefusal()
    expect(await refusing).toEqual(reconnected)
  })
})

describe('the credential model', () => {
  test('one definition per type: required fields, empty strings, fields of another type (masked), per-type rules', () => {
    expect(credentialIssues('basic', { username: 'a:b' }).map((issue) => [issue.loc, issue.type])).toEqual([
      [['password'], 'missing'],
      [['username'], 'value_error'],
    ])
    expect(credentialIssues('basic', { username: 'ann', password: '' })).toEqual([])
    expect(credentialIssues('bearer', { token: '', api_key: 'leaked?' })).toEqual([
      { loc: ['token'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
      { loc: ['api_key'], msg: 'Not used by Bearer token credentials', type: 'extra_forbidden', input: '***' },
    ])
    expect(
      credentialIssues('oauth2', { access_token: 'a', refresh_token: 'r', token_endpoint: 'ftp://x', token_endpoint_auth_method: 'magic' }).map(
        (issue) => issue.loc[0],
      ),
    ).toEqual(['client_id', 'token_endpoint', 'token_endpoint_auth_method'])
    expect(JSON.stringify(credentialIssues('api_key', { token: 'secret-value' }))).not.toContain('secret-value')
  })

  test('values stored before the model had a type are read by their fields; helpers apply and list secrets', () => {
    expect(parseCredential('{"api_key":"k"}')).toEqual({ type: 'api_key', api_key: 'k' })
    expect(parseCredential('{"username":"u","password":"p"}')).toEqual({ type: 'basic', username: 'u', password: 'p' })
    expect(parseCredential('{"token":"t"}')).toEqual({ type: 'bearer', token: 't' })
    expect(() => parseCredential('{"what":"ever"}')).toThrow('not a credential')
    const oauth: Credential = buildCredential('oauth2', {
      access_token: 'at',
      refresh_token: 'rt',
      token_endpoint: tokenUrl,
      client_id: 'c',
      client_secret: 'cs',
    })
    expect(authorizationHeader(oauth)).toBe('Bearer at')
    expect(authorizationHeader({ type: 'basic', username: 'u', password: 'p' })).toBe(`Basic ${btoa('u:p')}`)
    expect(authorizationHeader({ type: 'api_key', api_key: 'k' })).toBeNull()
    expect(secretValues(oauth).sort()).toEqual(['at', 'cs', 'rt'])
    expect(associatedDataOf('app_credential', 'a', 'o', 's')).toBe('app_credential:a:o:s')
  })
})
