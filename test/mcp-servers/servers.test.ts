// /api/mcp-servers: admins register, change and delete external MCP servers (name by the agent-name rules, URL by the
// outbound rules, 409 on a taken name); every member lists them with their own connection state; members connect a
// bearer server with their token and disconnect; nothing secret ever comes back. The upstream is a real MCP server
// built with the SDK on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { entryOf, type McpWorld, registerServer, startServersWorld } from './helpers.ts'
import { TestMcpServer } from './upstream.ts'

let w: McpWorld
let bearer: TestMcpServer
let oauth: TestMcpServer

beforeAll(async () => {
  w = await startServersWorld()
  bearer = new TestMcpServer({ auth: 'bearer', bearerTokens: { 'token-of-owner': 'owner-account' } })
  oauth = new TestMcpServer({ auth: 'oauth' })
  await registerServer(w, { name: 'Tickets', url: bearer.url, auth: 'bearer' })
  await registerServer(w, { name: 'wiki', url: oauth.url, auth: 'oauth' })
})
afterAll(async () => {
  bearer.stop()
  oauth.stop()
  await w.stop()
})

const create = (body: unknown, token = w.admin) => w.t.request('POST', '/api/mcp-servers', { token, body })
const sealedRows = (owner?: string) => {
  let query = w.t.server.database.db.selectFrom('sealed_secrets').select(['subject', 'owner', 'name']).where('namespace', '=', 'mcp_server_token')
  if (owner) query = query.where('owner', '=', owner)
  return query.execute()
}

describe('POST /api/mcp-servers', () => {
  test('an admin registers a server: 201 with its name normalised, the auth kind, and nothing secret', async () => {
    const res = await create({ name: 'Search Engine', url: bearer.url, auth: 'none' })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      name: 'search-engine',
      url: bearer.url,
      auth: 'none',
      connected: true,
      reason: null,
      connected_at: null,
      oauth_client_id: null,
      oauth_client_source: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const audit = await w.t.request('GET', '/api/audit?action=mcp_server.create', { token: w.admin })
    expect(JSON.stringify(audit.body)).toContain('search-engine')
  })

  test('a taken name is 409, also when it normalises to the same', async () => {
    const res = await create({ name: 'TICKETS', url: bearer.url, auth: 'bearer' })
    expect(res.status).toBe(409)
    expect(res.body.detail).toBe("An MCP server named 'tickets' exists")
  })

  test('a member is refused (403) and an anonymous caller is 401 before the body is read', async () => {
    expect((await create({ name: 'x', url: bearer.url, auth: 'none' }, w.owner.token)).status).toBe(403)
    const anonymous = await w.t.request('POST', '/api/mcp-servers', { body: { nonsense: true } })
    expect(anonymous.status).toBe(401)
  })

  test('every problem of the body at once: name rules, auth literal, URL', async () => {
    const res = await create({ name: '!!!', url: 'ftp://example.com/mcp', auth: 'magic' })
    expect(res.status).toBe(422)
    const locs = res.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.'))
    expect(locs).toContain('body.auth')
    const valid = await create({ name: '--', url: 'ftp://example.com/mcp', auth: 'none' })
    expect(valid.status).toBe(422)
    expect(valid.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'name'], type: 'value_error', msg: 'Server name must contain at least one letter or digit' }),
      expect.objectContaining({ loc: ['body', 'url'], type: 'value_error', msg: 'Input should be an absolute http or https URL' }),
    ])
    const odd = await create({ name: 'a!b', url: bearer.url, auth: 'none' })
    expect(odd.body.detail[0]).toMatchObject({
      loc: ['body', 'name'],
      msg: 'Server name may contain only letters a-z, digits, spaces, hyphens and underscores',
    })
    const missing = await create({ name: 'x' })
    expect(missing.status).toBe(422)
    expect(missing.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.')).sort()).toEqual(['body.auth', 'body.url'])
  })

  test('wrong types and oversize fields are 422 at their locations; a body over the 1 MiB limit is 413; nothing is saved', async () => {
    const typed = await create({ name: 7, url: ['http://example.com'], auth: 'none', oauth_client_id: false })
    expect(typed.status).toBe(422)
    expect(typed.body.detail.map((issue: { loc: string[]; type: string }) => [issue.loc.join('.'), issue.type])).toEqual(
      expect.arrayContaining([
        ['body.name', 'string_type'],
        ['body.url', 'string_type'],
        ['body.oauth_client_id', 'string_type'],
      ]),
    )
    const notObject = await create(['tickets'])
    expect(notObject.status).toBe(422)
    const long = await create({ name: 'long', url: `https://mcp.example.com/${'a'.repeat(2048)}`, auth: 'none' })
    expect(long.status).toBe(422)
    expect(long.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'string_too_long' })
    const longName = await create({ name: 'n'.repeat(65), url: bearer.url, auth: 'none' })
    expect(longName.status).toBe(422)
    expect(longName.body.detail[0]).toMatchObject({ loc: ['body', 'name'] })
    const huge = await create({ name: 'huge', url: bearer.url, auth: 'none', padding: 'x'.repeat(1024 * 1024 + 1) })
    expect(huge.status).toBe(413)
    const token = await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: 't'.repeat(8193) } })
    expect(token.status).toBe(422)
    expect(token.body.detail[0]).toMatchObject({ loc: ['body', 'token'], type: 'string_too_long' })
    const listed = await w.t.request('GET', '/api/mcp-servers', { token: w.admin })
    expect(listed.body.map((server: { name: string }) => server.name)).not.toEqual(expect.arrayContaining(['long', 'huge']))
  })

  test('an unknown server is 404 on every route that names one', async () => {
    for (const [method, path, body] of [
      ['PATCH', '/api/mcp-servers/nope', { url: bearer.url }],
      ['DELETE', '/api/mcp-servers/nope', undefined],
      ['POST', '/api/mcp-servers/nope/connect', undefined],
      ['GET', '/api/mcp-servers/nope/tools', undefined],
      ['DELETE', '/api/mcp-servers/nope/connection', undefined],
    ] as const) {
      const res = await w.t.request(method, path, { token: w.admin, ...(body && { body }) })
      expect([method, path, res.status, res.body?.detail]).toEqual([method, path, 404, 'MCP server not found'])
    }
  })

  test('a URL to a forbidden address is refused when saved (422 on url): private, link-local, credentials in the URL', async () => {
    for (const url of ['http://10.1.2.3/mcp', 'http://169.254.169.254/latest', 'http://[::1]:9/mcp', 'http://localhost:1/mcp']) {
      const res = await create({ name: 'internal', url, auth: 'none' })
      expect(res.status).toBe(422)
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'value_error' })
      expect(res.body.detail[0].msg).toStartWith('Destination not allowed')
    }
    const withUser = await create({ name: 'internal', url: 'https://user:pw@mcp.example.com/', auth: 'none' })
    expect(withUser.body.detail[0].msg).toContain('cannot carry a user name or password')
    expect((await w.t.request('GET', '/api/mcp-servers/internal', { token: w.admin })).status).toBe(404)
  })

  test('a client id only for OAuth servers, a secret only with a client id', async () => {
    const res = await create({ name: 'x', url: bearer.url, auth: 'bearer', oauth_client_id: 'abc', oauth_client_secret: 's3cret' })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.'))).toEqual(['body.oauth_client_id', 'body.oauth_client_secret'])
    expect(JSON.stringify(res.body)).not.toContain('s3cret')
    const secretAlone = await create({ name: 'x', url: oauth.url, auth: 'oauth', oauth_client_secret: 's3cret' })
    expect(secretAlone.body.detail[0].loc).toEqual(['body', 'oauth_client_secret'])
  })
})

