// Migration 0015 moves applications' credentials into the secrets subsystem's one table without loss: rows written
// the old way (application_credentials, sealed for `app_credential:<application>:<owner>:<scheme>`, the JSON without a
// type) still open and are sent after the upgrade, also when the upgrade runs without the key file (a restored
// database); and applications imported before it answer a clear 404 for their document until their next re-import.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Migrator } from 'kysely'
import { mkdtempSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.ts'
import { forMigrations } from '../../src/platform/db/dialect.ts'
import { MIGRATIONS } from '../../src/platform/db/migrations/index.ts'
import { SecretBox } from '../../src/platform/secrets/secret-box.ts'
import { SecretStore } from '../../src/platform/secrets/secret-files.ts'
import { dropTestDatabase, emptyTestDatabase, openTestDatabase, testSql, type TestSql } from '../helpers/database.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'
import { uploadSpec } from './helpers.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'agentbox-credentials-migration-'))
let upstream: ReturnType<typeof Bun.serve>
const received: { path: string; credential: string | null }[] = []
let t: TestServer
let admin: string
let member: { id: string; token: string }
const ids: Record<string, string> = {}
/** The envelopes written the old way. */
const written: string[] = []

const api = (serverUrl: string, title: string) => ({
  openapi: '3.0.3',
  info: { title, version: '1' },
  servers: [{ url: serverUrl }],
  components: {
    securitySchemes: {
      key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      basic: { type: 'http', scheme: 'basic' },
      bearer: { type: 'http', scheme: 'bearer' },
    },
  },
  paths: {
    '/key': { get: { operationId: 'byKey', security: [{ key: [] }], responses: { '200': { description: 'ok' } } } },
    '/basic': { get: { operationId: 'byBasic', security: [{ basic: [] }], responses: { '200': { description: 'ok' } } } },
    '/bearer': { get: { operationId: 'byBearer', security: [{ bearer: [] }], responses: { '200': { description: 'ok' } } } },
  },
})

const AT_0014 = '0014_threads'
const migratorOn = (handle: DatabaseHandle) => new Migrator({ db: forMigrations(handle.db), provider: { getMigrations: async () => ({ ...MIGRATIONS }) } })
const tablesOf = async (handle: DatabaseHandle) =>
  new Set((await handle.db.introspection.getTables()).map((table) => table.name).filter((name) => !name.startsWith('kysely_')))

/**
 * What a database migrated up to 0014 held, on whichever database the run uses: the migrator runs every later
 * migration's down, newest first (0015's puts the 0007 table back and drops its own); a later migration without a down
 * only added tables, which are dropped here (those a fresh database migrated to 0014 lacks), and its bookkeeping row
 * goes, so the upgrade runs every later migration again, in order.
 */
async function rewindTo0014(handle: DatabaseHandle): Promise<void> {
  const { error } = await migratorOn(handle).migrateTo(AT_0014)
  if (error) throw error
  const scratchDir = mkdtempSync(join(tmpdir(), 'agentbox-at-0014-'))
  const scratch = openDatabase(await emptyTestDatabase(scratchDir))
  let expected: Set<string>
  try {
    const reached = await migratorOn(scratch).migrateTo(AT_0014)
    if (reached.error) throw reached.error
    expected = await tablesOf(scratch)
  } finally {
    await scratch.close()
    await dropTestDatabase(scratchDir)
    rmSync(scratchDir, { recursive: true, force: true })
  }
  const sql = testSql(handle.db)
  for (const table of await tablesOf(handle)) if (!expected.has(table)) await sql.run(`DROP TABLE ${table}`)
  await sql.run('DELETE FROM kysely_migration WHERE name > ?', AT_0014)
}

/** A credential written the way the old ApplicationCredentials.put wrote it. */
async function insertOldWay(db: TestSql, box: SecretBox, applicationId: string, owner: string, scheme: string, secret: Record<string, string>) {
  const sealed = box.seal(JSON.stringify(secret), `app_credential:${applicationId}:${owner}:${scheme}`)
  written.push(sealed)
  await db.run(
    'INSERT INTO application_credentials (application_id, scheme, owner, sealed, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)',
    applicationId,
    scheme,
    owner,
    sealed,
    '2026-01-02T03:04:05.000Z',
    owner,
  )
}

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const credential = request.headers.get('x-api-key') ?? request.headers.get('authorization')
      received.push({ path: new URL(request.url).pathname, credential })
      return Response.json({ credential })
    },
  })
  const env = { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' }
  const first = await startTestServer({ dataDir, env })
  ;({ adminToken: admin } = await first.provision())
  member = await first.createUser(admin, { email: 'member@example.com' })
  for (const [name, fields] of [
    ['personal', { global_spec: 'true' }],
    ['shared', { global_spec: 'true', shared_security_info: 'true' }],
  ] as const) {
    const imported = await uploadSpec(first, admin, api(`http://127.0.0.1:${upstream.port}`, name), { api_name: name, ...fields })
    expect(imported.status).toBe(201)
  }
  for (const row of (await first.sql.all('SELECT id, api_name FROM applications')) as { id: string; api_name: string }[]) ids[row.api_name] = row.id
  await first.close()

  const handle = await openTestDatabase(dataDir)
  await rewindTo0014(handle)
  const db = testSql(handle.db)
  const box = new SecretBox(new SecretStore(dataDir))
  await insertOldWay(db, box, ids.personal!, member.id, 'key', { api_key: 'old-key-1234' })
  await insertOldWay(db, box, ids.personal!, member.id, 'basic', { username: 'ann', password: 'old-password-5678' })
  await insertOldWay(db, box, ids.personal!, member.id, 'bearer', { token: 'old-token-9012' })
  await insertOldWay(db, box, ids.shared!, 'org', 'key', { api_key: 'old-org-key-3456' })
  await handle.close()

  // Upgraded without its key file, as a database restored without FILE.keys would be.
  renameSync(join(dataDir, 'secrets', 'credentials.key'), join(dataDir, 'credentials.key.aside'))
  t = await startTestServer({ dataDir, env })
})
afterAll(async () => {
  await t.close()
  upstream.stop(true)
  rmSync(dataDir, { recursive: true, force: true })
  await dropTestDatabase(dataDir)
})

