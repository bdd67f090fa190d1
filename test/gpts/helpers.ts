// Shared by the GPT apps tests: one provisioned server (admin, members), a loopback API that echoes what it was sent,
// imported three times — shared credentials (`shared-tickets`), each user's own (`tickets`), and a shared one no GPT
// is given (`foreign`) — and an agent (`helper`) with a workflow and the shared application, published.
import { expect } from 'bun:test'
import { uploadSpec } from '../applications/helpers.ts'
import { type People, startWithPeople } from '../helpers/people.ts'
import type { StartOptions } from '../helpers/server.ts'
import { echoFlow } from '../mcp/helpers.ts'

export const ORG_KEY = 'org-credential-0123456789'

export interface GptWorld extends People {
  readonly upstream: ReturnType<typeof Bun.serve>
  /** Every request the API received, in order. */
  readonly hits: { path: string; key: string | null }[]
  stop(): Promise<void>
}

export const ticketsApi = (serverUrl: string, title: string) => ({
  openapi: '3.1.0',
  info: { title, version: '1' },
  servers: [{ url: serverUrl }],
  security: [{ key: [] }],
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
  paths: {
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        summary: 'Read a ticket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' } },
      },
      delete: {
        operationId: 'deleteTicket',
        summary: 'Delete a ticket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'gone' } },
      },
    },
  },
})

export async function startGptWorld(options: StartOptions = {}): Promise<GptWorld> {
  const hits: GptWorld['hits'] = []
  const upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname
      hits.push({ path, key: request.headers.get('x-api-key') })
      if (path.endsWith('/missing')) return Response.json({ error: 'no such ticket' }, { status: 404 })
      return Response.json({ id: path.split('/').pop(), key: request.headers.get('x-api-key') })
    },
  })
  const p = await startWithPeople({ ...options, env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1', ...options.env } })
  const base = `http://127.0.0.1:${upstream.port}`
  const imports: [string, string, Record<string, string>][] = [
    ['shared-tickets', 'Shared Tickets', { shared_security_info: 'true' }],
    ['tickets', 'Tickets', {}],
    ['foreign', 'Foreign', { shared_security_info: 'true' }],
  ]
  for (const [apiName, title, flags] of imports)
    expect((await uploadSpec(p.t, p.admin, ticketsApi(base, title), { api_name: apiName, global_spec: 'true', ...flags })).status).toBe(201)
  for (const apiName of ['shared-tickets', 'foreign'])
    expect((await p.t.request('PUT', `/api/applications/${apiName}/credentials`, { token: p.admin, body: { scheme: 'key', api_key: ORG_KEY } })).status).toBe(
      200,
    )
  // The per-user application: the admin's own credential exists, and still must never be used for a GPT.
  expect(
    (await p.t.request('PUT', '/api/applications/tickets/credentials', { token: p.admin, body: { scheme: 'key', api_key: 'admin-own-0123456789' } })).status,
  ).toBe(200)
  expect(
    (await p.t.request('POST', '/api/agents', { token: p.owner.token, body: { name: 'helper', description: 'Helps', instructions: 'Be brief.' } })).status,
  ).toBe(201)
  expect((await p.t.request('POST', '/api/workflows/helper', { token: p.owner.token, body: { name: 'echo', definition: echoFlow() } })).status).toBe(201)
  expect(
    (
      await p.t.request('PATCH', '/api/agents/helper', {
        token: p.owner.token,
        body: { applications: [{ api_name: 'foreign', operation_ids: ['getTicket'] }] },
      })
    ).status,
  ).toBe(200)
  expect((await p.t.request('POST', '/api/agents/helper/publish', { token: p.owner.token, body: {} })).status).toBe(201)
  return {
    ...p,
    upstream,
    hits,
    async stop() {
      await p.t.close()
      upstream.stop(true)
    },
  }
}

let made = 0
/** A GPT created by the admin; its record and key. */
export async function createGpt(w: People, body: Record<string, unknown> = {}): Promise<{ name: string; key: string; record: any }> {
  const res = await w.t.request('POST', '/api/gpts', {
    token: w.admin,
    body: { name: `gpt-${++made}`, description: 'Answers tickets', instructions: 'Be kind.', applications: ['shared-tickets'], visibility: 'public', ...body },
  })
  if (res.status !== 201) throw new Error(`create GPT: ${res.status} ${JSON.stringify(res.body)}`)
  return { name: res.body.name, key: res.body.api_key, record: res.body }
}

/** The recorded interactions, oldest first, once the group commit has written them. */
export async function interactions(w: People) {
  await w.t.server.modules.interactions.service.flush()
  return w.t.server.database.db.selectFrom('interactions').selectAll().orderBy('id').execute()
}