describe('GET /api/mcp-servers', () => {
  test('every member sees every server, sorted by name, with their own connection state', async () => {
    const list = await w.t.request('GET', '/api/mcp-servers', { token: w.viewer.token })
    expect(list.status).toBe(200)
    const names = list.body.map((server: { name: string }) => server.name)
    expect(names).toEqual([...names].sort())
    expect(names).toEqual(expect.arrayContaining(['tickets', 'wiki']))
    expect(list.body.find((server: { name: string }) => server.name === 'tickets')).toMatchObject({ auth: 'bearer', connected: false, reason: null })
    expect((await w.t.request('GET', '/api/mcp-servers', {})).status).toBe(401)
  })

  test('one server by name (normalised), or 404', async () => {
    expect((await w.t.request('GET', '/api/mcp-servers/Tickets', { token: w.viewer.token })).body.name).toBe('tickets')
    const missing = await w.t.request('GET', '/api/mcp-servers/nope', { token: w.viewer.token })
    expect(missing.status).toBe(404)
    expect(missing.body.detail).toBe('MCP server not found')
  })
})

describe('bearer connections', () => {
  test("PUT …/connection stores the caller's token sealed: connected for them only, the token never returned", async () => {
    const res = await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: 'token-of-owner' } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ name: 'tickets', connected: true, reason: null, connected_at: expect.any(String) })
    expect(JSON.stringify(res.body)).not.toContain('token-of-owner')
    expect((await entryOf(w, w.owner.token, 'tickets'))?.connected).toBe(true)
    expect((await entryOf(w, w.viewer.token, 'tickets'))?.connected).toBe(false)
    const rows = await sealedRows(w.owner.id)
    expect(rows).toHaveLength(1)
    const stored = await w.t.server.database.db.selectFrom('sealed_secrets').select('sealed').where('owner', '=', w.owner.id).executeTakeFirstOrThrow()
    expect(stored.sealed).not.toContain('token-of-owner')
  })

  test('the wrong way of connecting is a 400 that says the right one; an empty token is 422', async () => {
    const onOauth = await w.t.request('PUT', '/api/mcp-servers/wiki/connection', { token: w.owner.token, body: { token: 't' } })
    expect(onOauth.status).toBe(400)
    expect(onOauth.body.detail).toBe("MCP server 'wiki' signs in with OAuth: POST /api/mcp-servers/wiki/connect")
    const connectBearer = await w.t.request('POST', '/api/mcp-servers/tickets/connect', { token: w.owner.token })
    expect(connectBearer.status).toBe(400)
    expect(connectBearer.body.detail).toBe("MCP server 'tickets' takes a bearer token: PUT /api/mcp-servers/tickets/connection")
    const onNone = await w.t.request('PUT', '/api/mcp-servers/search-engine/connection', { token: w.owner.token, body: { token: 't' } })
    expect(onNone.body.detail).toBe("MCP server 'search-engine' needs no connection")
    const empty = await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.owner.token, body: { token: '' } })
    expect(empty.status).toBe(422)
    expect(empty.body.detail[0]).toMatchObject({ loc: ['body', 'token'], type: 'string_too_short' })
    expect((await w.t.request('PUT', '/api/mcp-servers/nope/connection', { token: w.owner.token, body: { token: 't' } })).status).toBe(404)
  })

  test('DELETE …/connection forgets the token (204, also when not connected)', async () => {
    await w.t.request('PUT', '/api/mcp-servers/tickets/connection', { token: w.viewer.token, body: { token: 'viewer-token' } })
    const res = await w.t.request('DELETE', '/api/mcp-servers/tickets/connection', { token: w.viewer.token })
    expect(res.status).toBe(204)
    expect((await entryOf(w, w.viewer.token, 'tickets'))?.connected).toBe(false)
    expect(await sealedRows(w.viewer.id)).toEqual([])
    expect((await w.t.request('DELETE', '/api/mcp-servers/tickets/connection', { token: w.viewer.token })).status).toBe(204)
    // The owner's connection is untouched.
    expect((await entryOf(w, w.owner.token, 'tickets'))?.connected).toBe(true)
  })
})

