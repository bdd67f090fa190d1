// The compiled binary end to end: built once by scripts/build.ts, spawned as a real process, driven over real HTTP.
import {
  dropTestDatabase,
  emptyTestDatabase,
  ON_POSTGRES,
  openTestReader,
  TEST_DATABASE_KIND,
  TEST_DATABASE_URL,
  testDatabaseFor,
} from '../helpers/database.ts'
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import pkg from '../../package.json' with { type: 'json' }
import { unzipSync, zipSync } from 'fflate'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { issueTestLicense } from '../helpers/license.ts'
import { MemoryOauthProvider } from '../helpers/mcp-oauth.ts'
import { startFakeServer, type FakeServer } from '../llm/fake-servers.ts'
import { TestMcpServer } from '../mcp-servers/upstream.ts'
import { launchServer, logLines, sleep, stopAllServers, stopServer, type RunningServer } from '../helpers/process.ts'

const ROOT = resolve(import.meta.dir, '../..')
const tmp = mkdtempSync(join(tmpdir(), 'agentbox-compiled-'))
// Built into the temp dir, not dist/, so a concurrent `npm run build` can never swap the file under a running test.
const BIN = join(tmp, 'agentbox')
const DATA = join(tmp, 'data')
const ADMIN = { email: 'admin@example.com', name: 'Ada Admin', password: 'correct horse battery' }
const MEMBER = { email: 'member@example.com', name: 'Max Member', password: 'another long password', role: 'member' }
const metrics: Record<string, number> = {}

const launch = (env: Record<string, string> = {}) => launchServer({ command: [BIN], dataDir: DATA, env })
const stop = stopServer
type Running = RunningServer

function rssKib(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))
  return Number(line?.match(/(\d+)/)?.[1] ?? NaN)
}

