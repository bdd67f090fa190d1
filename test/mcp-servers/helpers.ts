// Shared by the external MCP server tests: an Agentbox with people, listening on loopback (for the gateway's SDK
// clients), allowed to call 127.0.0.1 the way an operator opens a host with AGENTBOX_OUTBOUND_ALLOW; registering
// servers; and the OAuth sign-in driven without a browser: the connect answer's cookie is kept like a browser keeps it,
// the authorization URL is followed with fetch (the test authorization server approves at once as the account the test
// signed in), and the redirect to the callback is sent back with that cookie.
import { expect } from 'bun:test'
import type { JsonResponse } from '../helpers/server.ts'
import { type McpWorld, startMcpWorld } from '../mcp/helpers.ts'
import type { TestMcpServer } from './upstream.ts'

export { type McpWorld, recordedCalls, rpc } from '../mcp/helpers.ts'

export function startServersWorld(options: Parameters<typeof startMcpWorld>[0] = {}): Promise<McpWorld> {
  return startMcpWorld({ ...options, env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1', ...options.env } })
}

export async function registerServer(w: McpWorld, body: Record<string, unknown>): Promise<JsonResponse> {
  const res = await w.t.request('POST', '/api/mcp-servers', { token: w.admin, body })
  expect(res.status).toBe(201)
  return res
}

/** The cookie a browser would send back: the `name=value` part of the Set-Cookie. */
export const cookieOf = (res: { headers: Headers }): string => (res.headers.get('set-cookie') ?? '').split(';')[0]!

export interface SignIn {
  /** POST …/connect */
  started: JsonResponse
  /** The callback's answer (303 to the console page). */
  callback: JsonResponse
  /** Where the callback sent the browser. */
  location: URL
}

/**
 * Connects `token`'s user to server `name` with OAuth, signing in at the authorization server as `account`. `cookie`:
 * what the browser sends to the callback (default: the cookie the connect answer set).
 */
export async function signIn(
  w: McpWorld,
  upstream: TestMcpServer,
  name: string,
  token: string,
  account: string,
  options: { cookie?: string; editCallback?: (url: URL) => void } = {},
): Promise<SignIn> {
  upstream.as!.signIn(account)
  const started = await w.t.request('POST', `/api/mcp-servers/${name}/connect`, { token })
  expect(started.status).toBe(200)
  const atServer = await fetch(started.body.authorization_url, { redirect: 'manual' })
  expect(atServer.status).toBe(302)
  const back = new URL(atServer.headers.get('location')!)
  options.editCallback?.(back)
  const callback = await w.t.request('GET', `${back.pathname}${back.search}`, { headers: { cookie: options.cookie ?? cookieOf(started) } })
  expect(callback.status).toBe(303)
  return { started, callback, location: new URL(callback.headers.get('location')!, 'http://localhost') }
}

/** The caller's entry for server `name` in GET /api/mcp-servers. */
export async function entryOf(w: McpWorld, token: string, name: string) {
  const list = await w.t.request('GET', '/api/mcp-servers', { token })
  expect(list.status).toBe(200)
  return (list.body as { name: string; connected: boolean; reason: string | null }[]).find((server) => server.name === name)
}
