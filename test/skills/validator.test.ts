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
    expect(result.warnings).toEqual([
      { field: null, code: 'body_too_many_lines', message: 'SKILL.md body is 501 lines (the specification recommends under 500)' },
    ])
    const long = validateSkill(`---\nname: a\ndescription: b\n---\n${'x'.repeat(40_000)}`)
    expect(long.warnings).toEqual([
      { field: null, code: 'body_too_many_tokens', message: 'SKILL.md body is about 10000 tokens (the specification recommends under 5000)' },
    ])
  })

  test('a 300 KB SKILL.md validates, with the size warnings', () => {
    const body = Array.from({ length: 6000 }, (_, i) => `Step ${i}: do something useful with the input and report.`).join('\n')
    const result = validateSkill(`---\nname: big\ndescription: A big skill.\n---\n${body}`)
    expect(result.is_valid).toBe(true)
    expect(result.warnings.map((w) => w.code)).toEqual(['body_too_many_lines', 'body_too_many_tokens'])
  })
})

// Issue 14, item 4: 80,000 metadata keys (about 1 MB) held the server for 220 s in the parser's quadratic unique-key
// check. The frontmatter size and the metadata count are capped, and what remains under the cap is linear.
describe('limits and linear work (issue 14, item 4)', () => {
  const metadata = (n: number, key: (i: number) => string = (i) => `k${i}`) =>
    `---\nname: a\ndescription: b\nmetadata:\n${Array.from({ length: n }, (_, i) => `  ${key(i)}: v`).join('\n')}\n---\nbody`
  test('80,000 metadata keys: frontmatter_too_large at once, before the YAML parser', () => {
    const result = validateSkill(metadata(80_000))
    expect(result.errors).toEqual([{ field: null, code: 'frontmatter_too_large', message: expect.stringContaining('at most 32768 are allowed') }])
  })

  test('a frontmatter of exactly 32 KiB is read; one byte more is too large (bytes of UTF-8, not characters)', () => {
    const at = (bytes: number, filler: string) => {
      const head = 'name: a\ndescription: "'
      const tail = '"\n'
      const fill = bytes - head.length - tail.length
      return `---\n${head}${filler.repeat(Math.floor(fill / Buffer.byteLength(filler)))}${tail}---\n`
    }
    expect(validateSkill(at(32 * 1024, 'x')).errors.map((e) => e.code)).toEqual(['description_too_long'])
    expect(validateSkill(at(32 * 1024 + 1, 'x')).errors.map((e) => e.code)).toEqual(['frontmatter_too_large'])
    // 12,000 characters of three UTF-8 bytes each are 36,000 bytes.
    expect(validateSkill(`---\nname: a\ndescription: "${'€'.repeat(12_000)}"\n---\n`).errors.map((e) => e.code)).toEqual(['frontmatter_too_large'])
  })

  test('256 metadata entries are allowed, 257 are metadata_too_many_entries', () => {
    expect(validateSkill(metadata(256)).is_valid).toBe(true)
    expect(validateSkill(metadata(257)).errors).toEqual([
      { field: 'metadata', code: 'metadata_too_many_entries', message: "Field 'metadata' has 257 entries; at most 256 are allowed" },
    ])
  })

  test('a frontmatter just under the cap, however hostile, is read in linear time', () => {
    const under = (line: (i: number) => string) => {
      const lines: string[] = []
      for (let size = 0, i = 0; size < 30_000; i++) size += lines[lines.push(line(i)) - 1]!.length + 1
      return `---\nname: a\ndescription: b\n${lines.join('\n')}\n---\n`
    }
    const cases = {
      keys: [under((i) => `k${i}: v`), 'fields_unexpected'],
      duplicates: [under(() => 'k: v'), 'yaml_duplicate_key'],
      aliases: [
        `---\nname: &n a\ndescription: b\nmetadata:\n${Array.from({ length: 2500 }, (_, i) => `  k${i}: *n`).join('\n')}\n---\n`,
        'metadata_too_many_entries',
      ],
      brokenLines: [under(() => 'a: b: c'), 'yaml_invalid'],
      // The YAML parser gives up on such nesting (its stack), which is reported, not thrown.
      nesting: [`---\nname: a\ndescription: b\nmetadata: ${'['.repeat(14_000)}${']'.repeat(14_000)}\n---\n`, 'yaml_invalid'],
    } as const
    for (const [name, [content, code]] of Object.entries(cases)) {
      const result = validateSkill(content)
      expect({ name, code: result.errors[0]?.code }).toEqual({ name, code })
    }
    // No timing here (benchmarks time things): quadratic work took 6 s and more per case (broken lines: 67 s), which
    // the test's own time limit catches; linear work takes milliseconds.
  }, 20_000)

  test('every duplicate is reported with its line, in order, beside parse errors', () => {
    const result = validateSkill('---\nname: a\nname: b\ndescription: x: y\nmetadata: {k: 1, k: 2}\n---\n')
    expect(result.errors.map((e) => e.message)).toEqual([
      "Invalid YAML in frontmatter: duplicate key 'name' (line 3, column 1)",
      expect.stringContaining('(line 4, column 14)'),
      "Invalid YAML in frontmatter: duplicate key 'k' (line 5, column 18)",
    ])
  })

  test('an alias reads the last anchor of its name before it, as YAML says', () => {
    const result = validateSkill('---\nname: &n first\ndescription: &n second\nlicense: *n\n---\n')
    expect(result.errors).toEqual([])
    expect(result.frontmatter?.license).toBe('second')
    expect(validateSkill('---\nname: a\ndescription: *later\nlicense: &later x\n---\n').errors.map((e) => e.message)).toEqual([
      'Invalid YAML in frontmatter: Unresolved alias *later',
    ])
  })
})
