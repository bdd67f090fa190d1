// isomorphic-git inside the compiled binary: the git worker is an entry point of the bundle, and a push and a pull of a
// template against a real git server (git http-backend on 127.0.0.1) work from the built executable, with the token
// sent as HTTP Basic credentials and kept out of the clone.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { petstore } from '../applications/helpers.ts'
import { type GitServer, HAS_GIT, startGitServer, WorkingCopy } from '../helpers/git-server.ts'
import { issueTestLicense } from '../helpers/license.ts'
import { launchServer, type RunningServer, stopAllServers } from '../helpers/process.ts'

const ROOT = resolve(import.meta.dir, '../..')
const tmp = mkdtempSync(join(tmpdir(), 'agentbox-compiled-git-'))
const BIN = join(tmp, 'agentbox')
const DATA = join(tmp, 'data')

let server: RunningServer
let git: GitServer
let token = ''

async function http(method: string, path: string, body?: unknown, raw?: { bytes: Uint8Array; type: string }) {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (raw) headers['content-type'] = raw.type
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers,
    body: raw ? (raw.bytes as Uint8Array<ArrayBuffer>) : body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : null }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

beforeAll(async () => {
  if (!HAS_GIT) return
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts'], {
    cwd: ROOT,
    env: { ...process.env, AGENTBOX_BUILD_OUTFILE: BIN },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (build.exitCode !== 0 || !existsSync(BIN)) throw new Error(`scripts/build.ts failed (exit ${build.exitCode}):\n${build.stdout}\n${build.stderr}`)
  git = await startGitServer()
  server = await launchServer({ command: [BIN], dataDir: DATA, env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  const setupToken = readFileSync(join(DATA, 'secrets', 'setup-token'), 'utf8').trim()
  token = setupToken
  const setup = await http('POST', '/api/tenant/setup', {
    license_token: issueTestLicense({ seats: 5 }),
    admin_email: 'admin@example.com',
    admin_name: 'Ada Admin',
    admin_password: 'correct horse battery',
  })
  expect(setup.status).toBe(200)
  token = setup.body.tenant_org_token
}, 180_000)

afterAll(async () => {
  await stopAllServers()
  if (HAS_GIT) await git.stop()
  rmSync(tmp, { recursive: true, force: true })
})

describe.skipIf(!HAS_GIT)('UI templates synced with git from the compiled binary', () => {
  test('push to an empty repository, a change by someone else, then a pull', async () => {
    const form = new FormData()
    form.append('file', new File([JSON.stringify(petstore())], 'spec.json', { type: 'application/json' }))
    form.append('api_name', 'pets')
    const encoded = new Response(form)
    const type = encoded.headers.get('content-type')!
    const imported = await http('POST', '/api/spec_from_file/', undefined, { bytes: new Uint8Array(await encoded.arrayBuffer()), type })
    expect(imported.status).toBe(201)
    const template = await http('POST', '/api/ui-templates/pets/operations/listPets', { html: '<!doctype html><p>compiled</p>\n', is_default: true })
    expect(template.status).toBe(201)
    await git.createRepository('compiled')
    const configured = await http('PUT', '/api/ui-templates/vcs/pets', { repo_url: git.url('compiled'), username: git.username, token: git.token })
    expect(configured.status).toBe(200)

    const pushed = await http('POST', `/api/ui-templates/vcs/sync/pets/${template.body.id}`, { direction: 'push', commit_message: 'From the binary' })
    expect(pushed.body).toMatchObject({ success: true, has_conflict: false })
    const copy = await WorkingCopy.clone(git, 'compiled')
    const htmlPath = `agentbox/pets/listPets/${template.body.id}.html`
    expect(await copy.read(htmlPath)).toBe('<!doctype html><p>compiled</p>\n')
    expect(await copy.log()).toEqual(['From the binary'])

    await copy.write(htmlPath, '<!doctype html><p>edited by a designer</p>\n')
    await copy.commitAndPush('Designer edit')
    const pulled = await http('POST', `/api/ui-templates/vcs/sync/pets/${template.body.id}`, { direction: 'pull' })
    expect(pulled.body).toMatchObject({ success: true, has_conflict: false, commit_sha: await copy.remoteHead() })
    const stored = await http('GET', `/api/ui-templates/pets/templates/${template.body.id}`)
    expect(stored.body.html).toBe('<!doctype html><p>edited by a designer</p>\n')

    // The clone is in the data dir, bare, without the token.
    const clone = join(DATA, 'git', 'pets')
    expect(existsSync(join(clone, 'HEAD'))).toBe(true)
    for (const path of filesUnder(clone)) expect(readFileSync(path).includes(git.token)).toBe(false)
    expect(server.out.text).not.toContain(git.token)
    copy.dispose()
  }, 60_000)
})
