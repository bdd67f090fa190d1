// Push and pull against a real git server (git http-backend behind a Basic-auth bridge on 127.0.0.1), with a second
// working copy driven by the git CLI making concurrent and conflicting changes: the first push to an empty
// repository, pushes over others' work, conflicts both ways, clean pulls, a rejected push retried, wrong tokens, an
// unreachable remote, concurrent syncs of one application, and the token kept out of logs, responses, the database
// and the clone.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ON_POSTGRES } from '../helpers/database.ts'
import { type GitServer, HAS_GIT, startGitServer, WorkingCopy } from '../helpers/git-server.ts'
import { type People, startWithPeople } from '../helpers/people.ts'
import { freePort } from '../helpers/process.ts'
import { createTemplate, ownedApplication, page } from './helpers.ts'

if (!HAS_GIT) console.warn('ui-templates sync: git http-backend is missing (apt-get install git); these tests are skipped')

let w: People
let git: GitServer
const responses: unknown[] = []
let repos = 0

beforeAll(async () => {
  if (!HAS_GIT) return
  git = await startGitServer()
  // The git server is on loopback: the operator opens it, as an admin would for an internal git host.
  w = await startWithPeople({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
})
afterAll(async () => {
  if (!HAS_GIT) return
  await w.t.close()
  await git.stop()
})

/** A request whose answer is kept, so the last test can look for the token in every answer. */
async function call(method: string, path: string, body?: unknown, token = w.owner.token) {
  const response = await w.t.request(method, path, { token, body })
  responses.push(response.body)
  return response
}

interface World {
  app: string
  repo: string
  copy: WorkingCopy
}

/** An application with a repository configured (a new empty one on the server), and a second working copy of it. */
async function world(settings: Record<string, unknown> = {}): Promise<World> {
  const app = await ownedApplication(w)
  const repo = `templates-${++repos}`
  await git.createRepository(repo)
  const put = await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url(repo), username: git.username, token: git.token, ...settings })
  expect(put.status).toBe(200)
  return { app, repo, copy: await WorkingCopy.clone(git, repo) }
}

const sync = (app: string, id: string, body: Record<string, unknown>) => call('POST', `/api/ui-templates/vcs/sync/${app}/${id}`, body)
const file = (app: string, operation: string, id: string, ext: 'html' | 'json') => `agentbox/${app}/${operation}/${id}.${ext}`

describe.skipIf(!HAS_GIT)('repository settings', () => {
  test('PUT then GET: the defaults, token_set, never the token', async () => {
    const app = await ownedApplication(w)
    const put = await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url('settings'), token: git.token })
    expect(put.status).toBe(200)
    expect(put.body).toMatchObject({ application_id: app, repo_url: git.url('settings'), branch: 'main', path: 'agentbox', username: null, token_set: true })
    expect(JSON.stringify(put.body)).not.toContain(git.token)
    const got = await call('GET', `/api/ui-templates/vcs/${app}`)
    expect(got.body).toEqual(put.body)
    // Left out: the token is kept; null: cleared.
    const kept = await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url('settings'), branch: 'designs', path: '/ui/templates/' })
    expect(kept.body).toMatchObject({ branch: 'designs', path: 'ui/templates', token_set: true })
    const cleared = await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url('settings'), token: null })
    expect(cleared.body.token_set).toBe(false)
    expect((await call('DELETE', `/api/ui-templates/vcs/${app}`)).status).toBe(204)
    expect((await call('GET', `/api/ui-templates/vcs/${app}`)).status).toBe(404)
    expect((await call('DELETE', `/api/ui-templates/vcs/${app}`)).status).toBe(404)
  })

  test('the token is sealed in the vault (namespace git_repository_token), not stored in clear', async () => {
    const app = await ownedApplication(w)
    await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url('sealed'), token: 'a-very-secret-token-value' })
    const rows = await w.t.server.database.db.selectFrom('sealed_secrets').selectAll().where('namespace', '=', 'git_repository_token').execute()
    expect(rows.length).toBeGreaterThan(0)
    expect(JSON.stringify(rows)).not.toContain('a-very-secret-token-value')
  })

  test('forbidden destinations are refused at save (422 on repo_url); bad branch, path, user name, e-mail: 422', async () => {
    const app = await ownedApplication(w)
    for (const url of [
      'http://10.0.0.5/repo.git',
      'http://169.254.169.254/latest',
      'http://[::1]:8080/x.git',
      'http://localhost:9/x.git',
      'ftp://example.com/x',
      'http://user:pass@example.com/x.git',
    ]) {
      const response = await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: url })
      expect(response.status).toBe(422)
      expect(response.body.detail[0].loc).toEqual(['body', 'repo_url'])
    }
    const bad = await call('PUT', `/api/ui-templates/vcs/${app}`, {
      repo_url: 'https://git.example.com/x.git',
      branch: 'a..b',
      path: '../etc',
      username: 'a:b',
      author_email: 'not an address',
    })
    expect(bad.status).toBe(422)
    expect((bad.body.detail as { loc: string[] }[]).map((d) => d.loc[1]).sort()).toEqual(['author_email', 'branch', 'path', 'username'])
    expect((await call('PUT', `/api/ui-templates/vcs/${app}`, {})).status).toBe(422)
  })

  test('owner or admin set it; a member who cannot see the application gets 404', async () => {
    const app = await ownedApplication(w)
    expect((await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: 'https://git.example.com/x.git' }, w.admin)).status).toBe(200)
    expect((await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: 'https://git.example.com/x.git' }, w.outsider.token)).status).toBe(404)
    expect((await call('GET', `/api/ui-templates/vcs/${app}`, undefined, w.outsider.token)).status).toBe(404)
    const global = await ownedApplication(w, { global: true })
    expect((await call('PUT', `/api/ui-templates/vcs/${global}`, { repo_url: 'https://git.example.com/x.git' }, w.owner.token)).status).toBe(403)
  })
})

