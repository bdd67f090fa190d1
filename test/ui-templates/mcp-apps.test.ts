// UI templates served as MCP Apps with the official SDK clients: an operation tool carries `_meta.ui.resourceUri` (and
// the older `_meta["ui/resourceUri"]`) of its default template; resources/list and resources/read serve each template
// as `text/html;profile=mcp-app` with its `_meta.ui` (CSP, permissions, domain, prefersBorder) on both, never on the
// tool; a change reaches the next tools/list and resources/read; agent endpoints and MCP apps alike; the design
// endpoint's list_templates and put_template act with the HTTP API's rights and checks.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { connectV1, connectV2, type McpWorld, startMcpWorld } from '../mcp/helpers.ts'
import { page } from './helpers.ts'

let w: McpWorld

const api = (title: string) => ({
  openapi: '3.1.0',
  info: { title, version: '1' },
  servers: [{ url: 'https://api.example.com' }],
  paths: {
    '/orders': {
      get: { operationId: 'listOrders', summary: 'List orders', responses: { '200': { description: 'ok' } } },
      post: { operationId: 'createOrder', responses: { '201': { description: 'ok' } } },
    },
  },
})

const MIME = 'text/html;profile=mcp-app'
const csp = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] }
const uiMeta = {
  csp: { connectDomains: ['https://live.example.com'], frameDomains: ['https://maps.example.com'] },
  permissions: { clipboardWrite: {} },
  domain: 'orders.example.com',
  prefersBorder: true,
}
const expectedUi = {
  csp: {
    connectDomains: ['https://api.example.com', 'https://live.example.com'],
    resourceDomains: ['https://cdn.example.com'],
    frameDomains: ['https://maps.example.com'],
  },
  permissions: { clipboardWrite: {} },
  domain: 'orders.example.com',
  prefersBorder: true,
}

let defaultId = ''
let otherId = ''
const agent = 'orders-bot'

beforeAll(async () => {
  w = await startMcpWorld()
  expect((await uploadSpec(w.t, w.admin, api('Orders'), { api_name: 'orders', global_spec: 'true', create_mcp: 'true' })).status).toBe(201)
  const made = await w.t.request('POST', '/api/ui-templates/orders/operations/listOrders', {
    token: w.admin,
    body: { html: page('orders'), is_default: true, csp_config: csp, ui_meta: uiMeta },
  })
  expect(made.status).toBe(201)
  defaultId = made.body.id
  otherId = (await w.t.request('POST', '/api/ui-templates/orders/operations/listOrders', { token: w.admin, body: { html: page('compact'), type: 'compact' } }))
    .body.id
  const created = await w.t.request('POST', '/api/agents', { token: w.owner.token, body: { name: agent, description: 'Orders', instructions: 'Help.' } })
  expect(created.status).toBe(201)
  expect((await w.t.request('PATCH', `/api/agents/${agent}`, { token: w.owner.token, body: { applications: [{ api_name: 'orders' }] } })).status).toBe(200)
  expect((await w.t.request('POST', `/api/agents/${agent}/publish`, { token: w.owner.token, body: {} })).status).toBe(201)
})
afterAll(() => w.stop())

const uri = (id: string, operation = 'listOrders') => `ui://orders/${operation}/${id}`

