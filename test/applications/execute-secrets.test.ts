// One masking rule at write time: an upstream on 127.0.0.1 echoes every request it gets (URL, headers, body), and the
// same operations are called through POST …/execute and an agent's MCP endpoint, and records come in through
// record-mcp-tool. No credential and no value passed under a secret-looking key may be found in any stored row or in
// the log; the HTTP and MCP rows of one call have the same arguments and the same result shape.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { agentWithEcho, connectV1, type McpWorld, startMcpWorld } from '../mcp/helpers.ts'
import { uploadSpec } from './helpers.ts'

let w: McpWorld
let upstream: ReturnType<typeof Bun.serve>
let agent: string

const CREDENTIALS = {
  hkey: 'hdr-secret-1111',
  qkey: 'query secret/2222+=',
  bearer: 'bearer-token-3333',
  basicPassword: 'basic-pass-4444',
  ckey: 'cookie-secret-5555',
}
const ARGUMENT_SECRETS = {
  password: 'arg-password-6666',
  authToken: 'arg-token-7777',
  bodyPassword: 'body-pass-8888',
  bodyToken: 'body-token-9999',
  session: 'sess-val-0000',
}
const RECORDED_SECRETS = { apiKey: 'rec-key-aaaa', bearer: 'recBearerTokenBBBB1234', url: 'rec-url-cccc', nested: 'x-secret-dddd' }
const ALL_SECRETS = [
  ...Object.values(CREDENTIALS),
  ...Object.values(ARGUMENT_SECRETS),
  ...Object.values(RECORDED_SECRETS),
  encodeURIComponent(CREDENTIALS.qkey),
  new URLSearchParams({ v: CREDENTIALS.qkey }).toString().slice(2),
  Buffer.from(`alice:${CREDENTIALS.basicPassword}`).toString('base64'),
]

