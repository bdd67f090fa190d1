// A repository token is a secret of the vault like an application credential: a key rotation re-seals it and syncs keep
// working; a database restored without its keys says the token cannot be used (token_problem) and a sync answers a
// readable failure, never a 500; saving a token again mends it. Its own server: the keys are removed here.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { type GitServer, HAS_GIT, startGitServer, WorkingCopy } from '../helpers/git-server.ts'
import { type People, startWithPeople } from '../helpers/people.ts'
import { createTemplate, ownedApplication } from './helpers.ts'

let w: People
let git: GitServer

beforeAll(async () => {
  if (!HAS_GIT) return
  git = await startGitServer()
  w = await startWithPeople({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
})
afterAll(async () => {
  if (!HAS_GIT) return
  await w.t.close()
  await git.stop()
})

describe.skipIf(!HAS_GIT)('the repository token and the vault keys', () => {
  test('a rotation re-seals the token and pushes keep working; without the keys: token_problem, a readable failure, then mended by a new token', async () => {
    const app = await ownedApplication(w)
    await git.createRepository('keys')
    const settings = { repo_url: git.url('keys'), username: git.username, token: git.token }
    expect((await w.t.request('PUT', `/api/ui-templates/vcs/${app}`, { token: w.owner.token, body: settings })).status).toBe(200)
    const template = await createTemplate(w, w.owner.token, app, 'listPets')
    const push = () => w.t.request('POST', `/api/ui-templates/vcs/sync/${app}/${template.id}`, { token: w.owner.token, body: { direction: 'push' } })

    const rotated = await w.t.request('POST', '/api/org/secrets/rotate', { token: w.admin })
    expect(rotated.status).toBe(200)
    expect(rotated.body.namespaces).toContainEqual({ namespace: 'git_repository_token', values: 1, reencrypted: 1, unreadable: 0 })
    const sealed = await w.t.server.database.db.selectFrom('sealed_secrets').select('sealed').where('namespace', '=', 'git_repository_token').execute()
    expect(sealed.map((row) => row.sealed.split(':')[1])).toEqual([rotated.body.key_id])
    expect((await push()).body).toMatchObject({ success: true, has_conflict: false })
    const copy = await WorkingCopy.clone(git, 'keys')
    expect(await copy.files()).toContain(`agentbox/${app}/listPets/${template.id}.html`)

    // As after restoring a backup without FILE.keys.
    await w.t.restart()
    rmSync(join(w.t.dataDir, 'secrets', 'credentials.key'))
    const repository = await w.t.request('GET', `/api/ui-templates/vcs/${app}`, { token: w.owner.token })
    expect(repository.status).toBe(200)
    expect(repository.body.token_set).toBe(true)
    expect(repository.body.token_problem).toContain('credentials.key')
    const refused = await push()
    expect(refused.status).toBe(200)
    expect(refused.body).toMatchObject({ success: false, has_conflict: false, commit_sha: null })
    expect(refused.body.message).toContain('The repository token cannot be used')

    expect((await w.t.request('PUT', `/api/ui-templates/vcs/${app}`, { token: w.owner.token, body: settings })).body.token_problem).toBeNull()
    expect((await push()).body).toMatchObject({ success: true })
  })
})