describe.skipIf(!HAS_GIT)('sync: bad requests', () => {
  test('missing or wrong direction: 422; unknown template or application: 404; no repository: 409; not the owner: 403', async () => {
    const { app } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    const missing = await sync(app, t.id, {})
    expect(missing.status).toBe(422)
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'direction'], type: 'missing' })
    const wrong = await sync(app, t.id, { direction: 'sideways' })
    expect(wrong.status).toBe(422)
    expect(wrong.body.detail[0].loc).toEqual(['body', 'direction'])
    expect((await sync(app, '0190d1c4-0000-7000-8000-000000000000', { direction: 'push' })).body).toEqual({ detail: 'Template not found' })
    expect((await sync('no-such-app', t.id, { direction: 'push' })).status).toBe(404)
    const bare = await ownedApplication(w)
    const lonely = await createTemplate(w, w.owner.token, bare, 'listPets')
    const none = await sync(bare, lonely.id, { direction: 'push' })
    expect(none).toMatchObject({ status: 409, body: { detail: 'No repository is configured for this application' } })
    expect((await call('POST', `/api/ui-templates/vcs/sync/${bare}`, { direction: 'pull' })).status).toBe(409)
    expect((await call('POST', `/api/ui-templates/vcs/sync/${app}/${t.id}`, { direction: 'push' }, w.outsider.token)).status).toBe(404)
  })
})

