// Connecting with OAuth, Agentbox as the OAuth client of an external MCP server: against a real MCP server (the SDK's)
// with its own authorization server on 127.0.0.1, driven without a browser. Discovery from the 401 (or the well-known
// path), dynamic registration once per server, PKCE S256, the resource indicator, a state bound to the user and the
// browser and used once, the code exchange with the `iss` check, tokens sealed per user; every way the callback can
// go wrong ends on the console page with a sentence, and stores nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cookieOf, entryOf, type McpWorld, registerServer, signIn, startServersWorld } from './helpers.ts'
import { TestAuthorizationServer, TestMcpServer } from './upstream.ts'

let w: McpWorld
let up: TestMcpServer

beforeAll(async () => {
  w = await startServersWorld()
  up = new TestMcpServer({ auth: 'oauth' })
  await registerServer(w, { name: 'notes', url: up.url, auth: 'oauth' })
})
afterAll(async () => {
  up.stop()
  await w.stop()
})

const db = () => w.t.server.database.db
const userSecrets = (userId: string) =>
  db().selectFrom('sealed_secrets').select(['name', 'sealed']).where('namespace', '=', 'mcp_server_token').where('owner', '=', userId).execute()
const pending = () => db().selectFrom('mcp_server_authorizations').selectAll().execute()

