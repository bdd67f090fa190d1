// What a GPT calls with its key (issue 29, item 2): apps_list and app_execute_action, authenticated by x-api-key or a
// bearer, run through the agent toolbox with the organisation's shared credentials and recorded under the GPT's name;
// an agent's live tools for a GPT linked to it; and every refusal with its status — a wrong, missing or user's key,
// an operation outside the GPT's applications (decided before anything is looked up), bad arguments, a per-user
// application, an oversize body, too many failed keys from one address.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GPT_KEY_MAX_FAILURES, GPT_KEY_WINDOW_MS } from '../../src/modules/gpts/key-throttle.ts'
import { createGpt, type GptWorld, interactions, ORG_KEY, startGptWorld } from './helpers.ts'

let w: GptWorld
let plain: { name: string; key: string }
let linked: { name: string; key: string }
let orgAccountId: string

// Each test sends from its own address, so the failures one test provokes never throttle another.
let addresses = 0
const nextAddress = () => `192.0.2.${++addresses}`

const withKey = (key: string, address = nextAddress()) => ({ headers: { 'x-api-key': key }, clientAddress: address })
const execute = (key: string, body: unknown, address?: string) => w.t.request('POST', '/api/gpt_public/app_execute_action', { ...withKey(key, address), body })

beforeAll(async () => {
  w = await startGptWorld()
  plain = await createGpt(w, { name: 'support-gpt', instructions: 'Answer tickets politely.', applications: ['shared-tickets'] })
  linked = await createGpt(w, { name: 'helper-gpt', instructions: 'Use the helper.', applications: ['shared-tickets'], agent_name: 'helper' })
  orgAccountId = (await w.t.server.database.db.selectFrom('instance').select('org_user_id').executeTakeFirstOrThrow()).org_user_id
})
afterAll(() => w.stop())

const ticketSchema = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false }

describe('GET /api/gpt_public/apps_list', () => {
  test("the GPT's instructions and every operation of its applications, with the key in x-api-key or as a bearer", async () => {
    const expected = {
      instructions: 'Answer tickets politely.',
      operations_list: [
        { api_name: 'shared-tickets', operation_id: 'getTicket', method: 'GET', path: '/tickets/{id}', summary: 'Read a ticket', input_schema: ticketSchema },
        {
          api_name: 'shared-tickets',
          operation_id: 'deleteTicket',
          method: 'DELETE',
          path: '/tickets/{id}',
          summary: 'Delete a ticket',
          input_schema: ticketSchema,
        },
      ],
      execute_action: 'app_execute_action',
    }
    const viaHeader = await w.t.request('GET', '/api/gpt_public/apps_list', withKey(plain.key))
    expect(viaHeader.status).toBe(200)
    expect(viaHeader.body).toEqual(expected)
    const viaBearer = await w.t.request('GET', '/api/gpt_public/apps_list', { token: plain.key, clientAddress: nextAddress() })
    expect(viaBearer.body).toEqual(expected)
  })

  test("linked to an agent: the agent's run_workflow and resume_workflow (api_name = the agent), its applications' operations too, its instructions after the GPT's", async () => {
    const res = await w.t.request('GET', '/api/gpt_public/apps_list', withKey(linked.key))
    expect(res.status).toBe(200)
    expect(res.body.instructions).toBe('Use the helper.\n\nBe brief.')
    expect(
      res.body.operations_list.map((op: { api_name: string; operation_id: string; method: string }) => `${op.method} ${op.api_name} ${op.operation_id}`),
    ).toEqual([
      'TOOL helper run_workflow',
      'TOOL helper resume_workflow',
      'GET shared-tickets getTicket',
      'DELETE shared-tickets deleteTicket',
      // The agent uses only this operation of `foreign`.
      'GET foreign getTicket',
    ])
    const runWorkflow = res.body.operations_list[0]
    expect(runWorkflow).toMatchObject({ path: '/agent/helper/mcp', input_schema: { type: 'object', required: ['workflow'] } })
    expect(runWorkflow.summary).toContain("helper's workflows")
  })
})