describe.skipIf(!HAS_GIT)('push', () => {
  test('the first push to an empty repository creates the branch with the two files', async () => {
    const { app, copy } = await world({ author_name: 'Design Bot', author_email: 'bot@example.com' })
    const t = await createTemplate(w, w.owner.token, app, 'listPets', { is_default: true, csp_config: { connectDomains: ['https://api.example.com'] } })
    const pushed = await sync(app, t.id, { direction: 'push', commit_message: 'First templates' })
    expect(pushed.status).toBe(200)
    const sha = pushed.body.commit_sha as string
    expect(sha).toMatch(/^[0-9a-f]{40}$/)
    expect(pushed.body).toMatchObject({ success: true, has_conflict: false })
    await copy.pull()
    expect(await copy.remoteHead()).toBe(sha)
    expect(await copy.read(file(app, 'listPets', t.id, 'html'))).toBe(t.html)
    expect(JSON.parse(await copy.read(file(app, 'listPets', t.id, 'json')))).toEqual({
      type: 'result',
      is_default: true,
      template_format: 'mcp-app',
      csp_config: { connectDomains: ['https://api.example.com'] },
      ui_meta: null,
    })
    expect(await copy.log()).toEqual(['First templates'])
    const author = (await import('../helpers/git-server.ts')).gitOk(['log', '-1', '--format=%an <%ae>'], { cwd: copy.dir })
    expect((await author).trim()).toBe('Design Bot <bot@example.com>')
    // Nothing changed since: a second push makes no commit.
    const again = await sync(app, t.id, { direction: 'push' })
    expect(again.body).toMatchObject({ success: true, commit_sha: sha, message: 'Already up to date' })
    expect(await copy.remoteHead()).toBe(sha)
  })

  test("pushes on top of others' work: their files and commits stay", async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    expect((await sync(app, t.id, { direction: 'push' })).body.success).toBe(true)
    await copy.pull()
    await copy.write('README.md', '# Templates\n')
    await copy.write(`agentbox/${app}/createPet/notes.txt`, 'by hand\n')
    await copy.commitAndPush('Docs by a designer')
    await call('PUT', `/api/ui-templates/${app}/templates/${t.id}`, { html: page('second version') })
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(pushed.body).toMatchObject({ success: true, has_conflict: false })
    await copy.pull()
    expect(await copy.read('README.md')).toBe('# Templates\n')
    expect(await copy.read(`agentbox/${app}/createPet/notes.txt`)).toBe('by hand\n')
    expect(await copy.read(file(app, 'listPets', t.id, 'html'))).toBe(page('second version'))
    expect((await copy.log()).length).toBe(3)
  })

  test('a conflict on push: the repository changed the file since the last sync; nothing is pushed', async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await sync(app, t.id, { direction: 'push' })
    await copy.pull()
    await copy.write(file(app, 'listPets', t.id, 'html'), page('theirs'))
    const theirs = await copy.commitAndPush('Their edit')
    await call('PUT', `/api/ui-templates/${app}/templates/${t.id}`, { html: page('ours') })
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(pushed.body).toMatchObject({ success: false, has_conflict: true })
    expect(pushed.body.message).toContain('changed in the repository')
    expect(await copy.remoteHead()).toBe(theirs)
    // Resolved by force: ours replaces theirs, in a commit on top of theirs.
    const forced = await sync(app, t.id, { direction: 'push', force: true })
    expect(forced.body).toMatchObject({ success: true, has_conflict: false })
    await copy.pull()
    expect(await copy.read(file(app, 'listPets', t.id, 'html'))).toBe(page('ours'))
    expect((await copy.log())[1]).toBe('Their edit')
  })

  test('a template never synced meets a different file already in the repository: a conflict, not an overwrite', async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await copy.write(file(app, 'listPets', t.id, 'html'), page('there first'))
    await copy.write(file(app, 'listPets', t.id, 'json'), '{"type":"result"}\n')
    await copy.commitAndPush('Someone was first')
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(pushed.body).toMatchObject({ success: false, has_conflict: true })
  })

  test('a push rejected because someone pushed meanwhile is retried once after a new fetch', async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await sync(app, t.id, { direction: 'push' })
    await copy.pull()
    await call('PUT', `/api/ui-templates/${app}/templates/${t.id}`, { html: page('raced') })
    let meanwhile = ''
    const receivePacks = () => git.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/git-receive-pack')).length
    const before = receivePacks()
    git.beforeNextPush = async () => {
      await copy.write('meanwhile.txt', 'pushed between your fetch and your push\n')
      meanwhile = await copy.commitAndPush('Meanwhile')
    }
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(meanwhile).not.toBe('')
    expect(pushed.body).toMatchObject({ success: true, has_conflict: false })
    await copy.pull()
    expect(await copy.read('meanwhile.txt')).toContain('between your fetch and your push')
    expect(await copy.read(file(app, 'listPets', t.id, 'html'))).toBe(page('raced'))
    expect((await copy.log()).slice(0, 2)[1]).toBe('Meanwhile')
    // Three pushes reached the server meanwhile: the sync's rejected one, the other copy's, and the sync's retry.
    expect(receivePacks() - before).toBe(3)
  })
})

