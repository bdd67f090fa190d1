// User settings (CONTRACT §5): defaults, direction, partial update with compare / update / skip, per-user isolation, 422s.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string
const open = async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
}
const close = () => t.close()

const DEFAULTS = {
  conversation_starters: [],
  dark_mode: null,
  personal_context: {},
  enable_follow_up_suggestions: false,
  prompt_presets: [],
  language: 'en',
  direction: 'ltr',
}
const UPDATED = { message: 'Settings updated', updated: true }
const SKIPPED = { message: 'Settings unchanged, update skipped', updated: false }

const FULL = {
  conversation_starters: [
    { name: 'Open tickets', action: [{ api_name: 'jira.search', domain_url: 'https://jira.example.com', user_input: 'my open tickets' }] },
  ],
  dark_mode: 'dark',
  personal_context: { name: 'Ada', position: 'Engineer', traits: 'terse', additional_personalization: [{ topic: 'tone', value: 'formal' }] },
  enable_follow_up_suggestions: true,
  prompt_presets: [{ id: 'p1', name: 'Summarise', prompt: 'Summarise this', agent_id: 'a1', agent_name: 'helper' }],
  language: 'ja',
}

const getSettings = (token = adminToken) => t.request('GET', '/api/user/settings', { token })
const update = (body: unknown, token = adminToken) => t.request('POST', '/api/user/settings/update', { token, body })

describe('GET /api/user/settings', () => {
  beforeEach(open)
  afterEach(close)
  test('a user who never saved anything gets the defaults, left-to-right', async () => {
    const res = await getSettings()
    expect(res.status).toBe(200)
    expect(res.body).toEqual(DEFAULTS)
  })

  test('stored fields come back over the defaults, every nested field as sent', async () => {
    expect((await update(FULL)).body).toEqual(UPDATED)
    expect((await getSettings()).body).toEqual({ ...FULL, direction: 'ltr' })
  })

  test('direction is rtl for he, ar, fa and ur (any case, with a region), ltr otherwise', async () => {
    for (const [language, direction] of [
      ['he', 'rtl'],
      ['ar', 'rtl'],
      ['fa', 'rtl'],
      ['ur', 'rtl'],
      ['HE-il', 'rtl'],
      ['ar-EG', 'rtl'],
      ['en', 'ltr'],
      ['ja', 'ltr'],
      ['hr', 'ltr'],
      ['pt-BR', 'ltr'],
    ]) {
      await update({ language })
      expect((await getSettings()).body).toMatchObject({ language, direction })
    }
  })

  test('needs a token (401)', async () => {
    const res = await t.request('GET', '/api/user/settings')
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ detail: 'Not authenticated' })
  })
})