describe('PATCH and DELETE /api/mcp-servers/{name}', () => {
  test('a new URL disconnects every user (their tokens were for the old one); members may not change a server', async () => {
    await create({ name: 'moving', url: bearer.url, auth: 'bearer' })
    await w.t.request('PUT', '/api/mcp-servers/moving/connection', { token: w.owner.token, body: { token: 'token-of-owner' } })
    expect((await w.t.request('PATCH', '/api/mcp-servers/moving', { token: w.owner.token, body: { url: oauth.url } })).status).toBe(403)
    const forbidden = await w.t.request('PATCH', '/api/mcp-servers/moving', { token: w.admin, body: { url: 'http://192.168.1.1/mcp' } })
    expect(forbidden.status).toBe(422)
    expect(forbidden.body.detail[0].loc).toEqual(['body', 'url'])
    const moved = await w.t.request('PATCH', '/api/mcp-servers/moving', { token: w.admin, body: { url: `${bearer.url}?v=2` } })
    expect(moved.status).toBe(200)
    expect(moved.body.url).toBe(`${bearer.url}?v=2`)
    expect((await entryOf(w, w.owner.token, 'moving'))?.connected).toBe(false)
  })

  test('an admin sets and clears an OAuth client id; the secret is never shown', async () => {
    const set = await w.t.request('PATCH', '/api/mcp-servers/wiki', {
      token: w.admin,
      body: { oauth_client_id: 'agentbox-at-wiki', oauth_client_secret: 'hush' },
    })
    expect(set.status).toBe(200)
    expect(set.body).toMatchObject({ oauth_client_id: 'agentbox-at-wiki', oauth_client_source: 'admin' })
    expect(JSON.stringify(set.body)).not.toContain('hush')
    expect(await sealedRows('org')).toEqual([expect.objectContaining({ name: 'client' })])
    const cleared = await w.t.request('PATCH', '/api/mcp-servers/wiki', { token: w.admin, body: { oauth_client_id: null } })
    expect(cleared.body).toMatchObject({ oauth_client_id: null, oauth_client_source: null })
    expect(await sealedRows('org')).toEqual([])
    const onBearer = await w.t.request('PATCH', '/api/mcp-servers/tickets', { token: w.admin, body: { oauth_client_id: 'x' } })
    expect(onBearer.status).toBe(422)
  })

  test("DELETE removes the server and every user's token with it (204), then 404", async () => {
    await create({ name: 'short-lived', url: bearer.url, auth: 'bearer' })
    for (const person of [w.owner, w.viewer])
      await w.t.request('PUT', '/api/mcp-servers/short-lived/connection', { token: person.token, body: { token: `t-${person.id}` } })
    const before = (await sealedRows()).length
    expect((await w.t.request('DELETE', '/api/mcp-servers/short-lived', { token: w.owner.token })).status).toBe(403)
    expect((await w.t.request('DELETE', '/api/mcp-servers/short-lived', { token: w.admin })).status).toBe(204)
    expect((await sealedRows()).length).toBe(before - 2)
    expect((await w.t.request('GET', '/api/mcp-servers/short-lived', { token: w.admin })).status).toBe(404)
    expect((await w.t.request('DELETE', '/api/mcp-servers/short-lived', { token: w.admin })).status).toBe(404)
    const connections = await w.t.server.database.db.selectFrom('mcp_server_connections').selectAll().execute()
    expect(connections.every((row) => row.kind === 'bearer')).toBe(true)
    expect(connections).toHaveLength(1)
  })
})