describe('POST /api/gpt_public/app_execute_action', () => {
  test("runs with the organisation's shared credential; recorded as api_action under the application, client_source the GPT, as the organisation's account", async () => {
    const res = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'T-1' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ok: true,
      result: { status: 200, body: { id: 'T-1', key: ORG_KEY }, truncated: false, duration_ms: expect.any(Number) },
      interaction_id: expect.any(String),
    })
    expect(w.hits.at(-1)).toEqual({ path: '/tickets/T-1', key: ORG_KEY })
    const row = (await interactions(w)).find((r) => r.id === res.body.interaction_id)!
    expect(row).toMatchObject({
      kind: 'api_action',
      api_title: 'Shared Tickets',
      action: 'getTicket',
      client_source: 'support-gpt',
      user_id: orgAccountId,
      is_error: 0,
    })
    expect(JSON.parse(row.arguments!)).toEqual({ id: 'T-1' })
    // The API echoed the credential: the record masks it.
    expect(row.result).not.toContain(ORG_KEY)
    // The history and its client_source filter find it under the GPT's name.
    const history = await w.t.request('GET', '/api/interactions?client_source=support-gpt', { token: w.admin })
    expect(history.body.items.map((item: { id: string }) => item.id)).toContain(res.body.interaction_id)
  })

  test('an API error status is a result with ok false and the readable error, recorded as failed', async () => {
    const res = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'missing' } })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      ok: false,
      error: 'Shared Tickets answered 404 to getTicket: {"error":"no such ticket"}',
      interaction_id: expect.any(String),
    })
    const row = (await interactions(w)).find((r) => r.id === res.body.interaction_id)!
    expect(row).toMatchObject({ is_error: 1, client_source: 'support-gpt' })
    expect(JSON.parse(row.result!).status).toBe(404)
  })

  test("linked to an agent: its workflow runs (recorded as the agent's mcp_tool, client_source the GPT), its applications' operations with the organisation's credential", async () => {
    const run = await execute(linked.key, { api_name: 'helper', operation_id: 'run_workflow', arguments: { workflow: 'echo', input: { text: 'hi' } } })
    expect(run.status).toBe(200)
    expect(run.body).toMatchObject({ ok: true, result: { workflow_name: 'echo', status: 'succeeded', result: { echo: 'hi' } } })
    const row = (await interactions(w)).find((r) => r.id === run.body.interaction_id)!
    expect(row).toMatchObject({ kind: 'mcp_tool', api_title: 'helper', action: 'run_workflow', client_source: 'helper-gpt', user_id: orgAccountId })

    const unknownWorkflow = await execute(linked.key, { api_name: 'helper', operation_id: 'run_workflow', arguments: { workflow: 'nope' } })
    expect(unknownWorkflow.status).toBe(404)

    const agentOperation = await execute(linked.key, { api_name: 'foreign', operation_id: 'getTicket', arguments: { id: 'F-1' } })
    expect(agentOperation.body).toMatchObject({ ok: true, result: { status: 200, body: { id: 'F-1', key: ORG_KEY } } })
    // The agent uses only getTicket of `foreign`: its other operation is not offered.
    const notOffered = await execute(linked.key, { api_name: 'foreign', operation_id: 'deleteTicket', arguments: { id: 'F-1' } })
    expect(notOffered.status).toBe(404)
    expect(notOffered.body).toEqual({ detail: 'Operation not found' })
    expect(w.hits.at(-1)!.path).toBe('/tickets/F-1')
  })
})

