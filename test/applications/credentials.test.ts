// Credentials (CONTRACT §12): per user or shared by the organisation, Basic / Bearer / API key, sealed at rest with
// the secret box, never returned; a database restored without its keys reports them as not connected.
import { databaseHolds, ON_POSTGRES } from '../helpers/database.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startWithPeople, type People } from '../helpers/people.ts'
import { petstore, uploadSpec } from './helpers.ts'

let p: People
beforeAll(async () => {
  p = await startWithPeople()
  await uploadSpec(p.t, p.admin, petstore(), { api_name: 'mine', global_spec: 'true' })
  await uploadSpec(p.t, p.admin, petstore(), { api_name: 'shared', global_spec: 'true', shared_security_info: 'true' })
})
afterAll(() => p.t.close())

const put = (api: string, body: unknown, token: string) => p.t.request('PUT', `/api/applications/${api}/credentials`, { token, body })
const list = (api: string, token: string) => p.t.request('GET', `/api/applications/${api}/credentials`, { token })

describe('per-user credentials', () => {
  test('each user connects their own; the list says connected per scheme and never shows a secret', async () => {
    expect((await list('mine', p.owner.token)).body).toEqual([
      { scheme: 'api_key', type: 'api_key', scope: 'user', connected: false, updated_at: null },
      { scheme: 'basic', type: 'basic', scope: 'user', connected: false, updated_at: null },
      { scheme: 'oauth', type: 'bearer', scope: 'user', connected: false, updated_at: null },
    ])
    const set = await put('mine', { scheme: 'api_key', api_key: 'owner-secret-key-1' }, p.owner.token)
    expect(set.status).toBe(200)
    expect(set.body).toEqual({ scheme: 'api_key', type: 'api_key', scope: 'user', connected: true, updated_at: expect.any(String) })
    expect((await put('mine', { scheme: 'basic', username: 'ann', password: 'pw-secret-2' }, p.owner.token)).status).toBe(200)
    expect((await put('mine', { scheme: 'oauth', token: 'bearer-secret-3' }, p.owner.token)).status).toBe(200)
    const mine = (await list('mine', p.owner.token)).body
    expect(mine.every((entry: any) => entry.connected)).toBe(true)
    expect(JSON.stringify(mine)).not.toContain('secret')
    // Someone else's list is theirs: nothing connected.
    expect((await list('mine', p.viewer.token)).body.some((entry: any) => entry.connected)).toBe(false)
  })

  test('secrets are sealed at rest: not in the database file, the key file is 0600', async () => {
    await put('mine', { scheme: 'api_key', api_key: 'plaintext-canary-7788' }, p.viewer.token)
    // Not in the database: SQLite's file and WAL, or every text column on PostgreSQL.
    expect(await databaseHolds(p.t.sql, p.t.dataDir, 'plaintext-canary-7788')).toBe(false)
    const row = (await p.t.sql.get("SELECT sealed FROM sealed_secrets WHERE namespace = 'app_credential' AND name = 'api_key' LIMIT 1")) as {
      sealed: string
    }
    expect(row.sealed).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/)
    const mode = Bun.file(join(p.t.dataDir, 'secrets', 'credentials.key'))
    expect(((await mode.stat()).mode & 0o777).toString(8)).toBe('600')
  })

  test('wrong fields for the scheme, an unknown scheme and missing fields are 422s naming them', async () => {
    const extra = await put('mine', { scheme: 'api_key', api_key: 'k', token: 't', password: 'p' }, p.owner.token)
    expect(extra.status).toBe(422)
    expect(extra.body.detail.map((issue: any) => [issue.loc, issue.type])).toEqual([
      [['body', 'password'], 'extra_forbidden'],
      [['body', 'token'], 'extra_forbidden'],
    ])
    expect(JSON.stringify(extra.body)).not.toContain('"p"')
    const unknown = await put('mine', { scheme: 'nope', token: 't' }, p.owner.token)
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'scheme'], type: 'literal_error' })
    const missing = await put('mine', { scheme: 'basic', username: 'ann' }, p.owner.token)
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'missing' })
    expect((await put('mine', { scheme: 'oauth', token: 42 }, p.owner.token)).status).toBe(422)
    expect((await put('nope', { scheme: 'oauth', token: 't' }, p.owner.token)).status).toBe(404)
  })

  test("DELETE clears only the caller's own (204); an unknown scheme is 404", async () => {
    await put('mine', { scheme: 'oauth', token: 'viewer-token' }, p.viewer.token)
    expect((await p.t.request('DELETE', '/api/applications/mine/credentials/oauth', { token: p.viewer.token })).status).toBe(204)
    expect((await list('mine', p.viewer.token)).body.find((entry: any) => entry.scheme === 'oauth').connected).toBe(false)
    expect((await list('mine', p.owner.token)).body.find((entry: any) => entry.scheme === 'oauth').connected).toBe(true)
    expect((await p.t.request('DELETE', '/api/applications/mine/credentials/nope', { token: p.viewer.token })).status).toBe(404)
  })
})