/** fetch + JSON; asserts the X-Request-Id contract on every single response. */
async function http(
  r: Running,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: RequestInit['body']; token?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(`${r.base}${path}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) })
  const text = await res.text()
  expect(res.headers.get('x-request-id')).toBeTruthy()
  let body: any = text
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: res.status, headers: res.headers, body, text }
}

const spawnCli = (...args: string[]) => {
  const p = Bun.spawnSync([BIN, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp } })
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() }
}

beforeAll(() => {
  const started = performance.now()
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts'], {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_BUILD_OUTFILE: BIN },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (build.exitCode !== 0 || !existsSync(BIN)) throw new Error(`scripts/build.ts failed (exit ${build.exitCode}):\n${build.stdout}\n${build.stderr}`)
  metrics.build_ms = Math.round(performance.now() - started)
  metrics.binary_bytes = statSync(BIN).size
}, 120_000)

afterAll(async () => {
  await stopAllServers()
  rmSync(tmp, { recursive: true, force: true })
})

describe('agentbox CLI', () => {
  test('version prints the package.json version', () => {
    const r = spawnCli('version')
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(`agentbox ${pkg.version}`)
  })

  test('help lists serve, backup and version', () => {
    for (const args of [['help'], ['--help']]) {
      const r = spawnCli(...args)
      expect(r.code).toBe(0)
      for (const word of ['serve', 'backup', 'version']) expect(r.stdout).toMatch(new RegExp(`^\\s+agentbox \\[?${word}\\b`, 'm'))
    }
  })

  test('an unknown command exits 2 and says why on stderr', () => {
    const r = spawnCli('frobnicate')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown command "frobnicate"')
  })
})

describe('agentbox serve over real HTTP (one instance, in order)', () => {
  let server: Running
  let orgToken = ''
  let adminToken = ''
  let memberId = ''
  const license = issueTestLicense({ seats: 10 })
  // Model servers on loopback speaking the real wire formats: the official SDKs stream through the guarded client.
  const models: { openai: FakeServer; anthropic: FakeServer } = { openai: startFakeServer('openai'), anthropic: startFakeServer('anthropic') }
  afterAll(async () => {
    await models.openai.close()
    await models.anthropic.close()
  })

  beforeAll(async () => {
    server = await launch({
      AGENTBOX_OPENAI_BASE_URL: models.openai.url,
      AGENTBOX_OPENAI_API_KEY: 'sk-compiled-test',
      AGENTBOX_ANTHROPIC_BASE_URL: models.anthropic.url,
      AGENTBOX_ANTHROPIC_API_KEY: 'sk-ant-compiled-test',
    })
    const health = await fetch(`${server.base}/api/health`)
    expect(health.status).toBe(200)
    metrics.cold_start_ms = Math.round(performance.now() - server.spawnedAt)
    await sleep(500)
    metrics.idle_rss_kib = rssKib(server.proc.pid)
  })

  test('first boot logs the setup link and writes secrets/setup-token 0600 in a 0700 dir, agentbox.db 0600', async () => {
    const tokenFile = join(DATA, 'secrets', 'setup-token')
    const token = readFileSync(tokenFile, 'utf8').trim()
    expect(token.length).toBeGreaterThanOrEqual(20)
    let link: Record<string, any> | undefined
    for (let i = 0; i < 100 && !link; i++, await sleep(20)) link = logLines(server).find((l) => String(l.msg).includes('/setup?token='))
    expect(link?.msg).toBe(`Open http://127.0.0.1:${server.port}/setup?token=${token} to finish setup`)
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600)
    expect(statSync(join(DATA, 'secrets')).mode & 0o777).toBe(0o700)
    // (On PostgreSQL there is no database file in the data dir.)
    for (const file of ON_POSTGRES ? [] : ['agentbox.db', 'agentbox.db-wal', 'agentbox.db-shm']) {
      if (file === 'agentbox.db' || existsSync(join(DATA, file))) expect(statSync(join(DATA, file)).mode & 0o777).toBe(0o600)
    }
  })

  const setupBody = (license_token: string) => ({ license_token, admin_email: ADMIN.email, admin_name: ADMIN.name, admin_password: ADMIN.password })
  const setupToken = () => readFileSync(join(DATA, 'secrets', 'setup-token'), 'utf8').trim()

  test('setup with a wrong setup token is 401', async () => {
    const res = await http(server, 'POST', '/api/tenant/setup', { token: 'not-the-setup-token', body: setupBody(license) })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ detail: 'Not authenticated' })
  })

  test('setup with a tampered licence is 422 license_invalid on body.license_token', async () => {
    const [header, payload, signature] = license.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    const forged = Buffer.from(JSON.stringify({ ...claims, seats: 100_000 })).toString('base64url')
    const res = await http(server, 'POST', '/api/tenant/setup', { token: setupToken(), body: setupBody(`${header}.${forged}.${signature}`) })
    expect(res.status).toBe(422)
    expect(res.body.detail).toHaveLength(1)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'license_token'], type: 'license_invalid' })
  })

  test('setup with a good licence is 200 and returns an abx_org_ token', async () => {
    const res = await http(server, 'POST', '/api/tenant/setup', { token: setupToken(), body: setupBody(license) })
    expect(res.status).toBe(200)
    expect(res.body.message).toBe('Tenant provisioned')
    expect(res.body.tenant_org_token).toMatch(/^abx_org_[A-Za-z0-9_-]{20,}$/)
    orgToken = res.body.tenant_org_token
    // The shipped server hashes at the production argon2id cost (tests in-process use a cheaper one).
    const db = await openTestReader(DATA)
    try {
      const row = await db.get<{ password_hash: string }>("SELECT password_hash FROM users WHERE kind = 'person'")
      expect(row?.password_hash).toStartWith('$argon2id$v=19$m=65536,t=2,')
    } finally {
      await db.close()
    }
  })

  test('a second setup is 409 Tenant already provisioned and the setup-token file is gone', async () => {
    const res = await http(server, 'POST', '/api/tenant/setup', { token: 'anything', body: setupBody(license) })
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ detail: 'Tenant already provisioned' })
    expect(existsSync(join(DATA, 'secrets', 'setup-token'))).toBe(false)
  })

  test('login with a wrong password is 401 Invalid credentials; the right one returns a bearer token', async () => {
    const wrong = await http(server, 'POST', '/api/auth/login', { body: { email: ADMIN.email, password: 'wrong password!!' } })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual({ detail: 'Invalid credentials' })
    const right = await http(server, 'POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } })
    expect(right.status).toBe(200)
    expect(right.body).toMatchObject({ token_type: 'bearer', expires_in: 43200 })
    adminToken = right.body.access_token
    const me = await http(server, 'GET', '/api/auth/me', { token: adminToken })
    expect(me.body).toMatchObject({ email: ADMIN.email, role: 'admin' })
  })

  test('an admin creates a member (201); the same e-mail again is 409', async () => {
    const created = await http(server, 'POST', '/api/users', { token: adminToken, body: MEMBER })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ email: MEMBER.email, role: 'member', active: true })
    memberId = created.body.id
    const again = await http(server, 'POST', '/api/users', { token: adminToken, body: MEMBER })
    expect(again.status).toBe(409)
  })

  test('a member is refused /api/users with 403', async () => {
    const login = await http(server, 'POST', '/api/auth/login', { body: { email: MEMBER.email, password: MEMBER.password } })
    expect(login.status).toBe(200)
    const res = await http(server, 'GET', '/api/users', { token: login.body.access_token })
    expect(res.status).toBe(403)
    expect(typeof res.body.detail).toBe('string')
  })

  test('model providers in the binary: a task on each SDK (OpenAI, Anthropic) streams its reply from a loopback server through the guarded client', async () => {
    for (const provider of ['openai', 'anthropic'] as const) {
      models[provider].behave({ reply: `streamed by ${provider} in pieces`, pieces: 4, usage: { input: 7, output: 5 } })
      const task = await http(server, 'POST', '/api/task', {
        token: adminToken,
        body: { name: `Compiled ${provider}`, prompt: 'Say hello.', chat_model: { provider, model: `${provider}-model` } },
      })
      expect(task.status).toBe(201)
      const run = await http(server, 'POST', `/api/task/${task.body.id}/run`, { token: adminToken })
      expect(run.status).toBe(202)
      let status = run.body.status
      for (let i = 0; i < 1200 && status === 'running'; i++) {
        await sleep(25)
        status = (await http(server, 'GET', `/api/task/${task.body.id}/runs`, { token: adminToken })).body[0].status
      }
      expect(status).toBe('succeeded')
      const thread = await http(server, 'GET', `/api/threads/${run.body.thread_id}`, { token: adminToken })
      const reply = thread.body.messages.at(-1)
      expect(reply).toMatchObject({ role: 'assistant', content: `streamed by ${provider} in pieces`, model: { provider, model: `${provider}-model` } })
      expect(reply.usage).toEqual({ input_tokens: 7, output_tokens: 5 })
      const sent = models[provider].requests.at(-1)!
      expect(sent.body.stream).toBe(true)
      expect(sent.body.model).toBe(`${provider}-model`)
    }
  })

  test('a workflow regex condition runs on RE2 (re2js bundled): a catastrophic pattern answers, a backreference is refused', async () => {
    const agent = await http(server, 'POST', '/api/agents', { token: adminToken, body: { name: 'regex-bot', description: 'd', instructions: 'i' } })
    expect(agent.status).toBe(201)
    const ifNode = (right: string) => ({ id: 'c', type: 'agentbox.if', params: { conditions: [{ left: '{{ $json.s }}', operator: 'matches_regex', right }] } })
    const definition = (right: string) => ({
      nodes: [ifNode(right), { id: 'y', type: 'agentbox.output', params: { value: 'yes' } }, { id: 'n', type: 'agentbox.output', params: { value: 'no' } }],
      connections: [
        { from: 'c', port: 'true', to: 'y' },
        { from: 'c', port: 'false', to: 'n' },
      ],
    })
    const refused = await http(server, 'POST', '/api/workflows/regex-bot', { token: adminToken, body: { name: 'bad', definition: definition('(a)\\1') } })
    expect(refused.status).toBe(422)
    const saved = await http(server, 'POST', '/api/workflows/regex-bot', { token: adminToken, body: { name: 'flow', definition: definition('^(a+)+$') } })
    expect(saved.status).toBe(201)
    const run = await http(server, 'POST', `/api/workflows/regex-bot/${saved.body.id}/run`, {
      token: adminToken,
      body: { version: 'draft', input: { s: `${'a'.repeat(5000)}!` } },
    })
    expect(run.body).toMatchObject({ status: 'succeeded', result: 'no' })
  })

  test('applications: a YAML Swagger 2.0 upload is read in the import worker (scalar parser and js-yaml bundled), arguments are checked (the budgeted checker), and a call reaches a loopback upstream opened by outbound_allow with the sealed key', async () => {
    const upstream = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => Response.json({ path: new URL(request.url).pathname, key: request.headers.get('x-key') }),
    })
    try {
      const yaml = [
        "swagger: '2.0'",
        'info: { title: Compiled Check, version: "1" }',
        `host: 127.0.0.1:${upstream.port}`,
        'schemes: [http]',
        'securityDefinitions: { k: { type: apiKey, in: header, name: X-Key } }',
        'security: [ { k: [] } ]',
        'paths:',
        '  /things/{id}:',
        '    get:',
        '      operationId: getThing',
        '      parameters: [ { name: id, in: path, required: true, type: integer } ]',
        '      responses: { 200: { description: ok, examples: { application/json: { id: 1 } } } }',
      ].join('\n')
      const form = new FormData()
      form.append('file', new File([yaml], 'api.yaml'))
      const uploaded = await http(server, 'POST', '/api/spec_from_file/', { token: adminToken, raw: form })
      expect(uploaded.status).toBe(201)
      expect(uploaded.body).toMatchObject({ api_name: 'compiled-check', openapi_version: '2.0', operations_count: 1 })
      const execute = (body: unknown) => http(server, 'POST', '/api/applications/compiled-check/operations/getThing/execute', { token: adminToken, body })
      expect((await execute({ arguments: { id: 'x' } })).body.detail[0]).toMatchObject({ loc: ['body', 'arguments', 'id'], type: 'int_type' })
      expect((await execute({ arguments: { id: 3 }, dry_run: true })).body).toMatchObject({ status: 200, body: { id: 1 } })
      expect(
        (await http(server, 'PUT', '/api/applications/compiled-check/credentials', { token: adminToken, body: { scheme: 'k', api_key: 'sealed-in-binary' } }))
          .status,
      ).toBe(200)
      expect((await execute({ arguments: { id: 3 } })).status).toBe(502)
      expect((await http(server, 'PUT', '/api/org/settings', { token: adminToken, body: { outbound_allow: ['127.0.0.1'] } })).status).toBe(200)
      const called = await execute({ arguments: { id: 3 } })
      expect(called.body).toMatchObject({ status: 200, body: { path: '/things/3', key: 'sealed-in-binary' } })
      expect(statSync(join(DATA, 'secrets', 'credentials.key')).mode & 0o777).toBe(0o600)
    } finally {
      upstream.stop(true)
    }
  })

  test('insights are computed in the insights worker inside the binary, and count the two API actions just made', async () => {
    const res = await http(server, 'GET', '/api/insights', { token: adminToken })
    expect(res.status).toBe(200)
    // The refused call (502) and the one that reached the upstream; dry runs and 422s are not recorded.
    expect(res.body.top_applications).toEqual([{ api_title: 'Compiled Check', count: 2 }])
    expect(res.body.interactions_per_day.at(-1).api_action).toBe(2)
    expect(res.body.error_rate).toBe(0.5)
    expect(res.body.duration_ms.p50).toBeGreaterThan(0)
  })

  test('GPT apps in the binary: a GPT key lists its operations, runs one against a loopback upstream with the shared credential, recorded under its name; a user token is 401 there; the Actions schema is public', async () => {
    const upstream = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => Response.json({ path: new URL(request.url).pathname, token: request.headers.get('x-desk-token') }),
    })
    try {
      const spec = {
        openapi: '3.1.0',
        info: { title: 'Desk', version: '1' },
        servers: [{ url: `http://127.0.0.1:${upstream.port}` }],
        components: { securitySchemes: { desk: { type: 'apiKey', in: 'header', name: 'X-Desk-Token' } } },
        security: [{ desk: [] }],
        paths: {
          '/tickets/{id}': {
            get: {
              operationId: 'getTicket',
              parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      }
      const form = new FormData()
      form.append('file', new File([JSON.stringify(spec)], 'desk.json'))
      form.append('api_name', 'desk')
      form.append('shared_security_info', 'true')
      expect((await http(server, 'POST', '/api/spec_from_file/', { token: adminToken, raw: form })).status).toBe(201)
      const credential = await http(server, 'PUT', '/api/applications/desk/credentials', {
        token: adminToken,
        body: { scheme: 'desk', api_key: 'org-desk-key' },
      })
      expect(credential.status).toBe(200)

      const created = await http(server, 'POST', '/api/gpts', {
        token: adminToken,
        body: { name: 'Desk GPT', description: 'Tickets', instructions: 'Quote the ticket id.', applications: ['desk'], visibility: 'public' },
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ name: 'desk-gpt', installed: true, actions_openapi_url: `${server.base}/api/gpt_public/openapi.json` })
      const key: string = created.body.api_key
      expect(key).toMatch(/^abx_gpt_/)

      const list = await http(server, 'GET', '/api/gpt_public/apps_list', { headers: { 'x-api-key': key } })
      expect(list.status).toBe(200)
      expect(list.body).toMatchObject({
        instructions: 'Quote the ticket id.',
        operations_list: [{ api_name: 'desk', operation_id: 'getTicket', method: 'GET', path: '/tickets/{id}' }],
        execute_action: 'app_execute_action',
      })
      const run = (body: unknown, headers: Record<string, string>) => http(server, 'POST', '/api/gpt_public/app_execute_action', { body, headers })
      const ran = await run({ api_name: 'desk', operation_id: 'getTicket', arguments: { id: 7 } }, { authorization: `Bearer ${key}` })
      expect(ran.status).toBe(200)
      expect(ran.body).toMatchObject({ ok: true, result: { status: 200, body: { path: '/tickets/7', token: 'org-desk-key' } } })
      expect((await run({ api_name: 'desk', operation_id: 'getTicket', arguments: { id: 'x' } }, { 'x-api-key': key })).status).toBe(422)
      expect((await run({ api_name: 'compiled-check', operation_id: 'getThing', arguments: { id: 1 } }, { 'x-api-key': key })).status).toBe(403)
      expect((await run({ api_name: 'desk', operation_id: 'getTicket', arguments: { id: 7 } }, { authorization: `Bearer ${adminToken}` })).status).toBe(401)
      expect((await http(server, 'GET', '/api/gpts/list', { headers: { authorization: `Bearer ${key}` } })).status).toBe(401)

      const history = await http(server, 'GET', '/api/interactions?client_source=desk-gpt', { token: adminToken })
      expect(history.body.items).toHaveLength(1)
      expect(history.body.items[0]).toMatchObject({ id: ran.body.interaction_id, kind: 'api_action', api_title: 'Desk', tool_name: 'getTicket', status: 200 })

      const actions = await http(server, 'GET', '/api/gpt_public/openapi.json')
      expect(actions.status).toBe(200)
      expect(actions.body.openapi).toBe('3.1.0')
      const schemes = Object.values(actions.body.components.securitySchemes)
      expect(schemes).toHaveLength(1)
      expect(schemes[0]).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' })

      expect((await http(server, 'POST', '/api/gpt/desk-gpt/uninstall', { token: adminToken })).body).toEqual({
        message: "GPT 'desk-gpt' uninstalled",
        uninstalled: true,
      })
      expect((await http(server, 'GET', '/api/gpt_public/apps_list', { headers: { 'x-api-key': key } })).status).toBe(401)
    } finally {
      upstream.stop(true)
    }
  })

  test('bundles in the binary: a built-in sample installs, fflate writes its export (read back by Info-ZIP-compatible fflate), it imports under a new name, and a link entry is refused', async () => {
    const installed = await http(server, 'POST', '/api/marketplace/builtin-incident-triage/install', { token: adminToken, body: {} })
    expect(installed.status).toBe(201)
    const exported = await fetch(`${server.base}/api/agents/incident-triage/export`, { headers: { authorization: `Bearer ${adminToken}` } })
    expect(exported.status).toBe(200)
    expect(exported.headers.get('content-type')).toBe('application/zip')
    const bytes = new Uint8Array(await exported.arrayBuffer())
    const files = unzipSync(bytes)
    expect(Object.keys(files).sort()).toEqual([
      'agent.json',
      'applications/incident-api/openapi.json',
      'manifest.json',
      'skills/severity-triage/SKILL.md',
      'workflows/triage-incident.json',
    ])
    const upload = (zip: Uint8Array, name: string) => {
      const form = new FormData()
      form.append('file', new File([zip as Uint8Array<ArrayBuffer>], 'bundle.zip', { type: 'application/zip' }))
      form.append('name', name)
      return http(server, 'POST', '/api/agents/import', { token: adminToken, raw: form })
    }
    const imported = await upload(bytes, 'triage-copy')
    expect(imported.status).toBe(201)
    expect(imported.body.imported.applications).toEqual([expect.objectContaining({ api_name: 'incident-api', action: 'reuse' })])
    const again = new Uint8Array(
      await (await fetch(`${server.base}/api/agents/triage-copy/export`, { headers: { authorization: `Bearer ${adminToken}` } })).arrayBuffer(),
    )
    const withoutManifest = (all: Record<string, Uint8Array>) => Object.entries(all).filter(([path]) => path !== 'manifest.json')
    expect(withoutManifest(unzipSync(again))).toEqual(withoutManifest(files))
    // A symbolic link entry (Unix mode 120777 in the high half of the external attributes) is refused before anything is written.
    const link = zipSync({
      'agent.json': new TextEncoder().encode('{}'),
      evil: [new TextEncoder().encode('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
    })
    const refused = await upload(link, 'linked')
    expect(refused.status).toBe(422)
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'bundle_unsafe' })
    expect((await http(server, 'GET', '/api/agents/linked', { token: adminToken })).status).toBe(404)
  })

  test("MCP: the SDK's v1 and v2 clients use an agent's live endpoint inside the binary (both protocol eras), its workflow and operation tools", async () => {
    const saved = await http(server, 'PATCH', '/api/agents/regex-bot', { token: adminToken, body: { applications: [{ api_name: 'compiled-check' }] } })
    expect(saved.status).toBe(200)
    expect((await http(server, 'POST', '/api/agents/regex-bot/publish', { token: adminToken, body: {} })).status).toBe(201)
    const url = new URL(`${server.base}/agent/regex-bot/mcp`)
    const requestInit = { headers: { authorization: `Bearer ${adminToken}` } }
    const v1 = new ClientV1({ name: 'compiled-v1', version: '1' })
    await v1.connect(new TransportV1(url, { requestInit }))
    const v2 = new ClientV2({ name: 'compiled-v2', version: '2' }, { versionNegotiation: { mode: 'auto' } })
    await v2.connect(new TransportV2(url, { requestInit }))
    for (const client of [v1, v2]) {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(['run_workflow', 'resume_workflow', 'getThing'])
      const run = (await client.callTool({ name: 'run_workflow', arguments: { workflow: 'flow', input: { s: 'aaa' } } })) as any
      expect(run.structuredContent).toMatchObject({ status: 'succeeded', result: 'yes' })
    }
    // The upstream of the previous test is gone: the operation's failure is a tool error, not a protocol error.
    const gone = (await v2.callTool({ name: 'getThing', arguments: { id: 3 } })) as any
    expect(gone.isError).toBe(true)
    await v1.close()
    await v2.close()
    const unauthenticated = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/agent/regex-bot/mcp')
  })

  test("MCP OAuth in the binary: the SDK client's own flow (discovery, registration, PKCE), consent through the console API, then calls with the token", async () => {
    const url = new URL(`${server.base}/agent/regex-bot/mcp`)
    const provider = new MemoryOauthProvider()
    const first = new TransportV1(url, { authProvider: provider })
    await expect(new ClientV1({ name: 'compiled-oauth', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    const toConsent = await fetch(provider.authorizationUrl!, { redirect: 'manual' })
    const requestId = new URL(toConsent.headers.get('location')!, server.base).searchParams.get('request')!
    const decided = await http(server, 'POST', `/api/oauth/requests/${requestId}`, { token: adminToken, body: { approve: true } })
    expect(decided.status).toBe(200)
    await first.finishAuth(new URL(decided.body.redirect_to).searchParams.get('code')!)
    const client = new ClientV1({ name: 'compiled-oauth', version: '1' })
    await client.connect(new TransportV1(url, { authProvider: provider }))
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('run_workflow')
    await client.close()
  })

  test("external MCP servers in the binary: the SDK client (@modelcontextprotocol/client) over the guarded fetch signs in with OAuth (discovery, registration, PKCE) and the gateway serves the server's tools with the member's token", async () => {
    // outbound_allow opens 127.0.0.1 since the applications test above.
    const upstream = new TestMcpServer({ auth: 'oauth' })
    try {
      const created = await http(server, 'POST', '/api/mcp-servers', { token: adminToken, body: { name: 'upstream', url: upstream.url, auth: 'oauth' } })
      expect(created.status).toBe(201)
      upstream.as!.signIn('compiled-admin')
      const started = await http(server, 'POST', '/api/mcp-servers/upstream/connect', { token: adminToken })
      expect(started.status).toBe(200)
      const back = await fetch(started.body.authorization_url, { redirect: 'manual' })
      const callback = await fetch(back.headers.get('location')!, {
        redirect: 'manual',
        headers: { cookie: (started.headers.get('set-cookie') ?? '').split(';')[0]! },
      })
      expect(callback.status).toBe(303)
      expect(callback.headers.get('location')).toBe('/mcp-servers?connected=upstream')
      const client = new ClientV2({ name: 'compiled-gateway', version: '2' }, { versionNegotiation: { mode: 'auto' } })
      await client.connect(new TransportV2(new URL(`${server.base}/mcp/gateway`), { requestInit: { headers: { authorization: `Bearer ${adminToken}` } } }))
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('upstream__whoami')
      const whoami = (await client.callTool({ name: 'upstream__whoami', arguments: {} })) as { content: { text: string }[] }
      expect(whoami.content[0]!.text).toBe('compiled-admin')
      await client.close()
      expect(upstream.callsOf('whoami')).toEqual([{ tool: 'whoami', arguments: {}, account: 'compiled-admin' }])
    } finally {
      upstream.stop()
    }
  })

  test('GET /api/health has the contract shape', async () => {
    const res = await http(server, 'GET', '/api/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    const h = res.body
    expect(['pass', 'warn']).toContain(h.status)
    expect(h.version).toBe(pkg.version)
    expect(Number.isInteger(h.uptime_s)).toBe(true)
    expect(h.provisioned).toBe(true)
    expect(h.license).toEqual({
      status: 'valid',
      mode: 'test',
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      evaluation: false,
    })
    // On the PostgreSQL run this is the binary talking to PostgreSQL through pg, bundled into it.
    expect(h.checks.database).toEqual({ status: 'pass', kind: TEST_DATABASE_KIND, latency_ms: expect.any(Number) })
    expect(h.checks.scheduler).toEqual({ status: expect.any(String), jobs: expect.any(Number), leader: true })
    expect(h.instance_id).toEqual(expect.any(String))
    expect(h.checks.disk).toEqual({ status: expect.stringMatching(/^(pass|warn)$/), free_bytes: expect.any(Number) })
    for (const probe of ['/api/health/live', '/api/health/ready']) expect((await http(server, 'GET', probe)).body).toEqual({ status: 'pass' })
  })

  test('openapi.json is 3.1.0 and documents /api/tenant/setup with a JSON request body schema', async () => {
    const res = await http(server, 'GET', '/api/openapi.json')
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe('3.1.0')
    const schema = res.body.paths['/api/tenant/setup']?.post?.requestBody?.content?.['application/json']?.schema
    expect(schema?.type).toBe('object')
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['license_token', 'admin_email', 'admin_name', 'admin_password']))
  })

  test('/api/docs serves HTML and its JS bundle from the binary, with no CDN script', async () => {
    const page = await http(server, 'GET', '/api/docs')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const scripts = [...page.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!)
    expect(scripts.length).toBeGreaterThan(0)
    const sizes: number[] = []
    for (const src of scripts) {
      expect(src).not.toMatch(/^(https?:)?\/\//)
      const js = await http(server, 'GET', src)
      expect(js.status).toBe(200)
      expect(js.headers.get('content-type')).toContain('javascript')
      sizes.push(js.text.length)
    }
    // The Swagger UI bundle, plus the small script that starts it (no inline script: the page's CSP forbids it).
    expect(Math.max(...sizes)).toBeGreaterThan(100_000)
    expect(page.text).not.toMatch(/href="(https?:)?\/\//)
  })

  test('malformed JSON is 422 json_invalid on body', async () => {
    const res = await http(server, 'POST', '/api/auth/login', { raw: '{"email": ', headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(422)
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' })
  })

  test('JSON bodies over 256 KiB are parsed in the JSON worker inside the binary: the same answers as small ones', async () => {
    const headers = { 'content-type': 'application/json' }
    const pad = 'x'.repeat(400 * 1024)
    const malformed = await http(server, 'POST', '/api/auth/login', { raw: `{"email":"${pad}"} trailing`, headers })
    expect(malformed.status).toBe(422)
    expect(malformed.body).toEqual((await http(server, 'POST', '/api/auth/login', { raw: '{"email":"x"} trailing', headers })).body)
    const notObject = await http(server, 'POST', '/api/auth/login', { raw: JSON.stringify([pad]), headers })
    expect(notObject.body.detail[0]).toMatchObject({ loc: ['body'], msg: 'Input should be an object', type: 'model_type' })
    // A well-formed large body reaches the route, whose schema answers.
    const parsed = await http(server, 'POST', '/api/auth/login', { raw: JSON.stringify({ email: pad, password: 'y' }), headers })
    expect(parsed.status).toBe(422)
    expect(parsed.body.detail[0].loc).toEqual(['body', 'email'])
  })

  test('a 2 MiB body is 413', async () => {
    const res = await http(server, 'POST', '/api/auth/login', {
      raw: JSON.stringify({ email: 'x'.repeat(2 * 1024 * 1024), password: 'y' }),
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(413)
    expect(typeof res.body.detail).toBe('string')
  })

  test('an 11 MiB body gets the contract 413 JSON with a request id, not the runtime bare 413', async () => {
    const res = await http(server, 'POST', '/api/auth/login', { raw: 'x'.repeat(11 * 1024 * 1024), headers: { 'content-type': 'application/json' } })
    expect(res.status).toBe(413)
    expect(res.body).toEqual({ detail: 'Request body too large' })
  })

  test('an unknown route is 404 JSON', async () => {
    const res = await http(server, 'GET', '/api/no-such-thing')
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(res.body).toEqual({ detail: 'Not Found' })
  })

  test('every response carries X-Request-Id, echoed when the client sends one', async () => {
    for (const [method, path] of [
      ['GET', '/api/health'],
      ['GET', '/api/nope'],
      ['GET', '/api/users'],
      ['POST', '/api/auth/login'],
    ]) {
      const res = await http(server, method!, path!, { headers: { 'x-request-id': 'trace-abc-123' }, body: method === 'POST' ? {} : undefined })
      expect(res.headers.get('x-request-id')).toBe('trace-abc-123')
    }
  })

  test('SIGTERM lets an in-flight request finish, then exits 0 within 10 s and logs JSON lines', async () => {
    // A login spends ~100-250 ms in argon2: SIGTERM lands while it is being served.
    const inFlight = http(server, 'POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } })
    await sleep(50)
    const code = await stop(server, 'SIGTERM')
    expect(code).toBe(0)
    expect((await inFlight).status).toBe(200)
    const lines = logLines(server)
    expect(lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM')).toBe(true)
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'stopped', time: expect.any(String) })
    expect(
      server.out.text
        .split('\n')
        .filter(Boolean)
        .every((l) => l.startsWith('{')),
    ).toBe(true)
  })

  test('a restart on the same data dir is still provisioned; logins, the member and the org token still work', async () => {
    server = await launch()
    const health = await http(server, 'GET', '/api/health')
    metrics.restart_to_health_ms = Math.round(performance.now() - server.spawnedAt)
    expect(health.body.provisioned).toBe(true)
    expect((await http(server, 'POST', '/api/tenant/setup', { token: 'x', body: {} })).status).toBe(409)
    const login = await http(server, 'POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } })
    expect(login.status).toBe(200)
    adminToken = login.body.access_token
    const users = await http(server, 'GET', '/api/users', { token: adminToken })
    expect(users.body.map((u: any) => u.email)).toContain(MEMBER.email)
    const member = await http(server, 'POST', '/api/auth/login', { body: { email: MEMBER.email, password: MEMBER.password } })
    expect((await http(server, 'GET', '/api/auth/me', { token: member.body.access_token })).body).toMatchObject({ id: memberId, role: 'member' })
    const org = await http(server, 'GET', '/api/auth/me', { token: orgToken })
    expect(org.status).toBe(200)
    expect(org.body.role).toBe('admin')
    expect((await http(server, 'GET', '/api/org/license', { token: orgToken })).body).toMatchObject({ seats: 10, status: 'valid' })
  })

  test.skipIf(!ON_POSTGRES)('backup FILE on PostgreSQL says to use pg_dump and writes the credential keys beside FILE', async () => {
    const target = join(tmp, 'backups', 'pg.dump')
    const r = spawnCli('backup', target, '--data', DATA, '--database-url', ((await testDatabaseFor(DATA)) as { url: string }).url)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('pg_dump')
    expect(r.stdout).toContain(`${target}.keys`)
    expect(statSync(`${target}.keys`).mode & 0o777).toBe(0o600)
  })

  test.skipIf(ON_POSTGRES)('backup FILE while the server runs writes a SQLite copy that opens and holds the users', async () => {
    const target = join(tmp, 'backups', 'copy.db')
    const writes = Array.from({ length: 5 }, (_, i) => http(server, 'POST', '/api/auth/tokens', { token: adminToken, body: { name: `during-backup-${i}` } }))
    const r = spawnCli('backup', target, '--data', DATA)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(target)
    for (const w of await Promise.all(writes)) expect(w.status).toBe(201)
    const copy = new Database(target, { readonly: true })
    try {
      expect(copy.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
      const emails = (copy.query("SELECT email FROM users WHERE kind = 'person'").all() as { email: string }[]).map((u) => u.email)
      expect(emails.sort()).toEqual([ADMIN.email, MEMBER.email].sort())
    } finally {
      copy.close()
    }
    expect((await http(server, 'GET', '/api/health')).status).toBe(200)
    metrics.idle_rss_after_traffic_kib = rssKib(server.proc.pid)
  })

  test.skipIf(ON_POSTGRES)('the checkpointer worker runs inside the binary: a token made now reaches the database file itself, not only its WAL', async () => {
    const made = await http(server, 'POST', '/api/auth/tokens', { token: adminToken, body: { name: 'checkpointed' } })
    expect(made.status).toBe(201)
    // The writer never checkpoints (wal_autocheckpoint = 0): only the worker copies the WAL into the file. A copy of the
    // file without its WAL shows what it copied; it looks for new commits every 200 ms.
    const inFileAlone = () => {
      const copy = join(tmp, 'file-alone.db')
      copyFileSync(join(DATA, 'agentbox.db'), copy)
      const connection = new Database(copy, { readonly: true })
      try {
        return connection.query("SELECT count(*) AS n FROM api_tokens WHERE name = 'checkpointed'").get() as { n: number }
      } finally {
        connection.close()
      }
    }
    let found = inFileAlone().n
    for (let i = 0; i < 100 && found === 0; i++, await sleep(50)) found = inFileAlone().n
    expect(found).toBe(1)
    expect(logLines(server).filter((l) => String(l.msg).includes('checkpointer'))).toEqual([])
  })

  test('reports compiled-metrics (binary size, cold start, idle RSS)', () => {
    expect(metrics.binary_bytes).toBeGreaterThan(1_000_000)
    console.log(`compiled-metrics: ${JSON.stringify({ ...metrics, binary_mib: Math.round((metrics.binary_bytes! / 1024 / 1024) * 10) / 10 })}`)
  })
})

describe('agentbox migrate-to-postgres in the binary', () => {
  test('refusals: a missing data directory is exit 1 with the reason, a URL that is not PostgreSQL exit 2, no password printed', () => {
    const missing = spawnCli('migrate-to-postgres', '--from', join(tmp, 'nowhere'), '--to', 'postgres://a:pw-never-printed@127.0.0.1:1/db')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`no data directory at ${join(tmp, 'nowhere')}`)
    const notPostgres = spawnCli('migrate-to-postgres', '--from', tmp, '--to', 'mysql://a:pw-never-printed@db/x')
    expect(notPostgres.code).toBe(2)
    expect(notPostgres.stderr).toContain('--to must be a PostgreSQL URL')
    expect(missing.stderr + notPostgres.stderr).not.toContain('pw-never-printed')
  })

  // The copy needs a PostgreSQL server: the suite's run on PostgreSQL gives one.
  test.skipIf(!TEST_DATABASE_URL)('an instance the binary ran on SQLite is copied by the binary and served from PostgreSQL by it', async () => {
    const dataDir = join(tmp, 'to-postgres')
    const setupToken = 'compiled-migrate-setup-token-0123456789'
    const sqlite = await launchServer({ command: [BIN], dataDir, env: { AGENTBOX_DATABASE_URL: '', AGENTBOX_SETUP_TOKEN: setupToken } })
    const setup = await http(sqlite, 'POST', '/api/tenant/setup', {
      token: setupToken,
      body: { license_token: issueTestLicense(), admin_email: ADMIN.email, admin_name: ADMIN.name, admin_password: ADMIN.password },
    })
    expect(setup.status).toBe(200)
    const admin = (await http(sqlite, 'POST', '/api/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } })).body.access_token
    expect((await http(sqlite, 'POST', '/api/users', { token: admin, body: MEMBER })).status).toBe(201)
    const recorded = await http(sqlite, 'POST', '/api/interaction/record-mcp-tool', { token: admin, body: { mcp_server_name: 'Jira', tool_name: 'search' } })
    expect(recorded.status).toBe(200)
    const users = (await http(sqlite, 'GET', '/api/users', { token: admin })).body
    expect(await stop(sqlite, 'SIGTERM')).toBe(0)

    const target = await emptyTestDatabase(join(tmp, 'to-postgres-key'))
    try {
      const url = target.kind === 'postgres' ? target.url : ''
      const copied = spawnCli('migrate-to-postgres', '--from', dataDir, '--to', url)
      expect(copied.stderr).toBe('')
      expect(copied.code).toBe(0)
      expect(copied.stdout).toMatch(/^ {2}users: 3 rows, count and checksum match$/m)
      expect(copied.stdout).toMatch(/^ {2}interactions: 1 rows, count and checksum match$/m)
      const onPostgres = await launchServer({ command: [BIN], dataDir, env: { AGENTBOX_DATABASE_URL: url } })
      expect((await http(onPostgres, 'GET', '/api/users', { token: admin })).body).toEqual(users)
      const login = await http(onPostgres, 'POST', '/api/auth/login', { body: { email: MEMBER.email, password: MEMBER.password } })
      expect(login.status).toBe(200)
      const history = (await http(onPostgres, 'GET', '/api/interactions', { token: admin })).body
      expect(history.items.map((item: { id: string }) => item.id)).toEqual([recorded.body.id])
      expect(await stop(onPostgres, 'SIGTERM')).toBe(0)
    } finally {
      await dropTestDatabase(join(tmp, 'to-postgres-key'))
    }
  })
})
