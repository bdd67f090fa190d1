// The client names legacy (2025-era) MCP callers give in their initialize, kept in the database for their later
// stateless calls: hashed per user and bearer token, read by any instance on the database (a second ClientNames on the
// same database stands for another instance here; test/cluster/mcp-client-names.test.ts uses two real processes), a
// re-set name seen elsewhere once the short memo ends, and names not refreshed for 30 days deleted. Runs on both
// databases.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CLIENT_NAME_MEMO_MS, CLIENT_NAME_RETENTION_MS, ClientNames } from '../../src/modules/mcp/client-names.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { agentWithEcho, echoCall, legacyInitialize, type McpWorld, recordedCalls, rpc, startMcpWorld } from './helpers.ts'

let w: McpWorld
let live: string

const storedNames = () => w.t.server.database.db.selectFrom('mcp_client_names').selectAll().orderBy('client_name').execute()

/** Calls the echo workflow as `token` and answers the client name its record carries. */
async function recordedClientOf(token: string, text: string): Promise<string | null> {
  const res = await rpc(live, token, echoCall(text))
  expect(res.status).toBe(200)
  expect(res.body.result.isError).toBeFalsy()
  const calls = await recordedCalls(w)
  const call = calls.find((row) => row.arguments?.includes(text))
  if (!call) throw new Error(`no record of the call ${text}`)
  return call.client_source
}

beforeAll(async () => {
  w = await startMcpWorld()
  live = `${w.base}/agent/${await agentWithEcho(w)}/mcp`
})
afterAll(() => w.stop())

describe('over HTTP', () => {
  test('a legacy initialize stores one row per caller: a hash of the user and bearer token, never the token', async () => {
    expect((await rpc(live, w.viewer.token, legacyInitialize('windsurf'))).status).toBe(200)
    expect((await rpc(live, w.viewer.token, legacyInitialize('windsurf'))).status).toBe(200)
    const rows = await storedNames()
    expect(rows).toHaveLength(1)
    expect(rows[0]!.client_name).toBe('windsurf')
    expect(rows[0]!.caller_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(rows[0]!.updated_at).toBe(w.t.clock.now())
    expect(JSON.stringify(rows)).not.toContain(w.viewer.token)
  })

  test('another token of the same user is another caller; a call without any initialize is recorded without a name', async () => {
    const created = await w.t.request('POST', '/api/auth/tokens', { token: w.viewer.token, body: { name: 'second client' } })
    expect(created.status).toBe(201)
    const pat = created.body.token as string
    expect(await recordedClientOf(pat, 'before any initialize')).toBeNull()
    expect((await rpc(live, pat, legacyInitialize('cursor'))).status).toBe(200)
    expect(await recordedClientOf(pat, 'from the pat')).toBe('cursor')
    expect(await recordedClientOf(w.viewer.token, 'from the access token')).toBe('windsurf')
    expect((await storedNames()).map((row) => row.client_name)).toEqual(['cursor', 'windsurf'])
  })

  test('a name the caller gives again in a new initialize replaces the old one', async () => {
    expect((await rpc(live, w.owner.token, legacyInitialize('zed'))).status).toBe(200)
    expect(await recordedClientOf(w.owner.token, 'as zed')).toBe('zed')
    expect((await rpc(live, w.owner.token, legacyInitialize('claude-code'))).status).toBe(200)
    expect(await recordedClientOf(w.owner.token, 'as claude-code')).toBe('claude-code')
  })

  test.skipIf(ON_POSTGRES)('on SQLite, an initialize leaves the change stamp alone (the remembered principals survive it)', async () => {
    const before = w.t.server.database.changeStamp()
    expect((await rpc(live, w.viewer.token, legacyInitialize('windsurf-2'))).status).toBe(200)
    expect(w.t.server.database.changeStamp()).toBe(before)
    expect((await storedNames()).map((row) => row.client_name)).toContain('windsurf-2')
  })
})

describe('between instances on one database', () => {
  // The server's own ClientNames is instance A; B is a second one on the same database, as another process would have.
  const a = () => w.t.server.modules.mcp.service.clientNames
  let b: ClientNames
  beforeAll(() => {
    b = new ClientNames(w.t.server.database, w.t.clock)
  })

  test('a name set on one is read by the other at once, even right after the other found none', async () => {
    expect(await b.get('user-1|Bearer one')).toBeUndefined()
    await a().set('user-1|Bearer one', 'first')
    expect(await b.get('user-1|Bearer one')).toBe('first')
    expect(await b.get('user-1|Bearer other')).toBeUndefined()
  })

  test('a name re-set on one is what the other reads once its memo ends (at most CLIENT_NAME_MEMO_MS)', async () => {
    await a().set('user-1|Bearer one', 'second')
    expect(await a().get('user-1|Bearer one')).toBe('second')
    expect(await b.get('user-1|Bearer one')).toBe('first')
    w.t.clock.advance(CLIENT_NAME_MEMO_MS)
    expect(await b.get('user-1|Bearer one')).toBe('second')
  })

  // Last: it moves the clock past every token's lifetime.
  test('names no initialize refreshed for 30 days are deleted by the housekeeping; refreshed ones stay', async () => {
    await a().set('user-2|Bearer old', 'old')
    await a().set('user-2|Bearer kept', 'kept')
    w.t.clock.advance(CLIENT_NAME_RETENTION_MS - 1000)
    await b.set('user-2|Bearer kept', 'kept')
    await a().prune()
    expect((await storedNames()).map((row) => row.client_name)).toContain('old')
    w.t.clock.advance(2000)
    await a().prune()
    const left = (await storedNames()).map((row) => row.client_name)
    expect(left).toEqual(['kept'])
    w.t.clock.advance(CLIENT_NAME_MEMO_MS)
    expect(await a().get('user-2|Bearer old')).toBeUndefined()
    expect(await b.get('user-2|Bearer kept')).toBe('kept')
  })
})
