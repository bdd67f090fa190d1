// POST /api/skill/validate (CONTRACT §11): problems in a 200, never HTTP errors; the request itself is checked like any other.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ADMIN, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let member: { id: string; token: string }
let orgToken: string
beforeAll(async () => {
  t = await startTestServer()
  const provisioned = await t.provision()
  orgToken = provisioned.orgToken
  member = await t.createUser(provisioned.adminToken, { email: 'member@example.com' })
})
afterAll(() => t.close())

const SKILL = '---\nname: pdf-processing\ndescription: Extracts text and tables from PDF files. Use when working with PDFs.\n---\n# PDF\n\nSteps.\n'
const validate = (body: unknown, token = member.token) => t.request('POST', '/api/skill/validate', { token, body })

describe('POST /api/skill/validate', () => {
  test('a valid skill is 200 with is_valid true and both arrays empty', async () => {
    const res = await validate({ content: SKILL })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ is_valid: true, errors: [], warnings: [] })
  })

  test('an invalid skill is still 200, every problem as {field, code, message}', async () => {
    const res = await validate({ content: '---\nname: PDF_Processing\ncolour: blue\n---\n' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      is_valid: false,
      errors: [
        {
          field: null,
          code: 'fields_unexpected',
          message:
            "Unexpected fields in frontmatter: colour. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
        },
        { field: 'name', code: 'name_not_lowercase', message: "Skill name 'PDF_Processing' must be lowercase" },
        {
          field: 'name',
          code: 'name_invalid_chars',
          message: "Skill name 'PDF_Processing' contains invalid characters. Only letters, digits, and hyphens are allowed.",
        },
        { field: 'description', code: 'description_missing', message: 'Missing required field in frontmatter: description' },
      ],
      warnings: [],
    })
  })

  test('empty content is 200 with is_valid false', async () => {
    const res = await validate({ content: '' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ is_valid: false, errors: [{ field: null, code: 'content_empty', message: 'SKILL.md content is empty' }], warnings: [] })
  })

  test('YAML problems, structure problems and a missing frontmatter are 200 too', async () => {
    for (const [content, code] of [
      ['# just markdown', 'frontmatter_missing'],
      ['---\nname: a\n', 'frontmatter_unclosed'],
      ['---\nname: a\nname: b\n---\n', 'yaml_duplicate_key'],
      ['---\ndescription: a: b\n---\n', 'yaml_invalid'],
      ['---\n- a\n---\n', 'frontmatter_not_mapping'],
    ]) {
      const res = await validate({ content })
      expect(res.status).toBe(200)
      expect(res.body.is_valid).toBe(false)
      expect(res.body.errors.map((e: any) => e.code)).toEqual([code])
    }
  })

  test('skill_name is compared with the frontmatter name', async () => {
    expect((await validate({ content: SKILL, skill_name: 'pdf-processing' })).body.is_valid).toBe(true)
    const res = await validate({ content: SKILL, skill_name: 'pdf' })
    expect(res.body).toEqual({
      is_valid: false,
      errors: [{ field: 'name', code: 'name_mismatch', message: "Skill name 'pdf-processing' must match the expected name 'pdf'" }],
      warnings: [],
    })
  })

  test('skill_name may be null or absent', async () => {
    expect((await validate({ content: SKILL, skill_name: null })).body.is_valid).toBe(true)
  })

  test('size recommendations are warnings on a valid skill', async () => {
    const body = Array.from({ length: 600 }, (_, i) => `Line ${i}`).join('\n')
    const res = await validate({ content: `---\nname: long\ndescription: Long.\n---\n${body}` })
    expect(res.body).toEqual({
      is_valid: true,
      errors: [],
      warnings: [{ field: null, code: 'body_too_many_lines', message: 'SKILL.md body is 600 lines (the specification recommends under 500)' }],
    })
  })

  test('a 300 KB SKILL.md is validated', async () => {
    const body = 'Do the next step carefully and report what happened.\n'.repeat(5800)
    const res = await validate({ content: `---\nname: big\ndescription: Big.\n---\n${body}` })
    expect(res.status).toBe(200)
    expect(res.body.is_valid).toBe(true)
    expect(res.body.warnings.map((w: any) => w.code)).toEqual(['body_too_many_lines', 'body_too_many_tokens'])
  })

  test('BOM and CRLF from Windows editors are accepted', async () => {
    expect((await validate({ content: `\uFEFF${SKILL.replace(/\n/g, '\r\n')}` })).body).toEqual({ is_valid: true, errors: [], warnings: [] })
  })

  test('unknown request fields are ignored', async () => {
    expect((await validate({ content: SKILL, directory: 'x' })).body.is_valid).toBe(true)
  })

  test('the org token may validate', async () => {
    expect((await validate({ content: SKILL }, orgToken)).status).toBe(200)
  })
})

describe('POST /api/skill/validate: the request itself', () => {
  test('without a token: 401, before the body is looked at', async () => {
    const res = await t.request('POST', '/api/skill/validate', { body: {} })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({ detail: 'Not authenticated' })
    expect(res.headers.get('www-authenticate')).toBe('Bearer')
  })

  test('content missing: 422 missing', async () => {
    expect((await validate({})).body).toEqual({ detail: [{ loc: ['body', 'content'], msg: 'Field required', type: 'missing' }] })
  })

  test('content and skill_name of the wrong type: 422 for each', async () => {
    const res = await validate({ content: 42, skill_name: 7 })
    expect(res.status).toBe(422)
    expect(res.body.detail.map((d: any) => [d.loc.join('.'), d.type])).toEqual([
      ['body.content', 'string_type'],
      ['body.skill_name', 'string_type'],
    ])
  })

  test('a body that is not JSON: 422 json_invalid', async () => {
    const res = await t.request('POST', '/api/skill/validate', {
      token: member.token,
      rawBody: '{"content": ',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].type).toBe('json_invalid')
  })

  test('content over the 1 MiB body limit: 413', async () => {
    expect((await validate({ content: 'x'.repeat(1024 * 1024 + 1) })).status).toBe(413)
  })
})

describe('licence lapse', () => {
  test('validation is a read: it still answers after expiry plus grace', async () => {
    const s = await startTestServer()
    try {
      await s.provision({ days: 30 })
      s.clock.advance(45 * 86_400_000)
      const token = await s.login(ADMIN.email, ADMIN.password)
      const res = await s.request('POST', '/api/skill/validate', { token, body: { content: SKILL } })
      expect(res).toMatchObject({ status: 200, body: { is_valid: true } })
      expect((await s.request('POST', '/api/agents', { token, body: { name: 'x', description: 'd', instructions: 'i' } })).status).toBe(402)
    } finally {
      await s.close()
    }
  })
})
