// Diagnostic, not part of `npm run bench`: in-process costs of the pieces on the per-request path of the HTTP bench
// (auth lookups, response encoding, access log, request id), to explain where http.ts's time goes. One process, pinned to
// CPU 0 when taskset exists; each figure is the median of 5 timed loops, in µs per operation.
//
//   bun scripts/bench/http-breakdown.ts
import type { SqliteHandle } from '../../src/platform/db/database.ts'
import { Database } from 'bun:sqlite'
import { mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { t } from 'elysia'
import { loadConfig } from '../../src/config.ts'
import { createAuthenticator } from '../../src/modules/auth/authenticator.ts'
import { ACCESS_TOKEN_KEY_FILE } from '../../src/modules/tenant/service.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { beginRequest } from '../../src/platform/http/request-context.ts'
import { sha256Hex } from '../../src/platform/ids.ts'
import { createLogger } from '../../src/platform/log.ts'
import { SecretStore } from '../../src/platform/secrets/secret-files.ts'
import { createServer } from '../../src/server.ts'
import { benchLicense } from './lib.ts'

const taskset = Bun.which('taskset')
if (taskset) Bun.spawnSync([taskset, '-a', '-p', '-c', '0', String(process.pid)], { stdout: 'ignore', stderr: 'ignore' })

const results: [string, number][] = []
async function time(name: string, fn: () => unknown, n = 20_000): Promise<void> {
  for (let i = 0; i < 2_000; i++) await fn()
  const loops: number[] = []
  for (let rep = 0; rep < 5; rep++) {
    const t0 = performance.now()
    for (let i = 0; i < n; i++) await fn()
    loops.push(((performance.now() - t0) * 1000) / n)
  }
  loops.sort((a, b) => a - b)
  results.push([name, loops[2]!])
  console.log(`${name.padEnd(72)} ${loops[2]!.toFixed(2).padStart(7)} µs`)
}

const dir = mkdtempSync(join(tmpdir(), 'agentbox-breakdown-'))
try {
  const logFd = openSync(join(dir, 'access.log'), 'w')
  const config = loadConfig(['serve'], { AGENTBOX_DATA_DIR: join(dir, 'data'), AGENTBOX_LICENSE_MODE: 'test', AGENTBOX_LOG_LEVEL: 'warn' })
  const server = await createServer(config, { logger: createLogger('warn', (line) => writeSync(logFd, line + '\n')) })
  const { app } = server
  // SQLite: this bench times statements on the file's read connection.
  const database = server.database as SqliteHandle
  const call = async (method: string, path: string, token?: string, body?: unknown): Promise<any> => {
    const headers: Record<string, string> = {}
    if (token) headers.authorization = `Bearer ${token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
    return response.json()
  }
  await call('POST', '/api/tenant/setup', server.setupToken!, {
    license_token: benchLicense(),
    admin_email: 'admin@example.com',
    admin_name: 'Ada Admin',
    admin_password: 'correct horse battery staple',
  })
  const { access_token: jwt } = await call('POST', '/api/auth/login', undefined, { email: 'admin@example.com', password: 'correct horse battery staple' })
  const { token: pat } = await call('POST', '/api/auth/tokens', jwt, { name: 'bench' })
  const key = Buffer.from(new SecretStore(config.dataDir).read(ACCESS_TOKEN_KEY_FILE)!, 'base64url')

  console.log('\n## Auth (src/modules/auth/authenticator.ts), on the server’s read connection (WAL, writer open)')
  const options = { db: database.db, readStatement: database.readStatement, clock: systemClock, accessTokenSecret: () => key }
  const authenticate = createAuthenticator({ ...options, changeStamp: database.changeStamp })
  // A stamp that never stands still: every call misses the principal cache, as right after any write.
  let tick = 0
  const uncached = createAuthenticator({ ...options, changeStamp: () => ++tick })
  await time('authenticate(JWT)  [cached HMAC + remembered principal, no writes since]', () => authenticate(`Bearer ${jwt}`))
  await time('authenticate(PAT)  [remembered principal, no writes since]', () => authenticate(`Bearer ${pat}`))
  await time('authenticate(JWT)  [cached HMAC + userById: the first request after a write]', () => uncached(`Bearer ${jwt}`))
  await time('authenticate(PAT)  [sha256 + token lookup: the first request after a write]', () => uncached(`Bearer ${pat}`))
  await time('  changeStamp()  [writer.inTransaction + SELECT total_changes()]', () => database.changeStamp())

  const cols = ['users.id', 'users.email', 'users.name', 'users.role', 'users.kind', 'users.active', 'users.session_version'] as const
  const joinSql = database.db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .select([...cols, 'api_tokens.id as token_id', 'api_tokens.kind as token_kind'])
    .where('api_tokens.token_hash', '=', '?')
    .where('api_tokens.revoked_at', 'is', null)
    .compile().sql
  const userSql = database.db.selectFrom('users').select(cols).where('users.id', '=', '?').compile().sql
  const colList = cols.map((c) => `"${c.replace('.', '"."')}"`).join(', ')
  const derivedSql =
    `select ${colList}, t.id as token_id, t.kind as token_kind from ` +
    `(select id, kind, user_id from api_tokens where token_hash = ? and revoked_at is null limit 1) t, users where users.id = t.user_id`
  const derivedNoLimitSql = derivedSql.replace(' limit 1', '')
  const { token_hash: hash, user_id: userId } = database.reader
    .query<{ token_hash: string; user_id: string }, []>("select token_hash, user_id from api_tokens where kind = 'pat'")
    .get()!
  const reader = database.reader
  await time('  SQL userById (one table, PK)', () => reader.query(userSql).get(userId))
  await time('  SQL PAT lookup as a plain join: api_tokens INNER JOIN users (before 6017baf)', () => reader.query(joinSql).get(hash))
  await time('  SQL PAT lookup, same columns, derived table (… LIMIT 1) t, users', () => reader.query(derivedSql).get(hash))
  await time('  SQL PAT lookup, same derived table without LIMIT 1 (SQLite flattens it)', () => reader.query(derivedNoLimitSql).get(hash))
  await time('  sha256Hex(token)  [node:crypto createHash]', () => sha256Hex(pat))

  const mem = new Database(':memory:', { strict: true })
  mem.run('create table u (id text primary key, email text, name text)')
  mem.run('create table t (id text primary key, user_id text not null, hash text not null unique, revoked_at text)')
  mem.run("insert into u values ('u1','a@b','A'),('u2','c@d','C')")
  mem.run("insert into t values ('t1','u1','h1',null),('t2','u2','h2',null)")
  const memJoin = mem.query('select u.id, u.email, u.name, t.id as tid from t join u on u.id = t.user_id where t.hash = ? and t.revoked_at is null')
  const memSub = mem.query('select u.id, u.email, u.name from u where u.id = (select user_id from t where hash = ? and revoked_at is null)')
  const memOne = mem.query('select id, user_id from t where hash = ?')
  await time('  bun:sqlite :memory: 2-row JOIN (isolates the JOIN penalty)', () => memJoin.get('h1'))
  await time('  bun:sqlite :memory: same lookup as scalar subquery', () => memSub.get('h1'))
  await time('  bun:sqlite :memory: single-table unique-index lookup', () => memOne.get('h1'))

  console.log('\n## Whole requests through app.handle (Elysia only: no socket, no request-tracking wrapper; warn level)')
  const handle = (path: string, token?: string) => () =>
    app.handle(new Request(`http://localhost${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })).then((r) => r.arrayBuffer())
  await time('GET /api/health/live', handle('/api/health/live'))
  await time('GET /api/health', handle('/api/health'))
  await time('GET /api/auth/me (JWT)', handle('/api/auth/me', jwt))
  await time('GET /api/auth/me (PAT)', handle('/api/auth/me', pat))
  // A request with a body: the body parser admits it before reading (the guard's before-body check), transform finds it admitted.
  const skill = JSON.stringify({ content: '---\nname: tiny\ndescription: A small skill for the request path.\n---\nDo the thing.\n' })
  const post = (path: string, body: string, token: string) => () =>
    app
      .handle(
        new Request(`http://localhost${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body }),
      )
      .then((r) => r.arrayBuffer())
  await time('POST /api/skill/validate (JWT, a 100-byte SKILL.md)', post('/api/skill/validate', skill, jwt))

  console.log('\n## Response encoding: Elysia’s t.Integer carries a Transform, so the whole response is Encode()d')
  const check = t.Union([t.Literal('pass'), t.Literal('warn'), t.Literal('fail')])
  const healthLike = (int: () => any) =>
    t.Object({
      status: check,
      version: t.String(),
      uptime_s: int(),
      provisioned: t.Boolean(),
      license: t.Object({ status: t.String(), mode: t.String(), expires_at: t.Union([t.String({ format: 'date-time' }), t.Null()]) }),
      checks: t.Object({
        database: t.Object({ status: check, latency_ms: t.Union([t.Number(), t.Null()]) }),
        scheduler: t.Object({ status: check, jobs: int() }),
        disk: t.Object({ status: check, free_bytes: t.Union([t.Number(), t.Null()]) }),
      }),
    })
  const report = await call('GET', '/api/health')
  const withTransform = TypeCompiler.Compile(healthLike(() => t.Integer()))
  const plain = TypeCompiler.Compile(healthLike(() => Type.Integer()))
  await time('HealthReport-shaped schema with t.Integer: Encode()', () => withTransform.Encode(report))
  await time('same schema with TypeBox Type.Integer: Check() only', () => plain.Check(report))

  console.log('\n## Platform hooks (src/platform/http)')
  const request = new Request('http://localhost/api/auth/me', { headers: { authorization: `Bearer ${jwt}` } })
  await time('beginRequest: headers.get + Bun.randomUUIDv7 + WeakMap.set', () => beginRequest(request))
  const info = createLogger('info', (line) => writeSync(logFd, line + '\n'))
  await time('access log line at info, one write(2) per line (as before 6017baf)', () =>
    info.info('request', { request_id: '019aa5c4-6f1e-7b2a-9c3d-4e5f60718293', method: 'GET', path: '/api/auth/me', status: 200, ms: 0.12 }),
  )
  const formatted = createLogger('info', () => {})
  await time('access log line at info, formatting only (the batched sink adds ~1 write per 256 lines)', () =>
    formatted.info('request', { request_id: '019aa5c4-6f1e-7b2a-9c3d-4e5f60718293', method: 'GET', path: '/api/auth/me', status: 200, ms: 0.12 }),
  )
  const warn = createLogger('warn', (line) => writeSync(logFd, line + '\n'))
  await time('same call at warn (filtered)', () => warn.info('request', { request_id: 'x', method: 'GET', path: '/api/auth/me', status: 200, ms: 0.12 }))
  await server.stop()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
