// The SKILL.md validator, table-driven (cases.ts), plus the properties every result has.
import { describe, expect, test } from 'bun:test'
import { validateSkill } from '../../src/modules/skills/validator/index.ts'
import { ALL_CASES } from './cases.ts'

const count = ALL_CASES.reduce((n, [, cases]) => n + cases.length, 0)

test(`the table holds at least forty cases (${count})`, () => {
  expect(count).toBeGreaterThanOrEqual(40)
})

for (const [group, cases] of ALL_CASES) {
  describe(group, () => {
    for (const c of cases) {
      test(c.title, () => {
        const result = validateSkill(c.content, { skillName: c.skillName })
        expect(result.errors.map((e) => e.code)).toEqual(c.errors)
        expect(result.is_valid).toBe(c.errors.length === 0)
        if (c.warnings) expect(result.warnings.map((w) => w.code)).toEqual(c.warnings)
        if (c.messages) expect(result.errors.map((e) => e.message)).toEqual(c.messages)
        if (c.fields) expect(result.errors.map((e) => e.field)).toEqual(c.fields)
        if (c.frontmatter) expect(result.frontmatter).toMatchObject(c.frontmatter)
        if (result.is_valid) expect(result.frontmatter).not.toBeNull()
        else expect(result.frontmatter).toBeNull()
      })
    }
  })
}

describe('every result', () => {
  const all = ALL_CASES.flatMap(([, cases]) => cases)

  test('entries are exactly {field, code, message}, and warnings never make a skill invalid', () => {
    for (const c of all) {
      const result = validateSkill(c.content, { skillName: c.skillName })
      for (const entry of [...result.errors, ...result.warnings]) {
        expect(Object.keys(entry).sort()).toEqual(['code', 'field', 'message'])
        expect(entry.field === null || typeof entry.field === 'string').toBe(true)
        expect(entry.message.length).toBeGreaterThan(0)
      }
      expect(result.is_valid).toBe(result.errors.length === 0)
    }
  })

  test('the same content always gives the same result', () => {
    for (const c of all) expect(validateSkill(c.content, { skillName: c.skillName })).toEqual(validateSkill(c.content, { skillName: c.skillName }))
  })

  test('size warnings name the measured size', () => {
    const lines = Array.from({ length: 501 }, (_, i) => `l${i}`).join('\n')
    const result = validateSkill(`---\nname: a\ndescription: b\n---\n${lines}`)
    expect(result.warnings).toEqual([{ field: null, code: 'body_too_many_lines', message: 'SKILL.md body is 501 lines (the specification recommends under 500)' }])
    const long = validateSkill(`---\nname: a\ndescription: b\n---\n${'x'.repeat(40_000)}`)
    expect(long.warnings).toEqual([{ field: null, code: 'body_too_many_tokens', message: 'SKILL.md body is about 10000 tokens (the specification recommends under 5000)' }])
  })

  test('a 300 KB SKILL.md validates, with the size warnings', () => {
    const body = Array.from({ length: 6000 }, (_, i) => `Step ${i}: do something useful with the input and report.`).join('\n')
    const result = validateSkill(`---\nname: big\ndescription: A big skill.\n---\n${body}`)
    expect(result.is_valid).toBe(true)
    expect(result.warnings.map((w) => w.code)).toEqual(['body_too_many_lines', 'body_too_many_tokens'])
  })
})