describe('an agent endpoint (v1 and v2 SDK clients)', () => {
  test("tools/list: the operation's tool points at its default template; _meta.ui on the tool holds nothing else", async () => {
    for (const connect of [connectV1, connectV2]) {
      const client = await connect(`${w.base}/agent/${agent}/mcp`, w.owner.token)
      const tools = (await client.listTools()).tools
      const listOrders = tools.find((tool) => tool.name === 'listOrders')!
      expect(listOrders._meta).toMatchObject({ ui: { resourceUri: uri(defaultId) }, 'ui/resourceUri': uri(defaultId) })
      expect(Object.keys((listOrders._meta as { ui: object }).ui)).toEqual(['resourceUri'])
      const createOrder = tools.find((tool) => tool.name === 'createOrder')!
      expect(createOrder._meta?.ui).toBeUndefined()
      await client.close()
    }
  })

  test('resources/list and resources/read: the templates as text/html;profile=mcp-app, _meta.ui on the entry and on the content', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    const resources = (await client.listResources()).resources
    const templates = resources.filter((resource) => resource.uri.startsWith('ui://'))
    expect(templates.map((resource) => resource.uri)).toEqual([uri(defaultId), uri(otherId)])
    expect(templates[0]).toMatchObject({ mimeType: MIME, _meta: { ui: expectedUi } })
    const read = await client.readResource({ uri: uri(defaultId) })
    expect(read.contents).toEqual([{ uri: uri(defaultId), mimeType: MIME, text: page('orders'), _meta: { ui: expectedUi } }])
    const v2 = await connectV2(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    const readV2 = await v2.readResource({ uri: uri(otherId) })
    expect(readV2.contents[0]).toMatchObject({ mimeType: MIME, text: page('compact') })
    await client.close()
    await v2.close()
  })

  test('a change reaches the next tools/list and resources/read; a deleted template is an unknown resource', async () => {
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    await client.listTools()
    expect(
      (await w.t.request('PUT', `/api/ui-templates/orders/templates/${otherId}`, { token: w.admin, body: { html: page('new look'), is_default: true } }))
        .status,
    ).toBe(200)
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'listOrders')!
    expect(listed._meta).toMatchObject({ ui: { resourceUri: uri(otherId) } })
    expect((await client.readResource({ uri: uri(otherId) })).contents[0]).toMatchObject({ text: page('new look') })
    // Back as it was.
    await w.t.request('PUT', `/api/ui-templates/orders/templates/${defaultId}`, { token: w.admin, body: { is_default: true } })
    const gone = (await w.t.request('POST', '/api/ui-templates/orders/operations/createOrder', { token: w.admin, body: { html: page('gone') } })).body.id
    const resources = (await client.listResources()).resources.map((resource) => resource.uri)
    expect(resources).toContain(uri(gone, 'createOrder'))
    expect((await w.t.request('DELETE', `/api/ui-templates/orders/templates/${gone}`, { token: w.admin })).status).toBe(204)
    await expect(client.readResource({ uri: uri(gone, 'createOrder') })).rejects.toThrow()
    expect((await client.listResources()).resources.map((resource) => resource.uri)).not.toContain(uri(gone, 'createOrder'))
    await client.close()
  })

  test('a large template is read when asked for: the kept set does not hold its HTML', async () => {
    const big = `<!doctype html><p>${'x'.repeat(900 * 1024)}</p>`
    const made = await w.t.request('POST', '/api/ui-templates/orders/operations/createOrder', { token: w.admin, body: { html: big } })
    expect(made.status).toBe(201)
    const set = await w.t.server.modules.toolbox.service.forAgent({ userId: w.owner.id, role: 'member' } as never, agent, { version: 'live', mode: 'live' })
    expect(set.resource(uri(made.body.id, 'createOrder'))).toBeDefined()
    expect(set.weight).toBeLessThan(64 * 1024)
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    expect(((await client.readResource({ uri: uri(made.body.id, 'createOrder') })).contents[0] as { text: string }).text).toBe(big)
    await client.close()
    await w.t.request('DELETE', `/api/ui-templates/orders/templates/${made.body.id}`, { token: w.admin })
  })
})