describe('organisation-shared credentials', () => {
  test('only admins set or clear them (403 for members); everyone sees them connected; audited without the secret', async () => {
    expect((await put('shared', { scheme: 'api_key', api_key: 'k' }, p.owner.token)).status).toBe(403)
    const set = await put('shared', { scheme: 'api_key', api_key: 'org-secret-9' }, p.admin)
    expect(set.body).toMatchObject({ scope: 'org', connected: true })
    expect((await list('shared', p.owner.token)).body.find((entry: any) => entry.scheme === 'api_key')).toMatchObject({ scope: 'org', connected: true })
    expect((await p.t.request('DELETE', '/api/applications/shared/credentials/api_key', { token: p.owner.token })).status).toBe(403)
    const audit = await p.t.request('GET', '/api/audit?action=application.credential_set', { token: p.admin })
    expect(audit.body[0]).toMatchObject({ target_id: 'shared', details: { scheme: 'api_key' } })
    expect(JSON.stringify(audit.body)).not.toContain('org-secret-9')
  })
})

describe('key rotation', () => {
  test('an admin rotates: every credential moves to the new key, the old key is retired, everything stays connected', async () => {
    await put('mine', { scheme: 'oauth', token: 'rotating-token' }, p.owner.token)
    const keyring = () => JSON.parse(readFileSync(join(p.t.dataDir, 'secrets', 'credentials.key'), 'utf8')) as { current: string; keys: { kid: string }[] }
    const before = keyring().current
    expect((await p.t.request('POST', '/api/org/secrets/rotate', { token: p.owner.token })).status).toBe(403)
    const rotated = await p.t.request('POST', '/api/org/secrets/rotate', { token: p.admin })
    expect(rotated.status).toBe(200)
    expect(rotated.body).toEqual({
      key_id: expect.any(String),
      reencrypted: expect.any(Number),
      unreadable: 0,
      retired_key_ids: [before],
      // Every namespace the vault declares is reported, with none of their own here (MCP server and repository tokens).
      namespaces: [
        { namespace: 'app_credential', values: rotated.body.reencrypted, reencrypted: rotated.body.reencrypted, unreadable: 0 },
        { namespace: 'git_repository_token', values: 0, reencrypted: 0, unreadable: 0 },
        { namespace: 'mcp_server_token', values: 0, reencrypted: 0, unreadable: 0 },
      ],
    })
    expect(rotated.body.reencrypted).toBeGreaterThanOrEqual(5)
    expect(keyring().keys.map((key) => key.kid)).toEqual([rotated.body.key_id])
    // The key id is the envelope's second field (v1:<kid>:…).
    const kids = new Set((await p.t.sql.all<{ sealed: string }>('SELECT sealed FROM sealed_secrets')).map((row) => row.sealed.split(':')[1]))
    expect([...kids]).toEqual([rotated.body.key_id])
    expect((await list('mine', p.owner.token)).body.every((entry: any) => entry.connected)).toBe(true)
    const audit = await p.t.request('GET', '/api/audit?action=secrets_key.rotate', { token: p.admin })
    expect(audit.body[0].details).toMatchObject({ retired_key_ids: [before] })
  })

  test('a rotation waits while one holds the rotation lease (on another instance), then rotates from the keyring that one left', async () => {
    await put('mine', { scheme: 'oauth', token: 'held-rotation-token' }, p.owner.token)
    const keyring = () => JSON.parse(readFileSync(join(p.t.dataDir, 'secrets', 'credentials.key'), 'utf8')) as { current: string; keys: { kid: string }[] }
    const before = keyring().current
    const lease = 'secrets_rotation'
    // On SQLite one process owns the database, so only its own instance id can hold a lease there.
    const holder = ON_POSTGRES ? 'another instance' : p.t.server.cluster.instanceId
    await p.t.sql.run('INSERT INTO leases (key, holder, instance_id, expires_at) VALUES (?, ?, ?, ?)', lease, 'elsewhere', holder, p.t.clock.now() + 60_000)
    const rotating = p.t.request('POST', '/api/org/secrets/rotate', { token: p.admin })
    const waiting = () => p.t.log.lines.find((line) => line.msg === 'waiting for a lease another instance holds' && line.lease === lease)
    while (!waiting()) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(waiting()).toMatchObject({ holder_instance: holder })
    expect(keyring().current).toBe(before)
    // The holder died: its lease expires (forced here), and the waiting rotation takes it.
    await p.t.sql.run('UPDATE leases SET expires_at = ? WHERE key = ?', p.t.clock.now(), lease)
    const rotated = await rotating
    expect(rotated.status).toBe(200)
    expect(rotated.body).toMatchObject({ key_id: expect.any(String), unreadable: 0, retired_key_ids: [before] })
    expect(keyring().keys.map((key) => key.kid)).toEqual([rotated.body.key_id])
    expect((await list('mine', p.owner.token)).body.every((entry: any) => entry.connected)).toBe(true)
    expect(await p.t.sql.count('leases', 'key = ?', lease)).toBe(0)
  })
})

describe('a database without its keys', () => {
  test('credentials read as not connected with a reason, never a 500; reconnecting works', async () => {
    await put('mine', { scheme: 'basic', username: 'ann', password: 'pw' }, p.outsider.token)
    // A restart reads the keyring afresh on first use: as after restoring a backup without FILE.keys.
    await p.t.restart()
    rmSync(join(p.t.dataDir, 'secrets', 'credentials.key'))
    const entries = (await list('mine', p.outsider.token)).body
    const basic = entries.find((entry: any) => entry.scheme === 'basic')
    expect(basic.connected).toBe(false)
    expect(basic.reason).toContain('credentials.key')
    expect((await put('mine', { scheme: 'basic', username: 'ann', password: 'pw2' }, p.outsider.token)).body.connected).toBe(true)
  })
})
