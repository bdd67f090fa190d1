// The Actions schema a GPT builder imports (issue 29, item 3): public, valid OpenAPI 3.1 (Redocly's recommended-strict
// rules, as for /api/openapi.json), the x-api-key scheme only, the two actions with the operation ids apps_list names,
// generated from the same schemas as the routes, and the server AGENTBOX_PUBLIC_URL or the origin asked.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { lintWithRedocly } from '../helpers/redocly.ts'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
  await t.provision()
})
afterAll(() => t.close())

const actionsSchema = async (server: TestServer, host = 'localhost', headers: Record<string, string> = {}) =>
  (await server.server.fetch(new Request(`http://${host}/api/gpt_public/openapi.json`, { headers }))).json() as Promise<Record<string, any>>

describe('GET /api/gpt_public/openapi.json', () => {
  test('public OpenAPI 3.1.0: apps_list and app_execute_action with the x-api-key scheme, served from the origin asked', async () => {
    const res = await t.request('GET', '/api/gpt_public/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const doc = res.body
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.servers).toEqual([{ url: 'http://localhost', description: 'This Agentbox server' }])
    expect(doc.components.securitySchemes).toEqual({ gpt_key: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }) })
    expect(doc.security).toEqual([{ gpt_key: [] }])
    expect(Object.keys(doc.paths)).toEqual(['/api/gpt_public/apps_list', '/api/gpt_public/app_execute_action'])
    const list = doc.paths['/api/gpt_public/apps_list'].get
    const run = doc.paths['/api/gpt_public/app_execute_action'].post
    expect([list.operationId, run.operationId]).toEqual(['apps_list', 'app_execute_action'])
    expect(list.security).toEqual([{ gpt_key: [] }])
    expect(run.requestBody.content['application/json'].schema.required).toEqual(['api_name', 'operation_id'])
    // The instructions say to call apps_list first.
    expect(doc.info.description).toContain('Call apps_list at the start of every session')
    const other = await actionsSchema(t, 'agentbox.example:8443')
    expect(other.servers[0].url).toBe('http://agentbox.example:8443')
  })

  test('its schemas are the routes’ own: the same as /api/openapi.json publishes for the two paths', async () => {
    const doc = await actionsSchema(t)
    const api = (await t.request('GET', '/api/openapi.json')).body
    for (const [path, method] of [
      ['/api/gpt_public/apps_list', 'get'],
      ['/api/gpt_public/app_execute_action', 'post'],
    ] as const) {
      const own = doc.paths[path][method]
      const published = api.paths[path][method]
      expect(own.responses['200']).toEqual(published.responses['200'])
      expect(own.requestBody).toEqual(published.requestBody)
      // The API reference names both ways a GPT's key is accepted.
      expect(published.security).toEqual([{ gpt_key: [] }, { gpt_bearer: [] }])
    }
    expect(api.components.securitySchemes.gpt_key).toEqual(doc.components.securitySchemes.gpt_key)
  })

  test('lints clean with Redocly CLI (recommended-strict, redocly.yaml), offline', async () => {
    // Served under a real host name: the linter refuses example.com and localhost servers.
    const lint = lintWithRedocly(JSON.stringify(await actionsSchema(t, 'agentbox.internal')), 'actions.json')
    expect(lint.problems).toEqual([])
    expect(lint.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 })
    expect(lint.exitCode).toBe(0)
  }, 30_000)
})

describe('behind a proxy', () => {
  let proxied: TestServer
  beforeAll(async () => {
    proxied = await startTestServer({ env: { AGENTBOX_PUBLIC_URL: 'https://agentbox.example.com' } })
  })
  afterAll(() => proxied.close())

  test('the server is AGENTBOX_PUBLIC_URL whatever Host was asked; records name the same URL', async () => {
    const doc = await actionsSchema(proxied, 'internal-host:8080')
    expect(doc.servers[0].url).toBe('https://agentbox.example.com')
    const { adminToken } = await proxied.provision()
    const created = await proxied.request('POST', '/api/gpts', {
      token: adminToken,
      body: { name: 'proxied', description: '', instructions: '', applications: [], visibility: 'public' },
    })
    expect(created.body.actions_openapi_url).toBe('https://agentbox.example.com/api/gpt_public/openapi.json')
  })
})