describe('refusals', () => {
  test('401: no key, a wrong key, a key of no GPT, garbage; 401 comes before the body is validated', async () => {
    const sent: Record<string, string>[] = [
      {},
      { 'x-api-key': 'abx_gpt_wrong' },
      { 'x-api-key': `abx_gpt_${'A'.repeat(43)}` },
      { 'x-api-key': 'not a key' },
      { authorization: 'Basic abc' },
    ]
    for (const headers of sent) {
      const list = await w.t.request('GET', '/api/gpt_public/apps_list', { headers, clientAddress: nextAddress() })
      expect(list.status).toBe(401)
      expect(list.body).toEqual({ detail: 'Not authenticated' })
      expect(list.headers.get('www-authenticate')).toBe('Bearer')
      const run = await w.t.request('POST', '/api/gpt_public/app_execute_action', {
        headers,
        body: { arguments: 'not an object' },
        clientAddress: nextAddress(),
      })
      expect(run.status).toBe(401)
    }
  })

  test("401: a user's token (access token, personal token, org token), as a bearer or as x-api-key; a GPT key is refused everywhere else", async () => {
    const pat = (await w.t.request('POST', '/api/auth/tokens', { token: w.admin, body: { name: 'script' } })).body.token as string
    for (const token of [w.admin, w.owner.token, pat, w.org]) {
      expect((await w.t.request('GET', '/api/gpt_public/apps_list', { token, clientAddress: nextAddress() })).status).toBe(401)
      expect((await w.t.request('GET', '/api/gpt_public/apps_list', { headers: { 'x-api-key': token }, clientAddress: nextAddress() })).status).toBe(401)
      const run = await w.t.request('POST', '/api/gpt_public/app_execute_action', {
        token,
        body: { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'U-1' } },
        clientAddress: nextAddress(),
      })
      expect(run.status).toBe(401)
    }
    expect(w.hits.some((hit) => hit.path === '/tickets/U-1')).toBe(false)
    for (const path of ['/api/auth/me', '/api/gpts/list', '/api/applications']) expect((await w.t.request('GET', path, { token: plain.key })).status).toBe(401)
    const mcp = await w.t.request('POST', '/agent/helper/mcp', {
      token: linked.key,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    })
    expect(mcp.status).toBe(401)
  })

  test("403 outside the GPT's applications, decided before anything is looked up: a foreign operation, an unknown operation of a foreign application and an unknown application answer alike, and nothing runs or is recorded", async () => {
    const before = (await interactions(w)).length
    const hits = w.hits.length
    for (const [apiName, operationId] of [
      ['foreign', 'getTicket'],
      ['foreign', 'noSuchOperation'],
      ['no-such-application', 'anything'],
      ['tickets', 'getTicket'],
    ]) {
      const res = await execute(plain.key, { api_name: apiName, operation_id: operationId, arguments: { id: 'X-1' } })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ detail: `'${apiName}' is not one of this GPT's applications` })
    }
    // A GPT linked to an agent may use the agent's applications, and nothing else.
    expect((await execute(linked.key, { api_name: 'tickets', operation_id: 'nope', arguments: {} })).status).toBe(403)
    expect(w.hits.length).toBe(hits)
    expect((await interactions(w)).length).toBe(before)
  })

  test('404: an operation its application does not have', async () => {
    const res = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'noSuchOperation' })
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ detail: 'Operation not found' })
  })

  test('422: arguments that fail the operation schema (under body.arguments), a body that fails its own; nothing sent or recorded', async () => {
    const before = (await interactions(w)).length
    const hits = w.hits.length
    const wrongType = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 5 } })
    expect(wrongType.status).toBe(422)
    expect(wrongType.body).toEqual({ detail: [{ loc: ['body', 'arguments', 'id'], msg: 'Input should be a valid string', type: 'string_type', input: 5 }] })
    const missing = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: {} })
    expect(missing.status).toBe(422)
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'arguments', 'id'], type: 'missing' })
    const badBody = await execute(plain.key, { operation_id: 7, arguments: [] })
    expect(badBody.status).toBe(422)
    expect(badBody.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.api_name', 'body.operation_id', 'body.arguments']),
    )
    expect(w.hits.length).toBe(hits)
    expect((await interactions(w)).length).toBe(before)
  })

  test("400: an application whose calls use each user's own credentials (even one the admin has set); nothing sent or recorded", async () => {
    const perUser = await createGpt(w, { applications: ['tickets'] })
    const before = (await interactions(w)).length
    const hits = w.hits.length
    const res = await execute(perUser.key, { api_name: 'tickets', operation_id: 'getTicket', arguments: { id: 'P-1' } })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ detail: "Tickets uses each user's own credentials: only applications with shared credentials can be called here" })
    expect(w.hits.length).toBe(hits)
    expect((await interactions(w)).length).toBe(before)
  })

  test('413: a body over 1 MiB', async () => {
    const res = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'x'.repeat(1024 * 1024) } })
    expect(res.status).toBe(413)
  })

  test('an uninstalled GPT: 401 on both actions', async () => {
    const gone = await createGpt(w)
    expect((await w.t.request('POST', `/api/gpt/${gone.name}/uninstall`, { token: w.admin })).status).toBe(200)
    expect((await w.t.request('GET', '/api/gpt_public/apps_list', withKey(gone.key))).status).toBe(401)
    expect((await execute(gone.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'G-1' } })).status).toBe(401)
  })

  test('a GPT is neither a user nor a seat', async () => {
    const users = await w.t.server.database.db.selectFrom('users').select('id').execute()
    await createGpt(w)
    expect(await w.t.server.database.db.selectFrom('users').select('id').execute()).toEqual(users)
  })
})