describe('POST /api/user/settings/update', () => {
  beforeEach(open)
  afterEach(close)
  test('the first save creates the record (updated), the same body again is skipped', async () => {
    expect((await update({ dark_mode: 'dark' })).body).toEqual(UPDATED)
    const res = await update({ dark_mode: 'dark' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(SKIPPED)
  })

  test('an empty body from a user with no record creates one; from a user with one it is skipped', async () => {
    expect((await update({})).body).toEqual(UPDATED)
    expect((await update({})).body).toEqual(SKIPPED)
    expect((await getSettings()).body).toEqual(DEFAULTS)
  })

  test('partial: a provided field replaces the stored one whole, omitted ones keep their value', async () => {
    await update(FULL)
    expect((await update({ personal_context: { name: 'Ada L.' } })).body).toEqual(UPDATED)
    const res = await getSettings()
    expect(res.body.personal_context).toEqual({ name: 'Ada L.' })
    expect(res.body).toMatchObject({ dark_mode: 'dark', language: 'ja', enable_follow_up_suggestions: true, prompt_presets: FULL.prompt_presets })
  })

  test('a changed value in a nested array is an update; the same values in another key order are skipped', async () => {
    await update(FULL)
    expect(
      (
        await update({
          conversation_starters: [
            { name: 'Open tickets', action: [{ api_name: 'jira.search', domain_url: 'https://jira.example.com', user_input: 'closed' }] },
          ],
        })
      ).body,
    ).toEqual(UPDATED)
    const reordered = {
      personal_context: { additional_personalization: [{ value: 'formal', topic: 'tone' }], traits: 'terse', position: 'Engineer', name: 'Ada' },
    }
    expect((await update(reordered)).body).toEqual(SKIPPED)
  })

  test('setting a field back to its default value is still stored, and then skipped', async () => {
    await update({ enable_follow_up_suggestions: true })
    expect((await update({ enable_follow_up_suggestions: false })).body).toEqual(UPDATED)
    expect((await update({ enable_follow_up_suggestions: false })).body).toEqual(SKIPPED)
    expect((await getSettings()).body.enable_follow_up_suggestions).toBe(false)
  })

  test('the skip writes nothing: updated_at stays', async () => {
    await update({ language: 'he' })
    const before = await t.sql.get('SELECT updated_at FROM user_settings')
    t.clock.advance(60_000)
    await update({ language: 'he' })
    expect(await t.sql.get('SELECT updated_at FROM user_settings')).toEqual(before)
    await update({ language: 'ar' })
    expect(await t.sql.get('SELECT updated_at FROM user_settings')).not.toEqual(before)
  })

  test('settings are per user: one user saving changes nothing for another', async () => {
    const member = await t.createUser(adminToken, { email: 'm@example.com' })
    await update({ language: 'he', dark_mode: 'dark' })
    expect((await getSettings(member.token)).body).toEqual(DEFAULTS)
    expect((await update({ language: 'he', dark_mode: 'dark' }, member.token)).body).toEqual(UPDATED)
    await update({ language: 'fr' }, member.token)
    expect((await getSettings()).body).toMatchObject({ language: 'he', direction: 'rtl' })
    expect((await getSettings(member.token)).body).toMatchObject({ language: 'fr', direction: 'ltr', dark_mode: 'dark' })
  })

  test('unknown fields are ignored, at the top and inside nested objects', async () => {
    expect((await update({ theme: 'x', conversation_starters: [{ name: 'a', colour: 'red', action: [{ api_name: 'b', extra: 1 }] }] })).body).toEqual(UPDATED)
    const res = await getSettings()
    expect(res.body).not.toHaveProperty('theme')
    expect(res.body.conversation_starters).toEqual([{ name: 'a', action: [{ api_name: 'b' }] }])
  })

  test('dark_mode is any string up to 32 characters', async () => {
    expect((await update({ dark_mode: 'x'.repeat(32) })).status).toBe(200)
    const res = await update({ dark_mode: 'x'.repeat(33) })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'dark_mode'], type: 'string_too_long' })])
  })

  test('needs a token (401), even with a body that would not validate', async () => {
    const res = await t.request('POST', '/api/user/settings/update', { body: { language: 5 } })
    expect(res.status).toBe(401)
  })
})

