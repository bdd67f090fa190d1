// A legacy (2025-era) MCP client behind a load balancer: its initialize reaches one instance, its stateless tool calls
// another; each call is still recorded with the client name the initialize gave (the name is kept in the database, not
// in the memory of the instance that saw the initialize). Two real instances on one PostgreSQL database. PostgreSQL only
// (AGENTBOX_TEST_DATABASE_URL). The records are written after the calls answer: the test polls the history for them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type ClusterInstance, startCluster, type TestCluster, waitFor } from '../helpers/cluster.ts'
import { ON_POSTGRES } from '../helpers/database.ts'
import { callJson, stopAllServers } from '../helpers/process.ts'
import { echoCall, echoFlow, legacyInitialize } from '../mcp/helpers.ts'

let cluster: TestCluster
let a: ClusterInstance
let b: ClusterInstance

const AGENT = 'balanced-bot'

/** One legacy JSON-RPC POST to the agent's MCP endpoint on `instance`. */
async function rpc(instance: ClusterInstance, token: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${instance.base}/agent/${AGENT}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  return { status: res.status, body: await res.json().catch(() => null) }
}

/** The recorded client name of the call whose arguments hold `text`, once the record is written (polled on `instance`). */
const recordedClientOf = (instance: ClusterInstance, text: string) =>
  waitFor(`the record of the call "${text}"`, async () => {
    const page = await callJson(instance, 'GET', '/api/interactions?kind=mcp_tool&limit=100', cluster.adminToken)
    const item = (page.body.items as { client_source: string | null; arguments: unknown }[]).find((i) => JSON.stringify(i.arguments).includes(text))
    return item && { client_source: item.client_source }
  })

describe.skipIf(!ON_POSTGRES)('MCP client names across two instances', () => {
  beforeAll(async () => {
    cluster = await startCluster({ instances: 2 })
    ;[a, b] = cluster.instances as [ClusterInstance, ClusterInstance]
    const ok = async (path: string, body: unknown) => {
      const res = await callJson(a, 'POST', path, cluster.adminToken, body)
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
    }
    await ok('/api/agents', { name: AGENT, description: 'Echoes', instructions: 'Be brief.' })
    await ok(`/api/workflows/${AGENT}`, { name: 'echo', definition: echoFlow() })
    await ok(`/api/agents/${AGENT}/publish`, {})
  }, 120_000)

  afterAll(async () => {
    await cluster?.stop()
    await stopAllServers()
  }, 60_000)

  test('initialize on A, tool call on B: the call is recorded with the client name', async () => {
    expect((await rpc(a, cluster.adminToken, legacyInitialize('windsurf'))).status).toBe(200)
    const called = await rpc(b, cluster.adminToken, echoCall('called on b'))
    expect(called.status).toBe(200)
    expect(called.body.result.isError).toBeFalsy()
    expect(await recordedClientOf(b, 'called on b')).toEqual({ client_source: 'windsurf' })
  }, 60_000)

  test('a caller A found no name for, then initialized on B: its next call on A is recorded with that name', async () => {
    const created = await callJson(a, 'POST', '/api/auth/tokens', cluster.adminToken, { name: 'second client' })
    expect(created.status).toBe(201)
    const pat = created.body.token as string
    expect((await rpc(a, pat, echoCall('before any initialize'))).status).toBe(200)
    expect(await recordedClientOf(a, 'before any initialize')).toEqual({ client_source: null })
    expect((await rpc(b, pat, legacyInitialize('cursor'))).status).toBe(200)
    expect((await rpc(a, pat, echoCall('after initialize on b'))).status).toBe(200)
    expect(await recordedClientOf(a, 'after initialize on b')).toEqual({ client_source: 'cursor' })
  }, 60_000)
})
