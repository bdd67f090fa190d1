// The import worker asks for garbage collections while a large document is read (DocumentSource.collectSoon, for
// memory): the hook must be called as the YAML loads and as the operations are built, and must change nothing read.
import { describe, expect, test } from 'bun:test'
import { importApiDocument } from '../../src/modules/applications/document/import.ts'

/** A description with `operations` operations and `fillers` extra scalars (each a YAML node that opens and closes). */
function yamlDocument(operations: number, fillers: number): string {
  const lines = ['openapi: 3.1.0', 'info:', '  title: Collected', '  version: "1"', 'paths:']
  for (let i = 0; i < operations; i++)
    lines.push(`  /things/${i}:`, '    get:', `      operationId: getThing${i}`, '      responses:', '        "200":', '          description: ok')
  lines.push('x-filler:')
  for (let i = 0; i < fillers; i++) lines.push(`  - f${i}`)
  return `${lines.join('\n')}\n`
}

describe('collections asked for while importing', () => {
  test('a YAML source is asked to collect as it loads and as operations are built; the result is the same as without', async () => {
    const text = yamlDocument(600, 120_000)
    let asked = 0
    const collected = await importApiDocument({ text, collectSoon: () => asked++ })
    const plain = await importApiDocument(text)
    // 120,000 fillers alone are 240,000 node events (at least one request at every 200,000), and 600 operations two
    // more (one every 250).
    expect(asked).toBeGreaterThanOrEqual(3)
    expect(collected.operations).toHaveLength(600)
    expect(JSON.stringify(collected)).toBe(JSON.stringify(plain))
  })

  test('a JSON source is asked to collect while its operations are built', async () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 'Collected', version: '1' },
      paths: Object.fromEntries(
        Array.from({ length: 500 }, (_, i) => [`/things/${i}`, { get: { operationId: `getThing${i}`, responses: { '200': { description: 'ok' } } } }]),
      ),
    }
    let asked = 0
    const collected = await importApiDocument({ text: JSON.stringify(document), collectSoon: () => asked++ })
    expect(asked).toBe(2)
    expect(JSON.stringify(collected)).toBe(JSON.stringify(await importApiDocument(JSON.stringify(document))))
  })
})