const execute = (apiName: string, operation: string, token: string) =>
  t.request('POST', `/api/applications/${apiName}/operations/${operation}/execute`, { token, body: { arguments: {} } })

describe('migration 0015 of application credentials', () => {
  test('every row is in sealed_secrets under app_credential, envelope for envelope, and the old table is gone', async () => {
    const rows = (await t.sql.all('SELECT namespace, subject, owner, name, sealed, updated_at FROM sealed_secrets ORDER BY name, owner')) as any[]
    expect(rows.map((row) => [row.namespace, row.subject, row.owner, row.name, row.updated_at])).toEqual([
      ['app_credential', ids.personal, member.id, 'basic', '2026-01-02T03:04:05.000Z'],
      ['app_credential', ids.personal, member.id, 'bearer', '2026-01-02T03:04:05.000Z'],
      ['app_credential', ids.personal, member.id, 'key', '2026-01-02T03:04:05.000Z'],
      ['app_credential', ids.shared, 'org', 'key', '2026-01-02T03:04:05.000Z'],
    ])
    expect(rows.map((row) => row.sealed).sort()).toEqual([...written].sort())
    expect(await t.server.database.db.introspection.getTables()).not.toContainEqual(expect.objectContaining({ name: 'application_credentials' }))
  })

  test('migrated without the key file: listed as not connected with the reason, calls refused with a 400, never a 500', async () => {
    const listed = await t.request('GET', '/api/applications/personal/credentials', { token: member.token })
    expect(listed.status).toBe(200)
    for (const entry of listed.body) {
      expect(entry.connected).toBe(false)
      expect(entry.reason).toContain('credentials.key')
    }
    const refused = await execute('personal', 'byKey', member.token)
    expect(refused.status).toBe(400)
    expect(refused.body.detail).toContain('credentials.key')
    expect(received).toEqual([])
  })

  test('with the key file back, every old credential opens and is sent as before', async () => {
    renameSync(join(dataDir, 'credentials.key.aside'), join(dataDir, 'secrets', 'credentials.key'))
    // The keyring is read on first use after a start.
    await t.restart()
    const listed = await t.request('GET', '/api/applications/personal/credentials', { token: member.token })
    expect(listed.body.map((entry: any) => [entry.scheme, entry.connected, entry.updated_at])).toEqual([
      ['key', true, '2026-01-02T03:04:05.000Z'],
      ['basic', true, '2026-01-02T03:04:05.000Z'],
      ['bearer', true, '2026-01-02T03:04:05.000Z'],
    ])
    expect((await execute('personal', 'byKey', member.token)).body.body.credential).toBe('old-key-1234')
    expect((await execute('personal', 'byBasic', member.token)).body.body.credential).toBe(`Basic ${btoa('ann:old-password-5678')}`)
    expect((await execute('personal', 'byBearer', member.token)).body.body.credential).toBe('Bearer old-token-9012')
    expect((await execute('shared', 'byKey', member.token)).body.body.credential).toBe('old-org-key-3456')
  })

  test('a key rotation re-seals the migrated values and they keep working', async () => {
    const rotated = await t.request('POST', '/api/org/secrets/rotate', { token: admin })
    expect(rotated.body).toMatchObject({
      reencrypted: 4,
      unreadable: 0,
      namespaces: [
        { namespace: 'app_credential', values: 4, reencrypted: 4, unreadable: 0 },
        { namespace: 'git_repository_token', values: 0, reencrypted: 0, unreadable: 0 },
        { namespace: 'mcp_server_token', values: 0, reencrypted: 0, unreadable: 0 },
      ],
    })
    expect((await execute('personal', 'byBasic', member.token)).body.body.credential).toBe(`Basic ${btoa('ann:old-password-5678')}`)
    expect((await execute('shared', 'byKey', member.token)).body.body.credential).toBe('old-org-key-3456')
  })

  test('an application imported before 0015 has no document: a 404 saying it is kept from the next re-import, which keeps it', async () => {
    const missing = await t.request('GET', '/api/applications/personal/document', { token: member.token })
    expect(missing.status).toBe(404)
    expect(missing.body.detail).toContain('next re-import')
    const document = api(`http://127.0.0.1:${upstream.port}`, 'personal')
    expect((await uploadSpec(t, admin, document, { api_name: 'personal', replace: 'true' })).status).toBe(201)
    const kept = await t.request('GET', '/api/applications/personal/document', { token: member.token })
    expect(kept.status).toBe(200)
    expect(kept.body).toEqual(document)
    // The re-import kept the migrated credentials.
    expect((await execute('personal', 'byKey', member.token)).body.body.credential).toBe('old-key-1234')
  })
})