describe.skipIf(!HAS_GIT)('pull', () => {
  test("a clean pull takes the repository's version (html and the .json fields) and serves it at once", async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await sync(app, t.id, { direction: 'push' })
    await copy.pull()
    await copy.write(file(app, 'listPets', t.id, 'html'), page('from the designer'))
    await copy.write(
      file(app, 'listPets', t.id, 'json'),
      JSON.stringify({ template_format: 'mcp-app', type: 'card', is_default: true, ui_meta: { prefersBorder: true }, csp_config: null }),
    )
    const head = await copy.commitAndPush('Designer update')
    const pulled = await sync(app, t.id, { direction: 'pull' })
    expect(pulled.body).toEqual({ success: true, commit_sha: head, message: expect.stringContaining('Pulled'), has_conflict: false })
    const stored = await call('GET', `/api/ui-templates/${app}/templates/${t.id}`)
    expect(stored.body).toMatchObject({ html: page('from the designer'), type: 'card', is_default: true, ui_meta: { prefersBorder: true } })
    // The .json was written by hand (another key order): pushing now changes nothing.
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(pushed.body).toMatchObject({ success: true, message: 'Already up to date', commit_sha: head })
  })

  test('a conflict on pull: both sides changed; nothing is overwritten until a forced pull', async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await sync(app, t.id, { direction: 'push' })
    await copy.pull()
    await copy.write(file(app, 'listPets', t.id, 'html'), page('theirs'))
    await copy.commitAndPush('Theirs')
    await call('PUT', `/api/ui-templates/${app}/templates/${t.id}`, { html: page('ours') })
    const pulled = await sync(app, t.id, { direction: 'pull' })
    expect(pulled.body).toMatchObject({ success: false, has_conflict: true })
    expect((await call('GET', `/api/ui-templates/${app}/templates/${t.id}`)).body.html).toBe(page('ours'))
    const forced = await sync(app, t.id, { direction: 'pull', force: true })
    expect(forced.body).toMatchObject({ success: true, has_conflict: false })
    expect((await call('GET', `/api/ui-templates/${app}/templates/${t.id}`)).body.html).toBe(page('theirs'))
  })

  test('nothing new in the repository: a pull keeps the local changes and says they are not pushed', async () => {
    const { app } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await sync(app, t.id, { direction: 'push' })
    await call('PUT', `/api/ui-templates/${app}/templates/${t.id}`, { html: page('local only') })
    const pulled = await sync(app, t.id, { direction: 'pull' })
    expect(pulled.body).toMatchObject({ success: true, has_conflict: false })
    expect(pulled.body.message).toContain('not pushed')
    expect((await call('GET', `/api/ui-templates/${app}/templates/${t.id}`)).body.html).toBe(page('local only'))
  })

  test('a file absent, or an invalid one, answers success false without a conflict and changes nothing', async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    const absent = await sync(app, t.id, { direction: 'pull' })
    expect(absent.body).toMatchObject({ success: false, has_conflict: false, commit_sha: null })
    expect(absent.body.message).toContain('not in the repository')
    await sync(app, t.id, { direction: 'push' })
    await copy.pull()
    await copy.write(file(app, 'listPets', t.id, 'json'), JSON.stringify({ template_format: 'jinja', type: 'x'.repeat(40) }))
    await copy.commitAndPush('Broken')
    const invalid = await sync(app, t.id, { direction: 'pull' })
    expect(invalid.body).toMatchObject({ success: false, has_conflict: false })
    expect(invalid.body.message).toContain('not a valid template')
    expect((await call('GET', `/api/ui-templates/${app}/templates/${t.id}`)).body).toMatchObject({ template_format: 'mcp-app', type: 'result' })
    await copy.write(file(app, 'listPets', t.id, 'html'), `<p>${'x'.repeat(1024 * 1024)}</p>`)
    await copy.write(file(app, 'listPets', t.id, 'json'), '{"type":"result","is_default":false,"template_format":"mcp-app"}\n')
    await copy.commitAndPush('Too big')
    const oversize = await sync(app, t.id, { direction: 'pull' })
    expect(oversize.body).toMatchObject({ success: false, has_conflict: false })
    expect(oversize.body.message).toContain('1 MiB')
  })
})