describe('POST /api/mcp-servers/{name}/connect and the callback', () => {
  test('end to end: discovery, one registration, PKCE S256, state, resource; the callback stores the tokens sealed and the member is connected', async () => {
    const { started, location } = await signIn(w, up, 'notes', w.owner.token, 'alice')
    expect(location.pathname).toBe('/mcp-servers')
    expect(location.searchParams.get('connected')).toBe('notes')
    expect(location.searchParams.get('error')).toBeNull()

    // The browser binding: an HttpOnly, SameSite=Lax cookie for the callback's path.
    expect(started.headers.get('set-cookie')).toMatch(/^agentbox_mcp_signin=[\w-]{43}; Path=\/api\/mcp-servers; HttpOnly; SameSite=Lax; Max-Age=600$/)
    expect(started.headers.get('cache-control')).toBe('no-store')

    const authorization = up.as!.authorizations.at(-1)!
    const url = new URL(started.body.authorization_url)
    expect(url.origin + url.pathname).toBe(`${up.as!.issuer}/authorize`)
    expect(authorization.get('response_type')).toBe('code')
    expect(authorization.get('client_id')).toBe('client-1')
    expect(authorization.get('code_challenge_method')).toBe('S256')
    expect(authorization.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(authorization.get('state')).toMatch(/^[\w-]{43}$/)
    expect(authorization.get('resource')).toBe(up.url)
    expect(authorization.get('scope')).toBe('tools')
    expect(authorization.get('redirect_uri')).toBe('http://localhost/api/mcp-servers/oauth/callback')

    const exchange = up.as!.tokenRequests.at(-1)!
    expect(exchange.get('grant_type')).toBe('authorization_code')
    expect(exchange.get('resource')).toBe(up.url)
    expect(exchange.get('code_verifier')).toMatch(/^[\w.~-]{43,128}$/)

    const entry = await entryOf(w, w.owner.token, 'notes')
    expect(entry).toMatchObject({ connected: true, reason: null, oauth_client_id: 'client-1', oauth_client_source: 'registered' })
    // Sealed: the access and refresh tokens appear nowhere in the database in clear; the verifier and state are gone.
    const [issuedAccess] = [...up.as!.access.keys()].slice(-1)
    const secrets = await userSecrets(w.owner.id)
    expect(secrets.map((row) => row.name)).toEqual([''])
    expect(secrets[0]!.sealed).not.toContain(issuedAccess!)
    expect(await pending()).toEqual([])
  })

  test("a second member's sign-in reuses the registration and gets their own tokens; neither sees the other's state", async () => {
    expect((await entryOf(w, w.viewer.token, 'notes'))?.connected).toBe(false)
    await signIn(w, up, 'notes', w.viewer.token, 'bob')
    expect(up.as!.registrations).toBe(1)
    expect((await entryOf(w, w.viewer.token, 'notes'))?.connected).toBe(true)
    expect((await entryOf(w, w.outsider.token, 'notes'))?.connected).toBe(false)
    const accounts = [...up.as!.access.values()].map((token) => token.account)
    expect(accounts).toEqual(['alice', 'bob'])
  })

  test('a state is used once: the same callback again fails and changes nothing', async () => {
    up.as!.signIn('carol')
    const started = await w.t.request('POST', '/api/mcp-servers/notes/connect', { token: w.outsider.token })
    const back = new URL((await fetch(started.body.authorization_url, { redirect: 'manual' })).headers.get('location')!)
    const path = `${back.pathname}${back.search}`
    const first = await w.t.request('GET', path, { headers: { cookie: cookieOf(started) } })
    expect(new URL(first.headers.get('location')!, 'http://x').searchParams.get('connected')).toBe('notes')
    const again = await w.t.request('GET', path, { headers: { cookie: cookieOf(started) } })
    expect(again.status).toBe(303)
    const notice = new URL(again.headers.get('location')!, 'http://x').searchParams
    expect(notice.get('error')).toBe('This sign-in is unknown or was already used: connect again')
    expect(notice.get('connected')).toBeNull()
    await w.t.request('DELETE', '/api/mcp-servers/notes/connection', { token: w.outsider.token })
  })

  test('a callback in another browser (no or another cookie) is refused and stores nothing', async () => {
    for (const cookie of ['', 'agentbox_mcp_signin=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const { location } = await signIn(w, up, 'notes', w.outsider.token, 'mallory', { cookie })
      expect(location.searchParams.get('error')).toBe('This sign-in was started in another browser: connect again from this one')
      expect(location.searchParams.get('server')).toBe('notes')
    }
    expect((await entryOf(w, w.outsider.token, 'notes'))?.connected).toBe(false)
    expect(await userSecrets(w.outsider.id)).toEqual([])
    expect(await pending()).toEqual([])
  })

  test('the person refusing at the authorization server ends with its error code on the console page', async () => {
    up.as!.denyNext()
    const { location } = await signIn(w, up, 'notes', w.outsider.token, 'mallory')
    expect(location.searchParams.get('error')).toBe('The authorization server did not authorize Agentbox (access_denied): connect again')
    expect(await userSecrets(w.outsider.id)).toEqual([])
  })

  test('an answer carrying another issuer (mix-up) is refused before the code is redeemed', async () => {
    const exchanges = up.as!.tokenRequests.length
    const { location } = await signIn(w, up, 'notes', w.outsider.token, 'mallory', {
      editCallback: (url) => url.searchParams.set('iss', 'https://evil.example'),
    })
    expect(location.searchParams.get('error')).toBe('The answer did not come from the authorization server this sign-in was sent to (iss): connect again')
    expect(up.as!.tokenRequests.length).toBe(exchanges)
  })

  test('a code the authorization server refuses, a missing code, a missing or unknown state: a sentence each, never a 500', async () => {
    const refused = await signIn(w, up, 'notes', w.outsider.token, 'mallory', { editCallback: (url) => url.searchParams.set('code', 'forged') })
    expect(refused.location.searchParams.get('error')).toBe('The authorization server refused the code (invalid_grant): connect again')
    const noCode = await signIn(w, up, 'notes', w.outsider.token, 'mallory', { editCallback: (url) => url.searchParams.delete('code') })
    expect(noCode.location.searchParams.get('error')).toBe('The answer from the authorization server has no code: connect again')
    for (const query of ['', '?state=unknown&code=x', '?error=access_denied']) {
      const res = await w.t.request('GET', `/api/mcp-servers/oauth/callback${query}`, {})
      expect(res.status).toBe(303)
      expect(new URL(res.headers.get('location')!, 'http://x').searchParams.get('error')).toMatch(/^This sign-in is unknown|has no state/)
    }
    expect(await userSecrets(w.outsider.id)).toEqual([])
  })

  test('a sign-in older than 10 minutes is refused', async () => {
    up.as!.signIn('slowpoke')
    const started = await w.t.request('POST', '/api/mcp-servers/notes/connect', { token: w.outsider.token })
    const back = new URL((await fetch(started.body.authorization_url, { redirect: 'manual' })).headers.get('location')!)
    w.t.clock.advance(10 * 60_000 + 1)
    const res = await w.t.request('GET', `${back.pathname}${back.search}`, { headers: { cookie: cookieOf(started) } })
    expect(new URL(res.headers.get('location')!, 'http://x').searchParams.get('error')).toBe('The sign-in took longer than 10 minutes: connect again')
    expect(await userSecrets(w.outsider.id)).toEqual([])
  })

  test('abandoned sign-ins and their sealed verifiers are removed once expired', async () => {
    await w.t.request('POST', '/api/mcp-servers/notes/connect', { token: w.outsider.token })
    expect((await userSecrets(w.outsider.id)).map((row) => row.name)).toEqual([expect.stringMatching(/^pkce_[0-9a-f]{64}$/)])
    expect(await w.t.server.modules.mcpServers.authorization.removeExpired()).toBe(0)
    w.t.clock.advance(10 * 60_000 + 1)
    expect(await w.t.server.modules.mcpServers.authorization.removeExpired()).toBe(1)
    expect(await userSecrets(w.outsider.id)).toEqual([])
    expect(await pending()).toEqual([])
  })

  test('disconnecting revokes the refresh token at the authorization server (RFC 7009) and forgets it', async () => {
    const before = [...up.as!.refresh.values()].filter((token) => token.account === 'bob' && !token.revoked)
    expect(before).toHaveLength(1)
    expect((await w.t.request('DELETE', '/api/mcp-servers/notes/connection', { token: w.viewer.token })).status).toBe(204)
    expect(before[0]!.revoked).toBe(true)
    expect(await userSecrets(w.viewer.id)).toEqual([])
    expect((await entryOf(w, w.viewer.token, 'notes'))?.connected).toBe(false)
  })
})

describe('discovery and clients', () => {
  test('without resource_metadata in the 401, the metadata is found at the well-known path', async () => {
    const quiet = new TestMcpServer({ auth: 'oauth', challengeWithoutMetadata: true })
    try {
      await registerServer(w, { name: 'quiet', url: quiet.url, auth: 'oauth' })
      const { location } = await signIn(w, quiet, 'quiet', w.owner.token, 'alice')
      expect(location.searchParams.get('connected')).toBe('quiet')
    } finally {
      quiet.stop()
    }
  })

  test('an authorization server without registration needs the client id an admin registered; with it, the sign-in uses it', async () => {
    const as = new TestAuthorizationServer({ registration: false })
    const closed = new TestMcpServer({ auth: 'oauth', authorizationServer: as })
    try {
      await registerServer(w, { name: 'closed', url: closed.url, auth: 'oauth' })
      const refused = await w.t.request('POST', '/api/mcp-servers/closed/connect', { token: w.owner.token })
      expect(refused.status).toBe(400)
      expect(refused.body.detail).toStartWith(
        "The authorization server of MCP server 'closed' does not offer dynamic client registration: an admin sets a client id",
      )
      as.clients.set('pre-registered', { redirect_uris: ['http://localhost/api/mcp-servers/oauth/callback'] })
      await w.t.request('PATCH', '/api/mcp-servers/closed', { token: w.admin, body: { oauth_client_id: 'pre-registered' } })
      const { location } = await signIn(w, closed, 'closed', w.owner.token, 'alice')
      expect(location.searchParams.get('connected')).toBe('closed')
      expect(as.authorizations.at(-1)!.get('client_id')).toBe('pre-registered')
    } finally {
      closed.stop()
    }
  })

  test('a server that cannot be reached, or names no authorization server: 502 with a sentence', async () => {
    const gone = new TestMcpServer({ auth: 'oauth' })
    const url = gone.url
    gone.stop()
    await registerServer(w, { name: 'gone', url, auth: 'oauth' })
    const unreachable = await w.t.request('POST', '/api/mcp-servers/gone/connect', { token: w.owner.token })
    expect(unreachable.status).toBe(502)
    expect(unreachable.body.detail).toBe("Could not sign in to MCP server 'gone': The MCP server cannot be reached")

    const open = new TestMcpServer({ auth: 'none' })
    try {
      await registerServer(w, { name: 'no-as', url: open.url, auth: 'oauth' })
      const res = await w.t.request('POST', '/api/mcp-servers/no-as/connect', { token: w.owner.token })
      expect(res.status).toBe(502)
      expect(res.body.detail).toBe(
        "Could not sign in to MCP server 'no-as': it names no authorization server with OAuth metadata (RFC 8414 or OpenID Connect discovery)",
      )
    } finally {
      open.stop()
    }
  })
})
