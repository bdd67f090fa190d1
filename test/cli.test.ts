// The command line and configuration (CONTRACT §1): sub-commands, flags over env vars, one frozen config.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ConfigError, loadConfig } from '../src/config.ts'
import pkg from '../package.json' with { type: 'json' }
import { SecretStore, SecretVault } from '../src/platform/secrets/index.ts'
import { dropTestDatabase, ON_POSTGRES, testDatabaseEnv } from './helpers/database.ts'
import { startTestServer } from './helpers/server.ts'

const keyedApi = {
  openapi: '3.1.0',
  info: { title: 'Keyed', version: '1' },
  components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
  paths: { '/x': { get: { operationId: 'x', security: [{ key: [] }], responses: { '200': { description: 'ok' } } } } },
}

const run = (args: string[], env: Record<string, string> = {}) => {
  const result = Bun.spawnSync([process.execPath, 'src/main.ts', ...args], { cwd: join(import.meta.dir, '..'), env: { PATH: process.env.PATH!, ...env } })
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

describe('loadConfig', () => {
  test('defaults: serve on 0.0.0.0:8080 with ./data, production licence mode', () => {
    const config = loadConfig([], {})
    expect(config).toMatchObject({
      command: 'serve',
      port: 8080,
      host: '0.0.0.0',
      dataDir: resolve('data'),
      logLevel: 'info',
      licenseMode: 'production',
      setupToken: null,
    })
    expect(config.bodyLimit).toBe(1024 * 1024)
    expect(config.uploadBodyLimit).toBe(10 * 1024 * 1024)
    expect(config.interactionRetentionDays).toBe(365)
    expect(loadConfig([], { AGENTBOX_INTERACTION_RETENTION_DAYS: '30' }).interactionRetentionDays).toBe(30)
    expect(Object.isFrozen(config)).toBe(true)
  })

  test('flags override environment variables, which override defaults', () => {
    const env = { AGENTBOX_PORT: '9000', AGENTBOX_HOST: '127.0.0.1', AGENTBOX_DATA_DIR: '/tmp/from-env' }
    expect(loadConfig([], env)).toMatchObject({ port: 9000, host: '127.0.0.1', dataDir: '/tmp/from-env' })
    expect(loadConfig(['serve', '--port', '9100', '--host', '::1', '--data', '/tmp/from-flag'], env)).toMatchObject({
      port: 9100,
      host: '::1',
      dataDir: '/tmp/from-flag',
    })
  })

  test('systemd STATE_DIRECTORY is the data dir when nothing else names one', () => {
    expect(loadConfig([], { STATE_DIRECTORY: '/var/lib/agentbox' }).dataDir).toBe('/var/lib/agentbox')
    expect(loadConfig([], { STATE_DIRECTORY: '/var/lib/agentbox', AGENTBOX_DATA_DIR: '/elsewhere' }).dataDir).toBe('/elsewhere')
  })

  test('bad values are refused with a message naming them', () => {
    expect(() => loadConfig(['--port', '99999'], {})).toThrow(/--port/)
    expect(() => loadConfig([], { AGENTBOX_PORT: 'http' })).toThrow(/AGENTBOX_PORT/)
    expect(() => loadConfig([], { AGENTBOX_LOG_LEVEL: 'loud' })).toThrow(/AGENTBOX_LOG_LEVEL/)
    expect(() => loadConfig([], { AGENTBOX_LICENSE_MODE: 'free' })).toThrow(/AGENTBOX_LICENSE_MODE/)
    expect(() => loadConfig(['launch'], {})).toThrow(ConfigError)
    expect(() => loadConfig(['--bogus'], {})).toThrow(ConfigError)
    expect(() => loadConfig(['backup'], {})).toThrow(/backup needs a target file/)
    expect(() => loadConfig([], { AGENTBOX_INTERACTION_RETENTION_DAYS: '0' })).toThrow(/AGENTBOX_INTERACTION_RETENTION_DAYS/)
    expect(() => loadConfig([], { AGENTBOX_INTERACTION_RETENTION_DAYS: 'a year' })).toThrow(/AGENTBOX_INTERACTION_RETENTION_DAYS/)
    for (const url of ['agentbox.example.com', 'ftp://agentbox.example.com', 'https://agentbox.example.com/agentbox', 'https://u:p@agentbox.example.com'])
      expect(() => loadConfig([], { AGENTBOX_PUBLIC_URL: url })).toThrow(/AGENTBOX_PUBLIC_URL must be an http\(s\) origin/)
  })

  test('AGENTBOX_PUBLIC_URL is kept as an origin (a trailing slash dropped); unset, it is null', () => {
    expect(loadConfig([], { AGENTBOX_PUBLIC_URL: 'https://Agentbox.Example.com/' }).publicUrl).toBe('https://agentbox.example.com')
    expect(loadConfig([], {}).publicUrl).toBeNull()
  })
})

describe('agentbox sub-commands', () => {
  test('version prints the package version', () => {
    const res = run(['version'])
    expect(res.code).toBe(0)
    expect(res.stdout.trim()).toBe(`agentbox ${pkg.version}`)
  })

  test('help and --help list the sub-commands', () => {
    for (const args of [['help'], ['--help']]) {
      const res = run(args)
      expect(res.code).toBe(0)
      for (const word of ['serve', 'backup', 'version', 'AGENTBOX_PORT']) expect(res.stdout).toContain(word)
    }
  })

  test('an unknown command exits 2 with a hint on stderr', () => {
    const res = run(['frobnicate'])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('unknown command "frobnicate"')
    expect(res.stdout).toBe('')
  })

  test('backup of a data dir without a database exits 1 and creates nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentbox-cli-'))
    try {
      const res = run(['backup', join(dir, 'out.db'), '--data', dir])
      expect(res.code).toBe(1)
      expect(res.stderr).toContain('no database')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('backup writes FILE and FILE.keys 0600 even under umask 022, leaving no temporary files (issue 14, item 16)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentbox-cli-'))
    try {
      const data = join(dir, 'data')
      mkdirSync(join(data, 'secrets'), { recursive: true })
      const db = new Database(join(data, 'agentbox.db'))
      db.run('CREATE TABLE t (x TEXT)')
      db.run("INSERT INTO t VALUES ('kept')")
      db.close()
      writeFileSync(join(data, 'secrets', 'credentials.key'), '{"keys":"not a real keyring"}\n', { mode: 0o600 })
      const out = join(dir, 'backups', 'copy.db')
      const result = Bun.spawnSync(['sh', '-c', 'umask 022 && exec "$0" src/main.ts backup "$1" --data "$2"', process.execPath, out, data], {
        cwd: join(import.meta.dir, '..'),
        env: { PATH: process.env.PATH! },
      })
      expect(result.stderr.toString()).toBe('')
      expect(result.exitCode).toBe(0)
      expect(statSync(out).mode & 0o777).toBe(0o600)
      expect(statSync(`${out}.keys`).mode & 0o777).toBe(0o600)
      expect(readFileSync(`${out}.keys`, 'utf8')).toBe('{"keys":"not a real keyring"}\n')
      const copy = new Database(out, { readonly: true })
      expect(copy.query('SELECT x FROM t').get()).toEqual({ x: 'kept' })
      copy.close()
      expect(readdirSync(join(dir, 'backups')).sort()).toEqual(['copy.db', 'copy.db.keys'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('backup of a data dir with no credentials keyring writes no FILE.keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentbox-cli-'))
    try {
      const db = new Database(join(dir, 'agentbox.db'))
      db.run('CREATE TABLE t (x TEXT)')
      db.close()
      const res = run(['backup', join(dir, 'out.db'), '--data', dir])
      expect(res.code).toBe(0)
      expect(existsSync(join(dir, 'out.db'))).toBe(true)
      expect(existsSync(join(dir, 'out.db.keys'))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('backup counts the sealed secrets of every kind it copied and checks FILE.keys opens them all (issue 27)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentbox-cli-'))
    try {
      const data = join(dir, 'data')
      const t = await startTestServer({ dataDir: data })
      const { adminToken } = await t.provision()
      // An application credential, set through the API.
      const form = new FormData()
      form.append('file', new File([JSON.stringify(keyedApi)], 'api.json', { type: 'application/json' }))
      form.append('api_name', 'keyed')
      const upload = new Response(form)
      const type = upload.headers.get('content-type')!
      const body = new Uint8Array(await upload.arrayBuffer())
      expect(
        (
          await t.request('POST', '/api/spec_from_file/', {
            token: adminToken,
            rawBody: body,
            headers: { 'content-type': type, 'content-length': String(body.byteLength) },
          })
        ).status,
      ).toBe(201)
      expect((await t.request('PUT', '/api/applications/keyed/credentials', { token: adminToken, body: { scheme: 'key', api_key: 'k-1' } })).status).toBe(200)
      // And a secret of another kind, stored the way the git sync will store its tokens.
      const vault = new SecretVault({
        db: t.server.database.db,
        files: new SecretStore(data),
        clock: t.clock,
        fetch: async () => Promise.reject(new Error('no calls')),
      })
      await vault
        .namespace({ name: 'git_repository_token', label: 'git tokens', types: ['bearer'] })
        .put(t.server.database.db, { subject: 'r', owner: 'org' }, { type: 'bearer', token: 'g-1' }, 'admin')
      await t.close()

      // On PostgreSQL the backup writes only the keys (pg_dump copies the data) and checks them against the database.
      const database = await testDatabaseEnv(data)
      const out = join(dir, 'copy.db')
      const first = run(['backup', out, '--data', data], database)
      expect(first.code).toBe(0)
      expect(first.stderr).toBe('')
      if (ON_POSTGRES) expect(first.stdout).toContain('back it up with pg_dump')
      expect(first.stdout).toContain(`sealed secrets: 1 app_credential, 1 git_repository_token; every key they need is in ${out}.keys`)

      // A keyring that lost the key (replaced by another instance's): the backup is written, and says what cannot open.
      const lost = JSON.parse(readFileSync(join(data, 'secrets', 'credentials.key'), 'utf8'))
      writeFileSync(join(data, 'secrets', 'credentials.key'), JSON.stringify({ ...lost, current: 'other', keys: [{ ...lost.keys[0], kid: 'other' }] }))
      const second = run(['backup', join(dir, 'second.db'), '--data', data], database)
      expect(second.code).toBe(0)
      expect(second.stdout).toContain('sealed secrets: 1 app_credential, 1 git_repository_token; some of their keys are missing')
      expect(second.stderr).toBe(
        `agentbox: warning: 2 sealed secret(s) (app_credential, git_repository_token) need key "${lost.current}", which secrets/credentials.key does not hold: they cannot be opened, before or after a restore, until reconnected\n`,
      )
      expect(second.stdout + second.stderr).not.toMatch(/k-1|g-1/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
      await dropTestDatabase(join(dir, 'data'))
    }
  }, 30_000)

  test('serve refuses to start on a data dir it cannot use, exit 1 with a JSON error line', () => {
    const res = run(['serve', '--data', '/proc/agentbox-cannot-write-here', '--port', '0'])
    expect(res.code).toBe(1)
    const line = JSON.parse(res.stdout.trim().split('\n').at(-1)!)
    expect(line).toMatchObject({ level: 'error', msg: 'could not start' })
  })
})
