// GPT apps as admins manage them (issue 29, item 1): created with a key shown once and stored only as its SHA-256 in
// its own table, read, listed with the spec's two flags, the key rotated, uninstalled; every change audited; members
// and bad input refused with the contract's statuses.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../src/platform/ids.ts'
import { createGpt, type GptWorld, startGptWorld } from './helpers.ts'

let w: GptWorld
beforeAll(async () => {
  w = await startGptWorld()
})
afterAll(() => w.stop())

const appsList = (key: string) => w.t.request('GET', '/api/gpt_public/apps_list', { headers: { 'x-api-key': key }, clientAddress: '198.51.100.1' })

describe('POST /api/gpts', () => {
  test('201: the record and, once, a high-entropy abx_gpt_ key stored only as its SHA-256 in gpt_keys (never api_tokens); audited', async () => {
    const res = await w.t.request('POST', '/api/gpts', {
      token: w.admin,
      body: {
        name: 'Sales Helper',
        description: 'Answers sales questions',
        instructions: 'Always greet the customer.',
        applications: ['shared-tickets', 'tickets', 'shared-tickets'],
        agent_name: 'helper',
        visibility: 'private',
      },
    })
    expect(res.status).toBe(201)
    const { api_key: key, installed_at: installedAt, ...record } = res.body
    expect(record).toEqual({
      name: 'sales-helper',
      description: 'Answers sales questions',
      instructions: 'Always greet the customer.',
      applications: ['shared-tickets', 'tickets'],
      agent_name: 'helper',
      visibility: 'private',
      installed: true,
      installed_by: 'admin@example.com',
      actions_openapi_url: 'http://localhost/api/gpt_public/openapi.json',
    })
    expect(installedAt).toBe(new Date(w.t.clock.now()).toISOString())
    expect(key).toMatch(/^abx_gpt_[A-Za-z0-9_-]{43}$/)

    const db = w.t.server.database.db
    const stored = await db
      .selectFrom('gpt_keys')
      .innerJoin('gpts', 'gpts.id', 'gpt_keys.gpt_id')
      .selectAll('gpt_keys')
      .where('gpts.name', '=', 'sales-helper')
      .execute()
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({ key_hash: sha256Hex(key), hint: key.slice(-4), revoked_at: null })
    expect(JSON.stringify(await db.selectFrom('gpts').selectAll().execute())).not.toContain(key)
    expect(await db.selectFrom('api_tokens').select('id').where('token_hash', '=', sha256Hex(key)).execute()).toEqual([])

    const audit = await w.t.request('GET', '/api/audit?action=gpt.create', { token: w.admin })
    expect(audit.body[0]).toMatchObject({
      action: 'gpt.create',
      actor_email: 'admin@example.com',
      target_type: 'gpt',
      details: { name: 'sales-helper', applications: ['shared-tickets', 'tickets'], agent_name: 'helper', visibility: 'private', key_hint: key.slice(-4) },
    })
    expect(JSON.stringify(audit.body)).not.toContain(key)
    // The key is never shown again.
    expect((await w.t.request('GET', '/api/gpts/sales-helper', { token: w.admin })).body).not.toHaveProperty('api_key')
  })

  test('two GPTs get different keys; the org token (an admin) may create one too', async () => {
    const a = await createGpt(w)
    const b = await w.t.request('POST', '/api/gpts', {
      token: w.org,
      body: { name: 'org-made', description: '', instructions: '', applications: [], visibility: 'public' },
    })
    expect(b.status).toBe(201)
    expect(b.body.api_key).not.toBe(a.key)
  })

  test('a member is 403, before the body is looked at; no token is 401', async () => {
    const member = await w.t.request('POST', '/api/gpts', { token: w.owner.token, body: { name: 'x' } })
    expect(member.status).toBe(403)
    expect(member.body).toEqual({ detail: 'Not enough permissions' })
    const anonymous = await w.t.request('POST', '/api/gpts', { body: {} })
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer')
  })

  test('422: missing fields, wrong types, a bad visibility, all at once', async () => {
    const res = await w.t.request('POST', '/api/gpts', { token: w.admin, body: { name: 5, applications: 'shared-tickets', visibility: 'secret' } })
    expect(res.status).toBe(422)
    const failing = res.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.'))
    for (const field of ['body.name', 'body.description', 'body.instructions', 'body.applications', 'body.visibility']) expect(failing).toContain(field)
  })

  test('422: a name that breaks the agent-name rules, the reserved name "list", an unknown application and agent, each named', async () => {
    const bad = await w.t.request('POST', '/api/gpts', {
      token: w.admin,
      body: {
        name: 'Ünïcode!',
        description: '',
        instructions: '',
        applications: ['shared-tickets', 'no-such-api'],
        agent_name: 'no-such-agent',
        visibility: 'public',
      },
    })
    expect(bad.status).toBe(422)
    expect(bad.body.detail).toEqual([
      {
        loc: ['body', 'name'],
        msg: 'Agent name may contain only letters a-z, digits, spaces, hyphens and underscores',
        type: 'value_error',
        input: 'ünïcode!',
      },
      { loc: ['body', 'applications', 1], msg: "Application not found: 'no-such-api'", type: 'value_error', input: 'no-such-api' },
      { loc: ['body', 'agent_name'], msg: "Agent not found: 'no-such-agent'", type: 'value_error', input: 'no-such-agent' },
    ])
    const long = await w.t.request('POST', '/api/gpts', {
      token: w.admin,
      body: { name: 'x'.repeat(65), description: '', instructions: '', applications: [], visibility: 'public' },
    })
    expect(long.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_too_long' })
    const list = await w.t.request('POST', '/api/gpts', {
      token: w.admin,
      body: { name: 'List', description: '', instructions: '', applications: [], visibility: 'public' },
    })
    expect(list.status).toBe(422)
    expect(list.body.detail[0]).toMatchObject({ loc: ['body', 'name'], msg: "'list' is reserved: choose another name" })
    expect(await w.t.server.database.db.selectFrom('gpts').select('id').where('name', 'in', ['list', 'ünïcode!']).execute()).toEqual([])
  })

  test('409: an installed GPT has the name (after normalisation)', async () => {
    const { name } = await createGpt(w)
    const again = await w.t.request('POST', '/api/gpts', {
      token: w.admin,
      body: { name: name.toUpperCase().replace('-', ' '), description: '', instructions: '', applications: [], visibility: 'public' },
    })
    expect(again.status).toBe(409)
    expect(again.body).toEqual({ detail: `A GPT named '${name}' is already installed` })
  })

  test('413: a body over 1 MiB', async () => {
    const res = await w.t.request('POST', '/api/gpts', {
      token: w.admin,
      body: { name: 'big', description: '', instructions: 'x'.repeat(1024 * 1024 + 1), applications: [], visibility: 'public' },
    })
    expect(res.status).toBe(413)
  })
})

describe('GET /api/gpts/list and GET /api/gpts/{name}', () => {
  let privateByAdmin: string
  let privateByPromoted: string
  let publicOne: string
  let promoted: { id: string; token: string }

  beforeAll(async () => {
    privateByAdmin = (await createGpt(w, { name: 'list-private-admin', visibility: 'private' })).name
    publicOne = (await createGpt(w, { name: 'list-public', visibility: 'public' })).name
    // An admin who installs a private GPT and is later made a member still sees it.
    promoted = await w.t.createUser(w.admin, { email: 'promoted@example.com', role: 'admin' })
    const created = await w.t.request('POST', '/api/gpts', {
      token: promoted.token,
      body: { name: 'list-private-promoted', description: '', instructions: '', applications: [], visibility: 'private' },
    })
    privateByPromoted = created.body.name
    expect((await w.t.request('PATCH', `/api/users/${promoted.id}`, { token: w.admin, body: { role: 'member' } })).status).toBe(200)
    promoted = { ...promoted, token: await w.t.login('promoted@example.com', 'a long enough password') }
  })

  const names = (records: { name: string }[]) => records.map((record) => record.name).filter((name) => name.startsWith('list-'))

  test('admins see every installed GPT, by name; the flags (default true) choose private and public', async () => {
    const all = await w.t.request('GET', '/api/gpts/list', { token: w.admin })
    expect(all.status).toBe(200)
    expect(names(all.body)).toEqual([privateByAdmin, privateByPromoted, publicOne])
    expect(all.body.every((record: object) => !('api_key' in record))).toBe(true)
    const privateOnly = await w.t.request('GET', '/api/gpts/list?include_public_gpts=false', { token: w.admin })
    expect(names(privateOnly.body)).toEqual([privateByAdmin, privateByPromoted])
    const publicOnly = await w.t.request('GET', '/api/gpts/list?include_private_gpts=false&include_public_gpts=true', { token: w.admin })
    expect(names(publicOnly.body)).toEqual([publicOne])
    expect((await w.t.request('GET', '/api/gpts/list?include_private_gpts=false&include_public_gpts=false', { token: w.admin })).body).toEqual([])
    expect((await w.t.request('GET', '/api/gpts/list?include_private_gpts=maybe', { token: w.admin })).status).toBe(422)
  })

  test('members see public GPTs and the private ones they installed; GET by name follows the same rule', async () => {
    expect(names((await w.t.request('GET', '/api/gpts/list', { token: w.owner.token })).body)).toEqual([publicOne])
    expect(names((await w.t.request('GET', '/api/gpts/list', { token: promoted.token })).body)).toEqual([privateByPromoted, publicOne])
    expect((await w.t.request('GET', `/api/gpts/${publicOne}`, { token: w.owner.token })).body).toMatchObject({ name: publicOne, installed: true })
    const hidden = await w.t.request('GET', `/api/gpts/${privateByAdmin}`, { token: w.owner.token })
    expect(hidden.status).toBe(404)
    expect(hidden.body).toEqual({ detail: 'GPT not found' })
    expect((await w.t.request('GET', `/api/gpts/${privateByPromoted}`, { token: promoted.token })).status).toBe(200)
    expect((await w.t.request('GET', '/api/gpts/no-such-gpt', { token: w.admin })).status).toBe(404)
    expect((await w.t.request('GET', '/api/gpts/list')).status).toBe(401)
  })
})

describe('POST /api/gpt/{genai_app}/uninstall', () => {
  test('200 with the message; the key stops at once; kept as installed: false but no longer listed; audited; twice is 409', async () => {
    const { name, key } = await createGpt(w, { visibility: 'public' })
    expect((await appsList(key)).status).toBe(200)
    const res = await w.t.request('POST', `/api/gpt/${name}/uninstall`, { token: w.admin })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ message: `GPT '${name}' uninstalled`, uninstalled: true })
    const after = await appsList(key)
    expect(after.status).toBe(401)
    expect(after.body).toEqual({ detail: 'Not authenticated' })

    expect((await w.t.request('GET', '/api/gpts/list', { token: w.admin })).body.map((r: { name: string }) => r.name)).not.toContain(name)
    expect((await w.t.request('GET', `/api/gpts/${name}`, { token: w.admin })).body).toMatchObject({ name, installed: false })
    expect((await w.t.request('GET', `/api/gpts/${name}`, { token: w.owner.token })).status).toBe(404)
    const audit = await w.t.request('GET', '/api/audit?action=gpt.uninstall', { token: w.admin })
    expect(audit.body[0]).toMatchObject({ action: 'gpt.uninstall', details: { name } })

    const twice = await w.t.request('POST', `/api/gpt/${name}/uninstall`, { token: w.admin })
    expect(twice.status).toBe(409)
    expect(twice.body).toEqual({ detail: `GPT '${name}' is already uninstalled` })
    // Rotating an uninstalled GPT's key is the same conflict; its name can be given to a new GPT, with a new key.
    expect((await w.t.request('POST', `/api/gpts/${name}/rotate_key`, { token: w.admin })).status).toBe(409)
    const again = await createGpt(w, { name })
    expect(again.record.installed).toBe(true)
    expect((await appsList(again.key)).status).toBe(200)
    expect((await appsList(key)).status).toBe(401)
  })

  test('unknown → 404; a member → 403 (and nothing changes)', async () => {
    const unknown = await w.t.request('POST', '/api/gpt/no-such-gpt/uninstall', { token: w.admin })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({ detail: 'GPT not found' })
    const { name, key } = await createGpt(w)
    const member = await w.t.request('POST', `/api/gpt/${name}/uninstall`, { token: w.owner.token })
    expect(member.status).toBe(403)
    expect((await appsList(key)).status).toBe(200)
  })
})