describe.skipIf(!HAS_GIT)('all templates of an application', () => {
  test('one commit for every changed template, with a result per template; a pull brings each back', async () => {
    const { app, copy } = await world({ path: 'ui' })
    const a = await createTemplate(w, w.owner.token, app, 'listPets')
    const b = await createTemplate(w, w.owner.token, app, 'createPet', { is_default: true })
    const c = await createTemplate(w, w.owner.token, app, 'createPet')
    const pushed = await call('POST', `/api/ui-templates/vcs/sync/${app}`, { direction: 'push', commit_message: 'All of them' })
    expect(pushed.body).toMatchObject({ success: true, has_conflict: false, message: '3 of 3 templates synced' })
    expect(pushed.body.results.map((r: { template_id: string }) => r.template_id).sort()).toEqual([a.id, b.id, c.id].sort())
    await copy.pull()
    expect(await copy.log()).toEqual(['All of them'])
    expect((await copy.files()).sort()).toEqual(
      [`ui/${app}/listPets/${a.id}`, `ui/${app}/createPet/${b.id}`, `ui/${app}/createPet/${c.id}`].flatMap((f) => [`${f}.html`, `${f}.json`]).sort(),
    )
    // One changed there, one changed here too (a conflict), one untouched.
    await copy.write(`ui/${app}/listPets/${a.id}.html`, page('a, theirs'))
    await copy.write(`ui/${app}/createPet/${b.id}.html`, page('b, theirs'))
    await copy.commitAndPush('Two edits')
    await call('PUT', `/api/ui-templates/${app}/templates/${b.id}`, { html: page('b, ours') })
    const pulled = await call('POST', `/api/ui-templates/vcs/sync/${app}`, { direction: 'pull' })
    expect(pulled.body).toMatchObject({ success: false, has_conflict: true, message: '2 of 3 templates synced, 1 with a conflict' })
    const byId = Object.fromEntries(pulled.body.results.map((r: { template_id: string }) => [r.template_id, r]))
    expect(byId[a.id]).toMatchObject({ success: true, has_conflict: false, operation_id: 'listPets' })
    expect(byId[b.id]).toMatchObject({ success: false, has_conflict: true })
    expect(byId[c.id]).toMatchObject({ success: true, has_conflict: false })
    expect((await call('GET', `/api/ui-templates/${app}/templates/${a.id}`)).body.html).toBe(page('a, theirs'))
  })
})

describe.skipIf(!HAS_GIT)('failures', () => {
  test('a wrong token: success false, has_conflict false, a readable message', async () => {
    const { app } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url(`templates-${repos}`), username: git.username, token: 'wrong-token' })
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(pushed.body).toMatchObject({ success: false, has_conflict: false, commit_sha: null })
    expect(pushed.body.message).toContain('refused the credentials')
    const pulled = await sync(app, t.id, { direction: 'pull' })
    expect(pulled.body.message).toContain('refused the credentials')
  })

  test('an unreachable remote and a repository that does not exist: success false with a readable message', async () => {
    const app = await ownedApplication(w)
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: `http://127.0.0.1:${freePort()}/nothing.git`, token: git.token })
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(pushed.body).toMatchObject({ success: false, has_conflict: false })
    expect(pushed.body.message).toContain('could not be reached')
    await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url('never-created'), username: git.username, token: git.token })
    const missing = await sync(app, t.id, { direction: 'pull' })
    expect(missing.body).toMatchObject({ success: false, has_conflict: false })
    expect(missing.body.message).toMatch(/not found|did not answer as a git repository/)
  })

  test('a destination the allow list no longer opens is refused again at sync, before any connection', async () => {
    const app = await ownedApplication(w)
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    // Saved while an admin's entry allowed it, then the entry went.
    await call('PUT', '/api/org/settings', { outbound_allow: ['10.1.2.3'] }, w.admin)
    expect((await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: 'http://10.1.2.3/x.git' })).status).toBe(200)
    await call('PUT', '/api/org/settings', { outbound_allow: [] }, w.admin)
    const before = git.requests.length
    const pushed = await sync(app, t.id, { direction: 'push' })
    expect(pushed.body).toMatchObject({ success: false, has_conflict: false })
    expect(pushed.body.message).toContain('Destination not allowed')
    expect(git.requests.length).toBe(before)
  })
})

