// Behind a TLS-terminating proxy requests arrive as http on an internal address; AGENTBOX_PUBLIC_URL makes every URL
// the instance hands out (MCP URLs, the OAuth issuer and resources, the 401 challenge) the one clients use, and an
// OAuth token issued for the public MCP URL is accepted when the request comes in through the proxy.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { agentWithEcho, type McpWorld, rpc, startMcpWorld } from './helpers.ts'

const PUBLIC = 'https://agentbox.example.com'
let w: McpWorld
let agent: string

beforeAll(async () => {
  w = await startMcpWorld({ env: { AGENTBOX_PUBLIC_URL: PUBLIC } })
  agent = await agentWithEcho(w)
})
afterAll(() => w.stop())

const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }

describe('AGENTBOX_PUBLIC_URL', () => {
  test('the 401 challenge, both metadata documents and MCP app URLs name the public origin', async () => {
    const denied = await rpc(`${w.base}/agent/${agent}/mcp`, null, listTools)
    expect(denied.headers.get('www-authenticate')).toStartWith(`Bearer resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/agent/${agent}/mcp"`)
    const prm = await (await fetch(`${w.base}/.well-known/oauth-protected-resource/agent/${agent}/mcp`)).json()
    expect(prm).toMatchObject({ resource: `${PUBLIC}/agent/${agent}/mcp`, authorization_servers: [PUBLIC] })
    const as = await (await fetch(`${w.base}/.well-known/oauth-authorization-server`)).json()
    expect(as).toMatchObject({ issuer: PUBLIC, token_endpoint: `${PUBLIC}/oauth/token` })
    const api = {
      openapi: '3.1.0',
      info: { title: 'Pub', version: '1' },
      paths: { '/x': { get: { operationId: 'x', responses: { '200': { description: 'ok' } } } } },
    }
    const imported = await uploadSpec(w.t, w.admin, api, { api_name: 'pub', create_mcp: 'true' })
    expect(imported.body.mcp_url).toBe(`${PUBLIC}/app/pub/mcp`)
  })

  test('a token issued for the public MCP URL works through the proxy; one for the internal URL is not issued', async () => {
    const redirect = 'http://127.0.0.1:9/callback'
    const client = await (
      await fetch(`${w.base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [redirect] }),
      })
    ).json()
    const verifier = 'w'.repeat(43)
    const challenge = new Bun.CryptoHasher('sha256').update(verifier).digest('base64url')
    const authorize = (resource: string) =>
      fetch(
        `${w.base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', resource })}`,
        { redirect: 'manual' },
      )
    const internal = new URL((await authorize(`${w.base}/agent/${agent}/mcp`)).headers.get('location')!)
    expect(internal.searchParams.get('error')).toBe('invalid_target')
    const consent = new URL((await authorize(`${PUBLIC}/agent/${agent}/mcp`)).headers.get('location')!, w.base)
    const decided = await w.t.request('POST', `/api/oauth/requests/${consent.searchParams.get('request')}`, { token: w.viewer.token, body: { approve: true } })
    const code = new URL(decided.body.redirect_to).searchParams.get('code')!
    const token = await fetch(`${w.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, client_id: client.client_id, code_verifier: verifier }),
    })
    const { access_token } = (await token.json()) as { access_token: string }
    const res = await rpc(`${w.base}/agent/${agent}/mcp`, access_token, listTools)
    expect(res.status).toBe(200)
    expect(res.body.result.tools.map((tool: any) => tool.name)).toEqual(['run_workflow', 'resume_workflow'])
  })
})
