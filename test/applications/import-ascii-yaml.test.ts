// YAML uploads with characters past ASCII are parsed from one-byte text with placeholders (ascii-text.ts, for memory):
// what comes out must be exactly what the text as uploaded gives, and its refusals must read the same.
import { describe, expect, test } from 'bun:test'
import { asciiText, restoreCharacters } from '../../src/modules/applications/document/ascii-text.ts'
import { importApiDocument } from '../../src/modules/applications/document/import.ts'
import { SpecInvalidError } from '../../src/modules/applications/document/read.ts'
import { startTestServer } from '../helpers/server.ts'
import { uploadSpec } from './helpers.ts'

const encode = (text: string) => new TextEncoder().encode(text)

const YAML = `\uFEFFopenapi: 3.1.0
info:
  title: Café “Ünïcode” 🚀
  description: |
    Multi-line: 日本語, ½, nbsp\u00A0here, NEL\u0085 and a line separator\u2028kept.
  version: "1"
servers:
  - url: https://api.example.com/ü
paths:
  /café/{ĩd}:
    get:
      operationId: getCafé
      summary: 'It''s “quoted” — 😀'
      parameters:
        - name: ĩd
          in: path
          required: true
          schema: { type: string, enum: [ä, "ö\\u00fc", 𝄞] }
      responses:
        "200":
          description: ok
          content:
            application/json:
              example: { naïve: "résumé", 🔑: ✓ }
  /plain:
    post:
      operationId: plainAscii
      responses: { "204": { description: done } }
x-alias:
  a: &ü { ключ: значение }
  b: *ü
`

async function refusal(source: Parameters<typeof importApiDocument>[0]): Promise<string> {
  try {
    await importApiDocument(source)
    return 'imported'
  } catch (error) {
    if (!(error instanceof SpecInvalidError)) throw error
    return error.message
  }
}

describe('YAML read from ASCII text with placeholders', () => {
  test('gives exactly what the text as uploaded gives: keys, values, quotes, aliases, astral characters, a byte order mark', async () => {
    const ascii = asciiText(encode(YAML))
    expect(ascii).not.toBeNull()
    // One byte a character: nothing past ASCII is left in the text.
    expect([...ascii!.text].every((character) => character.charCodeAt(0) < 0x80)).toBe(true)
    const fromAscii = await importApiDocument({ ...ascii! })
    const fromText = await importApiDocument(new TextDecoder().decode(encode(YAML)))
    expect(fromAscii).toEqual(fromText)
    expect(fromAscii.title).toBe('Café “Ünïcode” 🚀')
    expect(fromAscii.server_url).toBe('https://api.example.com/ü')
    // An operationId past ASCII is not usable as a tool name: the id is derived from method and path, as from the text.
    const operation = fromAscii.operations.find((entry) => entry.path === '/café/{ĩd}')!
    expect(operation.operation_id).toBe('get_caf_d')
    expect(operation.summary).toBe("It's “quoted” — 😀")
    expect(JSON.parse(operation.input_schema).properties.ĩd.enum).toEqual(['ä', 'öü', '𝄞'])
    expect(JSON.parse(operation.sample).body).toEqual({ naïve: 'résumé', '🔑': '✓' })
  })

  test('is not used where it gains nothing: JSON, pure ASCII, or characters the YAML parser refuses', () => {
    expect(asciiText(encode('{"openapi": "3.1.0", "info": {"title": "Café"}}'))).toBeNull()
    expect(asciiText(encode('  \n[1, "é"]'))).toBeNull()
    expect(asciiText(encode('openapi: 3.1.0\n'))).toBeNull()
    expect(asciiText(encode('a: "\u0090"\n'))).toBeNull()
    expect(asciiText(encode('a: "\uFFFE"\n'))).toBeNull()
  })

  test('refuses bytes that are not UTF-8 as a fatal decoder does', () => {
    for (const bad of [
      [0x61, 0x3a, 0x20, 0xc3], // truncated
      [0x61, 0x3a, 0x20, 0xc0, 0xaf], // overlong
      [0x61, 0x3a, 0x20, 0xed, 0xa0, 0x80], // a surrogate
      [0x61, 0x3a, 0x20, 0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
      [0x61, 0x3a, 0x20, 0xe2, 0x28, 0xa1], // a bad continuation
    ]) {
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bad))).toThrow()
      expect(() => asciiText(new Uint8Array(bad))).toThrow('The file is not UTF-8 text')
    }
  })

  test('a YAML error names the line and column of the text as uploaded', async () => {
    const broken = 'openapi: 3.1.0\ninfo:\n  title: “é🚀”\n  x: [1, 2\n  bad: : :\n'
    const plain = await refusal(broken)
    expect(plain).toMatch(/^The file is not valid YAML or JSON: .+\(\d+:\d+\)$/)
    expect(await refusal({ ...asciiText(encode(broken))! })).toBe(plain)
    const late = 'openapi: 3.1.0\ninfo: {title: “é🚀”, version: 1}}\n'
    expect(await refusal({ ...asciiText(encode(late))! })).toBe(await refusal(late))
  })

  test('restoreCharacters leaves a marker-free tree alone and restores shared values once', () => {
    const { text, marker } = asciiText(encode('a: é'))!
    expect(text.startsWith('a: ')).toBe(true)
    const shared = { v: `x${marker}0000e9` }
    const tree = restoreCharacters({ one: shared, two: shared, [`k${marker}01f680`]: [`${marker}0000e9`] }, marker) as Record<string, unknown>
    expect(tree).toEqual({ one: { v: 'xé' }, two: { v: 'xé' }, 'k🚀': ['é'] })
  })
})

describe('over HTTP', () => {
  test('a YAML description with characters past ASCII imports with them intact', async () => {
    const t = await startTestServer()
    try {
      const { adminToken } = await t.provision()
      const res = await uploadSpec(t, adminToken, YAML, { api_name: 'unicode' }, 'spec.yaml')
      expect(res.status).toBe(201)
      expect(res.body.title).toBe('Café “Ünïcode” 🚀')
      const operations = await t.request('GET', '/api/applications/unicode/operations', { token: adminToken })
      expect(operations.status).toBe(200)
      const listed = JSON.stringify(operations.body)
      expect(listed).toContain('/café/{ĩd}')
      expect(listed).toContain("It's “quoted” — 😀")
    } finally {
      await t.close()
    }
  })
})