describe('an MCP app', () => {
  test('lists and reads the same templates; its tool points at the default', async () => {
    const client = await connectV2(`${w.base}/app/orders/mcp`, w.outsider.token)
    const tool = (await client.listTools()).tools.find((t) => t.name === 'listOrders')!
    expect(tool._meta).toMatchObject({ ui: { resourceUri: uri(defaultId) }, 'ui/resourceUri': uri(defaultId) })
    const entry = (await client.listResources()).resources.find((resource) => resource.uri === uri(defaultId))
    expect(entry).toMatchObject({ mimeType: MIME, _meta: { ui: expectedUi } })
    expect((await client.readResource({ uri: uri(defaultId) })).contents[0]).toMatchObject({ text: page('orders'), _meta: { ui: expectedUi } })
    await client.close()
  })

  test('a caller who cannot see the application sees neither its tools nor its templates', async () => {
    expect((await uploadSpec(w.t, w.owner.token, api('Hidden'), { api_name: 'hidden', create_mcp: 'true' })).status).toBe(201)
    const made = await w.t.request('POST', '/api/ui-templates/hidden/operations/listOrders', {
      token: w.owner.token,
      body: { html: 'secret', is_default: true },
    })
    expect(made.status).toBe(201)
    const response = await fetch(`${w.base}/app/hidden/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.outsider.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `ui://hidden/listOrders/${made.body.id}` } }),
    })
    expect(response.status).toBe(404)
  })
})

describe('the design endpoint: list_templates and put_template', () => {
  const call = async (name: string, args: Record<string, unknown>, token = w.owner.token) => {
    const client = await connectV1(`${w.base}/agent/${agent}/design/mcp`, token)
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any; content: { text: string }[] }
    await client.close()
    return result
  }

  test("list_templates reads the draft's applications' templates (HTML only when asked)", async () => {
    const listed = await call('list_templates', {})
    expect(listed.isError).toBeFalsy()
    const templates = listed.structuredContent.templates as { id: string; html?: string }[]
    expect(templates.map((t) => t.id)).toEqual(expect.arrayContaining([defaultId, otherId]))
    expect(templates.every((t) => t.html === undefined)).toBe(true)
    const withHtml = await call('list_templates', { api_name: 'orders', operation_id: 'listOrders', include_html: true })
    expect(withHtml.structuredContent.templates[0]).toMatchObject({ id: defaultId, html: page('orders') })
    const foreign = await call('list_templates', { api_name: 'hidden' })
    expect(foreign.isError).toBe(true)
  })

  test('put_template: the HTTP API rights (the owner of the agent is not the owner of the global application: forbidden)', async () => {
    const refused = await call('put_template', { api_name: 'orders', operation_id: 'listOrders', html: page('mine') })
    expect(refused.isError).toBe(true)
    expect(refused.content[0]!.text).toContain('owner')
  })

  test('put_template creates and changes templates of an application the caller owns, with the same checks', async () => {
    const own = 'own-orders'
    expect((await uploadSpec(w.t, w.owner.token, api('Own'), { api_name: own })).status).toBe(201)
    await w.t.request('PATCH', `/api/agents/${agent}`, { token: w.owner.token, body: { applications: [{ api_name: 'orders' }, { api_name: own }] } })
    const created = await call('put_template', { api_name: own, operation_id: 'listOrders', html: page('designed'), is_default: true })
    expect(created.isError).toBeFalsy()
    const id = created.structuredContent.id as string
    expect(created.structuredContent).toMatchObject({ application_id: own, is_default: true, resource_uri: `ui://${own}/listOrders/${id}` })
    const changed = await call('put_template', { api_name: own, operation_id: 'listOrders', template_id: id, type: 'card' })
    expect(changed.structuredContent).toMatchObject({ id, type: 'card', html: page('designed') })
    const bad = await call('put_template', { api_name: own, operation_id: 'listOrders', html: 'x', template_format: 'jinja' })
    expect(bad.isError).toBe(true)
    const noHtml = await call('put_template', { api_name: own, operation_id: 'listOrders' })
    expect(noHtml.isError).toBe(true)
    const unknownOp = await call('put_template', { api_name: own, operation_id: 'nope', html: 'x' })
    expect(unknownOp.isError).toBe(true)
    // Templates belong to the application: the HTTP API sees the tool's work at once, no publish needed.
    const http = await w.t.request('GET', `/api/ui-templates/${own}/operations/listOrders`, { token: w.owner.token })
    expect(http.body.templates[0]).toMatchObject({ id, type: 'card' })
  })
})