describe('POST /api/gpts/{name}/rotate_key', () => {
  test('a new key, shown once; the old one stops at once; audited without the key; members 403, unknown 404', async () => {
    const { name, key } = await createGpt(w)
    const rotated = await w.t.request('POST', `/api/gpts/${name}/rotate_key`, { token: w.admin })
    expect(rotated.status).toBe(200)
    expect(rotated.body).toMatchObject({ name, installed: true })
    const fresh = rotated.body.api_key as string
    expect(fresh).toMatch(/^abx_gpt_/)
    expect(fresh).not.toBe(key)
    expect((await appsList(key)).status).toBe(401)
    expect((await appsList(fresh)).status).toBe(200)
    const keys = await w.t.server.database.db
      .selectFrom('gpt_keys')
      .innerJoin('gpts', 'gpts.id', 'gpt_keys.gpt_id')
      .select(['gpt_keys.key_hash', 'gpt_keys.revoked_at'])
      .where('gpts.name', '=', name)
      .orderBy('gpt_keys.id')
      .execute()
    expect(keys.map((k) => [k.key_hash, k.revoked_at !== null])).toEqual([
      [sha256Hex(key), true],
      [sha256Hex(fresh), false],
    ])
    const audit = await w.t.request('GET', '/api/audit?action=gpt.rotate_key', { token: w.admin })
    expect(audit.body[0]).toMatchObject({ details: { name, key_hint: fresh.slice(-4) } })
    expect(JSON.stringify(audit.body)).not.toContain(fresh)

    expect((await w.t.request('POST', `/api/gpts/${name}/rotate_key`, { token: w.owner.token })).status).toBe(403)
    expect((await appsList(fresh)).status).toBe(200)
    expect((await w.t.request('POST', '/api/gpts/no-such-gpt/rotate_key', { token: w.admin })).status).toBe(404)
  })
})