describe('failed keys are throttled per client address', () => {
  test(`after ${GPT_KEY_MAX_FAILURES} failures in the window, 429 with Retry-After for every key from that address (an IPv6 /64 counts as one); others unaffected; over once the window passes`, async () => {
    const address = '2001:db8:1:2::1'
    for (let i = 0; i < GPT_KEY_MAX_FAILURES; i++) {
      const wrong = await w.t.request('GET', '/api/gpt_public/apps_list', withKey('abx_gpt_guess', i % 2 === 0 ? address : `2001:db8:1:2::${i}`))
      expect(wrong.status).toBe(401)
    }
    const limited = await w.t.request('GET', '/api/gpt_public/apps_list', withKey(plain.key, address))
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ detail: 'Too many failed GPT key attempts from this address; try again later' })
    expect(Number(limited.headers.get('retry-after'))).toBe(GPT_KEY_WINDOW_MS / 1000)
    const run = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'L-1' } }, '2001:db8:1:2::ffff')
    expect(run.status).toBe(429)
    expect((await w.t.request('GET', '/api/gpt_public/apps_list', withKey(plain.key, '2001:db8:1:3::1'))).status).toBe(200)

    w.t.clock.advance(GPT_KEY_WINDOW_MS / 2)
    expect(Number((await w.t.request('GET', '/api/gpt_public/apps_list', withKey(plain.key, address))).headers.get('retry-after'))).toBe(
      GPT_KEY_WINDOW_MS / 2000,
    )
    w.t.clock.advance(GPT_KEY_WINDOW_MS / 2)
    expect((await w.t.request('GET', '/api/gpt_public/apps_list', withKey(plain.key, address))).status).toBe(200)
  })
})

describe('after the licence lapses', () => {
  test('operations that change things answer 402; read-only ones still run', async () => {
    w.t.clock.advance(400 * 24 * 3600 * 1000)
    const write = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'deleteTicket', arguments: { id: 'D-1' } })
    expect(write.status).toBe(402)
    expect(w.hits.some((hit) => hit.path === '/tickets/D-1')).toBe(false)
    const read = await execute(plain.key, { api_name: 'shared-tickets', operation_id: 'getTicket', arguments: { id: 'R-1' } })
    expect(read.body).toMatchObject({ ok: true, result: { status: 200 } })
  })
})