describe('POST /api/user/settings/update: wrong types in every field are 422, all reported at once', () => {
  // Every case is refused, so nothing is stored between them: one server serves them all.
  beforeAll(open)
  afterAll(close)
  const cases: [string, unknown, (string | number)[], string][] = [
    ['conversation_starters not a list', { conversation_starters: {} }, ['conversation_starters'], 'list_type'],
    ['a starter not an object', { conversation_starters: ['x'] }, ['conversation_starters', 0], 'model_type'],
    ['a starter without a name', { conversation_starters: [{ action: [] }] }, ['conversation_starters', 0, 'name'], 'missing'],
    ['a starter name not a string', { conversation_starters: [{ name: 1 }] }, ['conversation_starters', 0, 'name'], 'string_type'],
    ['action not a list', { conversation_starters: [{ name: 'a', action: {} }] }, ['conversation_starters', 0, 'action'], 'list_type'],
    ['an action not an object', { conversation_starters: [{ name: 'a', action: [7] }] }, ['conversation_starters', 0, 'action', 0], 'model_type'],
    [
      'action api_name not a string',
      { conversation_starters: [{ name: 'a', action: [{ api_name: 3 }] }] },
      ['conversation_starters', 0, 'action', 0, 'api_name'],
      'string_type',
    ],
    [
      'action domain_url not a string',
      { conversation_starters: [{ name: 'a', action: [{ api_name: 'x', domain_url: true }] }] },
      ['conversation_starters', 0, 'action', 0, 'domain_url'],
      'string_type',
    ],
    [
      'action user_input not a string',
      { conversation_starters: [{ name: 'a', action: [{ api_name: 'x', user_input: [] }] }] },
      ['conversation_starters', 0, 'action', 0, 'user_input'],
      'string_type',
    ],
    ['dark_mode not a string', { dark_mode: true }, ['dark_mode'], 'string_type'],
    ['personal_context not an object', { personal_context: [] }, ['personal_context'], 'model_type'],
    ['personal_context.name not a string', { personal_context: { name: 1 } }, ['personal_context', 'name'], 'string_type'],
    ['personal_context.position not a string', { personal_context: { position: {} } }, ['personal_context', 'position'], 'string_type'],
    ['personal_context.traits not a string', { personal_context: { traits: ['a'] } }, ['personal_context', 'traits'], 'string_type'],
    [
      'additional_personalization not a list',
      { personal_context: { additional_personalization: 'x' } },
      ['personal_context', 'additional_personalization'],
      'list_type',
    ],
    [
      'an additional_personalization item not an object',
      { personal_context: { additional_personalization: [1] } },
      ['personal_context', 'additional_personalization', 0],
      'model_type',
    ],
    ['enable_follow_up_suggestions not a boolean', { enable_follow_up_suggestions: 'true' }, ['enable_follow_up_suggestions'], 'bool_type'],
    ['prompt_presets not a list', { prompt_presets: 'x' }, ['prompt_presets'], 'list_type'],
    ['a preset without a prompt', { prompt_presets: [{ id: 'a', name: 'b' }] }, ['prompt_presets', 0, 'prompt'], 'missing'],
    ['a preset id not a string', { prompt_presets: [{ id: 1, name: 'b', prompt: 'c' }] }, ['prompt_presets', 0, 'id'], 'string_type'],
    [
      'a preset agent_id not a string',
      { prompt_presets: [{ id: 'a', name: 'b', prompt: 'c', agent_id: 5 }] },
      ['prompt_presets', 0, 'agent_id'],
      'string_type',
    ],
    [
      'a preset agent_name not a string',
      { prompt_presets: [{ id: 'a', name: 'b', prompt: 'c', agent_name: null }] },
      ['prompt_presets', 0, 'agent_name'],
      'string_type',
    ],
    ['language not a string', { language: 1 }, ['language'], 'string_type'],
    ['language not a language tag', { language: 'english please' }, ['language'], 'string_pattern_mismatch'],
  ]
  for (const [name, body, loc, type] of cases) {
    test(`${name}: ${type} at ${loc.join('.')}`, async () => {
      const res = await update(body)
      expect(res.status).toBe(422)
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', ...loc], type })])
    })
  }

  test('several bad fields are all reported, and nothing is stored', async () => {
    const res = await update({ dark_mode: 1, language: 2, personal_context: { name: 3 }, conversation_starters: [{ name: 'ok' }, { name: 4 }] })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => d.loc.slice(1).join('.')).sort()).toEqual([
      'conversation_starters.1.name',
      'dark_mode',
      'language',
      'personal_context.name',
    ])
    expect((await getSettings()).body).toEqual(DEFAULTS)
  })

  test('a body that is not an object is one model_type entry; malformed JSON is json_invalid', async () => {
    expect((await update([1, 2])).body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'model_type' })])
    const bad = await t.request('POST', '/api/user/settings/update', {
      token: adminToken,
      rawBody: '{"language":',
      headers: { 'content-type': 'application/json' },
    })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].type).toBe('json_invalid')
  })
})