const echoSecretsApi = (serverUrl: string) => ({
  openapi: '3.1.0',
  info: { title: 'Echo Secrets', version: '1' },
  servers: [{ url: serverUrl }],
  components: {
    securitySchemes: {
      hkey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      qkey: { type: 'apiKey', in: 'query', name: 'api_key' },
      bearer: { type: 'http', scheme: 'bearer' },
      basic: { type: 'http', scheme: 'basic' },
      ckey: { type: 'apiKey', in: 'cookie', name: 'sid' },
    },
  },
  paths: {
    '/echo/{id}': {
      get: {
        operationId: 'echoHeader',
        security: [{ hkey: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'password', in: 'query', schema: { type: 'string' } },
          { name: 'X-Auth-Token', in: 'header', schema: { type: 'string' } },
          { name: 'note', in: 'query', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
    '/echo-query': { get: { operationId: 'echoQuery', security: [{ qkey: [] }], responses: { '200': { description: 'ok' } } } },
    '/echo-bearer': {
      post: {
        operationId: 'echoBearer',
        security: [{ bearer: [] }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  user: { type: 'object', properties: { name: { type: 'string' }, password: { type: 'string' } } },
                  token: { type: 'string' },
                  note: { type: 'string' },
                },
              },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/echo-basic': { get: { operationId: 'echoBasic', security: [{ basic: [] }], responses: { '200': { description: 'ok' } } } },
    '/echo-cookie': {
      get: {
        operationId: 'echoCookie',
        security: [{ ckey: [] }],
        parameters: [{ name: 'session', in: 'cookie', schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
})

/** Each operation with arguments that carry secrets where an argument can be. */
const CALLS: [string, Record<string, unknown>][] = [
  ['echoHeader', { id: '1', password: ARGUMENT_SECRETS.password, 'X-Auth-Token': ARGUMENT_SECRETS.authToken, note: 'hello' }],
  ['echoQuery', {}],
  ['echoBearer', { body: { user: { name: 'alice', password: ARGUMENT_SECRETS.bodyPassword }, token: ARGUMENT_SECRETS.bodyToken, note: 'hi' } }],
  ['echoBasic', {}],
  ['echoCookie', { session: ARGUMENT_SECRETS.session }],
]

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      // What careless test APIs do: answer the whole request back.
      return Response.json({ method: request.method, url: request.url, headers: Object.fromEntries(request.headers), body: await request.text() })
    },
  })
  w = await startMcpWorld({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  expect((await uploadSpec(w.t, w.admin, echoSecretsApi(`http://127.0.0.1:${upstream.port}`), { api_name: 'echo-secrets', global_spec: 'true' })).status).toBe(
    201,
  )
  const put = (body: Record<string, string>) => w.t.request('PUT', '/api/applications/echo-secrets/credentials', { token: w.owner.token, body })
  for (const body of <Record<string, string>[]>[
    { scheme: 'hkey', api_key: CREDENTIALS.hkey },
    { scheme: 'qkey', api_key: CREDENTIALS.qkey },
    { scheme: 'bearer', token: CREDENTIALS.bearer },
    { scheme: 'basic', username: 'alice', password: CREDENTIALS.basicPassword },
    { scheme: 'ckey', api_key: CREDENTIALS.ckey },
  ])
    expect((await put(body)).status).toBe(200)
  agent = await agentWithEcho(w)
  expect((await w.t.request('PATCH', `/api/agents/${agent}`, { token: w.owner.token, body: { applications: [{ api_name: 'echo-secrets' }] } })).status).toBe(
    200,
  )
  expect((await w.t.request('POST', `/api/agents/${agent}/publish`, { token: w.owner.token, body: {} })).status).toBe(201)
})
afterAll(async () => {
  await w.stop()
  upstream.stop(true)
})

const rows = async () => {
  await w.t.server.modules.interactions.service.flush()
  return w.t.server.database.db.selectFrom('interactions').selectAll().orderBy('created_at').execute()
}

describe('one masking rule for every record', () => {
  test('HTTP execute and MCP calls of echoing operations leave no credential or secret argument in any row or log line', async () => {
    for (const [operation, args] of CALLS) {
      const res = await w.t.request('POST', `/api/applications/echo-secrets/operations/${operation}/execute`, {
        token: w.owner.token,
        body: { arguments: args },
      })
      expect(res.status).toBe(200)
      // The caller gets the upstream's answer as it is: only what is kept is masked.
      expect(res.body.status).toBe(200)
    }
    expect(
      JSON.stringify(
        (await w.t.request('POST', '/api/applications/echo-secrets/operations/echoHeader/execute', { token: w.owner.token, body: { arguments: CALLS[0]![1] } }))
          .body,
      ),
    ).toContain(CREDENTIALS.hkey)
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token, 'secret-client')
    for (const [operation, args] of CALLS) {
      const result = (await client.callTool({ name: operation, arguments: args })) as any
      expect(result.isError).toBeFalsy()
    }
    await client.close()
    const recorded = await w.t.request('POST', '/api/interaction/record-mcp-tool', {
      token: w.owner.token,
      body: {
        tool_name: 'configure',
        mcp_server_name: 'elsewhere',
        arguments: {
          config: { api_key: RECORDED_SECRETS.apiKey, headers: { Authorization: `Bearer ${RECORDED_SECRETS.bearer}` } },
          items: [{ name: 'one', client_secret: RECORDED_SECRETS.nested }],
        },
        result: {
          isError: false,
          content: [{ type: 'text', text: `used ${RECORDED_SECRETS.apiKey} at https://x.example/y?access_token=${RECORDED_SECRETS.url}&page=2` }],
        },
        user_input: `my key is ${RECORDED_SECRETS.apiKey}`,
        client_source: 'agentbox-copilot',
      },
    })
    expect(recorded.status).toBe(200)

    const all = await rows()
    expect(all.filter((row) => row.kind === 'api_action')).toHaveLength(CALLS.length + 1)
    expect(all.filter((row) => row.kind === 'mcp_tool')).toHaveLength(CALLS.length + 1)
    const stored = JSON.stringify(all)
    for (const secret of ALL_SECRETS) expect(stored).not.toContain(secret)
    const logged = w.t.log.lines.map((line) => JSON.stringify(line)).join('\n')
    for (const secret of ALL_SECRETS) expect(logged).not.toContain(secret)

    // Masked, not dropped: the keys are kept and what is not secret is readable.
    const byRecord = all.find((row) => row.action === 'configure')!
    expect(JSON.parse(byRecord.arguments!)).toEqual({
      config: { api_key: '***', headers: { Authorization: '***' } },
      items: [{ name: 'one', client_secret: '***' }],
    })
    expect(JSON.parse(byRecord.result!).content[0].text).toBe('used *** at https://x.example/y?access_token=***&page=2')
    expect(byRecord.user_input).toBe('my key is ***')
  })

  test('the HTTP and the MCP row of one call have the same arguments and result shape; only kind, title and client differ', async () => {
    const all = await rows()
    const http = all.find((row) => row.kind === 'api_action' && row.action === 'echoHeader')!
    const mcp = all.find((row) => row.kind === 'mcp_tool' && row.action === 'echoHeader')!
    expect(http).toMatchObject({ api_title: 'Echo Secrets', client_source: 'agentbox-api', is_error: 0 })
    expect(mcp).toMatchObject({ api_title: agent, client_source: 'secret-client', is_error: 0 })
    expect(JSON.parse(http.arguments!)).toEqual({ id: '1', password: '***', 'X-Auth-Token': '***', note: 'hello' })
    expect(mcp.arguments).toBe(http.arguments)
    const shape = (row: { result: string | null }) => {
      const result = JSON.parse(row.result!)
      const answer = JSON.parse(result.text)
      return {
        isError: result.isError,
        keys: Object.keys(answer),
        status: answer.status,
        echoed: { ...answer.body, headers: { ...answer.body.headers, host: 'h' } },
      }
    }
    expect(shape(mcp)).toEqual(shape(http))
    // Both keep the API's HTTP status, which the history shows as `status`.
    expect(JSON.parse(http.result!).status).toBe(200)
    expect(JSON.parse(mcp.result!).status).toBe(200)
    for (const row of [http, mcp]) {
      const item = await w.t.request('GET', `/api/interactions/${row.id}`, { token: w.owner.token })
      expect(item.body.status).toBe(200)
    }
    expect(shape(http).echoed.headers['x-api-key']).toBe('***')
    expect(shape(http).echoed.url).toContain('password=***')
    const bearer = all.find((row) => row.kind === 'mcp_tool' && row.action === 'echoBearer')!
    expect(JSON.parse(bearer.arguments!)).toEqual({ body: { user: { name: 'alice', password: '***' }, token: '***', note: 'hi' } })
  })

  test('argument problems: under ["body","arguments",…] over HTTP, relative to the arguments in a tool error', async () => {
    const http = await w.t.request('POST', '/api/applications/echo-secrets/operations/echoHeader/execute', {
      token: w.owner.token,
      body: { arguments: { id: 5, note: 7 } },
    })
    expect(http.status).toBe(422)
    expect(http.body.detail.map((issue: any) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'arguments', 'id'],
        ['body', 'arguments', 'note'],
      ]),
    )
    const client = await connectV1(`${w.base}/agent/${agent}/mcp`, w.owner.token)
    const tool = (await client.callTool({ name: 'echoHeader', arguments: { id: 5, note: 7 } })) as any
    expect(tool.isError).toBe(true)
    expect(tool.content[0].text).toMatch(/^(id|note): /)
    expect(tool.content[0].text).toContain('; ')
    expect(tool.content[0].text).not.toContain('arguments')
    const path = (await client.callTool({ name: 'echoHeader', arguments: { id: '..' } })) as any
    expect(path.content[0].text).toMatch(/^id: A path parameter cannot be/)
    await client.close()
  })
})