describe.skipIf(!HAS_GIT)('concurrency', () => {
  test('concurrent syncs of one application run one at a time: every push lands, none is lost', async () => {
    const { app, copy } = await world()
    const templates = await Promise.all(['listPets', 'createPet', 'deletePet', 'listPets', 'createPet'].map((op) => createTemplate(w, w.owner.token, app, op)))
    const results = await Promise.all(templates.map((t) => sync(app, t.id, { direction: 'push' })))
    expect(results.map((r) => r.body.success)).toEqual([true, true, true, true, true])
    await copy.pull()
    expect((await copy.files()).length).toBe(10)
    expect((await copy.log()).length).toBe(5)
    // Pushes and pulls mixed, and the whole application at once.
    const mixed = await Promise.all([
      call('POST', `/api/ui-templates/vcs/sync/${app}`, { direction: 'pull' }),
      sync(app, templates[0]!.id, { direction: 'push' }),
      call('POST', `/api/ui-templates/vcs/sync/${app}`, { direction: 'push' }),
    ])
    expect(mixed.map((r) => r.body.success)).toEqual([true, true, true])
    const { id } = (await w.t.sql.get<{ id: string }>('SELECT id FROM applications WHERE api_name = ?', app))!
    expect(await w.t.sql.count('leases', 'key = ?', `ui_template_sync:${id}`)).toBe(0)
  })

  test("a sync waits while the application's lease is held (by another instance), and runs once the lease expires", async () => {
    const { app, copy } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    const { id } = (await w.t.sql.get<{ id: string }>('SELECT id FROM applications WHERE api_name = ?', app))!
    const lease = `ui_template_sync:${id}`
    // On SQLite one process owns the database, so only its own instance id can hold a lease there.
    const holder = ON_POSTGRES ? 'another instance' : w.t.server.cluster.instanceId
    await w.t.sql.run('INSERT INTO leases (key, holder, instance_id, expires_at) VALUES (?, ?, ?, ?)', lease, 'elsewhere', holder, w.t.clock.now() + 60_000)
    const before = git.requests.length
    const pushing = sync(app, t.id, { direction: 'push' })
    const waiting = () => w.t.log.lines.find((line) => line.msg === 'waiting for a lease another instance holds' && line.lease === lease)
    while (!waiting()) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(waiting()).toMatchObject({ holder_instance: holder })
    // Waiting, it has not reached the repository.
    expect(git.requests.length).toBe(before)
    // The holder died: its lease expires (forced here), and the waiting sync takes it.
    await w.t.sql.run('UPDATE leases SET expires_at = ? WHERE key = ?', w.t.clock.now(), lease)
    expect((await pushing).body.success).toBe(true)
    await copy.pull()
    expect((await copy.files()).length).toBe(2)
    expect(await w.t.sql.count('leases', 'key = ?', lease)).toBe(0)
  })
})

describe.skipIf(!HAS_GIT)('a repository with thousands of files', () => {
  test('push and pull work and keep every other file', async () => {
    const { seedLargeRepository } = await import('../helpers/git-server.ts')
    const app = await ownedApplication(w)
    const repo = 'large'
    await git.createRepository(repo)
    await seedLargeRepository(git, repo, { files: 3000, commits: 200 })
    await call('PUT', `/api/ui-templates/vcs/${app}`, { repo_url: git.url(repo), username: git.username, token: git.token })
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    expect((await sync(app, t.id, { direction: 'push' })).body.success).toBe(true)
    const copy = await WorkingCopy.clone(git, repo)
    expect((await copy.files()).length).toBe(3002)
    await copy.write(file(app, 'listPets', t.id, 'html'), page('large pull'))
    await copy.commitAndPush('Edit in a large repository')
    expect((await sync(app, t.id, { direction: 'pull' })).body.success).toBe(true)
    expect((await call('GET', `/api/ui-templates/${app}/templates/${t.id}`)).body.html).toBe(page('large pull'))
    copy.dispose()
  })
})

/** Every file under `dir`, read whole. */
function filesUnder(dir: string): string[] {
  const found: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found.push(...filesUnder(path))
    else found.push(path)
  }
  return found
}

describe.skipIf(!HAS_GIT)('the token stays secret', () => {
  test('never in logs, responses, the database file or the clone', async () => {
    // Every sync above sent git.token; the clones and the database have seen it pass.
    const { app } = await world()
    const t = await createTemplate(w, w.owner.token, app, 'listPets')
    expect((await sync(app, t.id, { direction: 'push' })).body.success).toBe(true)
    const token = git.token
    expect(JSON.stringify(w.t.log.lines)).not.toContain(token)
    expect(JSON.stringify(responses)).not.toContain(token)
    const basic = Buffer.from(`${git.username}:${token}`).toString('base64')
    for (const path of filesUnder(w.t.dataDir).filter((p) => !p.includes('/secrets/'))) {
      const bytes = readFileSync(path)
      expect({ path, token: bytes.includes(token) }).toEqual({ path, token: false })
      expect({ path, basic: bytes.includes(basic) }).toEqual({ path, basic: false })
    }
    const clones = filesUnder(join(w.t.dataDir, 'git'))
    expect(clones.length).toBeGreaterThan(10)
    expect(readFileSync(join(w.t.dataDir, 'git', app, 'config'), 'utf8')).not.toContain('url')
    // The server saw Basic credentials on every request of the syncs.
    expect(git.requests.filter((r) => r.status !== 401).every((r) => r.authorized)).toBe(true)
  })
})
