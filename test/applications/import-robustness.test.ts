// Real descriptions are messy: every part of a document replaced by a value of the wrong shape must import with
// warnings or be refused as spec_invalid, never throw anything else (which the API would turn into a 500).
import { describe, expect, test } from 'bun:test'
import { importApiDocument } from '../../src/modules/applications/document/import.ts'
import { SpecInvalidError } from '../../src/modules/applications/document/read.ts'
import { petstore } from './helpers.ts'

const ODD_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  '',
  'x',
  true,
  [],
  [null],
  {},
  { $ref: '#/nope' },
  { $ref: '#/paths' },
  { $ref: '#' },
  { $ref: 7 },
  { $ref: '#/components/schemas/Pet/properties/parent' },
]

/** Every path to an object member or array element of `value`, in document order. */
function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return out
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key]
    out.push(path)
    paths(child, path, out)
  }
  return out
}

function withValueAt(document: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(document) as Record<string | number, unknown>
  let node = copy as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  node[path.at(-1)!] = value
  return copy
}

async function outcome(document: unknown): Promise<'imported' | 'invalid'> {
  try {
    await importApiDocument(JSON.stringify(document))
    return 'imported'
  } catch (error) {
    if (error instanceof SpecInvalidError) return 'invalid'
    throw new Error(`crashed: ${(error as Error).stack}`)
  }
}

describe('import robustness', () => {
  test('every member of a document replaced by each odd value: imported or spec_invalid, nothing else', async () => {
    const base = petstore()
    const all = paths(base)
    const seen = { imported: 0, invalid: 0 }
    for (const path of all)
      for (const value of ODD_VALUES) {
        const result = await outcome(withValueAt(base, path, value))
        seen[result]++
      }
    // Most damage is survivable: the document still imports, with warnings.
    expect(seen.imported).toBeGreaterThan(seen.invalid)
    expect(seen.imported + seen.invalid).toBe(all.length * ODD_VALUES.length)
  }, 120_000)

  test('cycles through parameters, path items and responses, and a schema that is only a reference to itself', async () => {
    const doc = petstore() as any
    doc.components.parameters = { A: { $ref: '#/components/parameters/B' }, B: { $ref: '#/components/parameters/A' } }
    doc.paths['/loop'] = { $ref: '#/paths/~1loop' }
    doc.paths['/pets'].get.parameters.push({ $ref: '#/components/parameters/A' })
    doc.paths['/pets'].get.responses['200'] = { $ref: '#/paths/~1pets/get/responses/200' }
    doc.components.schemas.Self = { $ref: '#/components/schemas/Self' }
    doc.paths['/pets'].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/Self' }
    const result = await importApiDocument(JSON.stringify(doc))
    expect(result.operations.length).toBe(4)
    const create = result.operations.find((operation) => operation.operation_id === 'createPet')!
    // A schema that is only itself describes nothing: the loop is cut and the body accepts any value.
    expect(JSON.parse(create.input_schema).properties.body).toEqual({})
    expect(result.warnings).toContainEqual({ pointer: '/components/schemas/Self', message: expect.stringContaining('contains itself') })
    expect(result.warnings).toContainEqual({ pointer: '/paths/~1loop', message: expect.stringContaining('comes back to itself') })
    expect(result.warnings).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/parameter's \$ref "#\/components\/parameters\/A" comes back/) }),
    )
  })

  test('a path item that refers to itself, or to nothing, is named in a warning (it has no operations)', async () => {
    const doc = petstore() as any
    doc.paths['/self'] = { $ref: '#/paths/~1self' }
    doc.paths['/nowhere'] = { $ref: '#/components/pathItems/missing' }
    const result = await importApiDocument(JSON.stringify(doc))
    expect(result.operations.length).toBe(4)
    expect(result.warnings).toContainEqual({
      pointer: '/paths/~1self',
      message: 'Path item "/self": its $ref "#/paths/~1self" comes back to itself (a reference loop), so it has no operations',
    })
    expect(result.warnings).toContainEqual({
      pointer: '/paths/~1nowhere',
      message: 'Path item "/nowhere": its $ref "#/components/pathItems/missing" does not resolve, so it has no operations',
    })
  })

  test('allOf/anyOf/oneOf/$ref loops that never describe a nested value are cut with a warning; recursion through a property stays', async () => {
    const doc = petstore() as any
    doc.components.schemas.A = { type: 'object', allOf: [{ $ref: '#/components/schemas/B' }], properties: { a: { type: 'string' } } }
    doc.components.schemas.B = { allOf: [{ $ref: '#/components/schemas/A' }, { required: ['a'] }] }
    doc.components.schemas.Choice = { oneOf: [{ $ref: '#/components/schemas/Choice' }, { type: 'integer' }] }
    doc.components.schemas.Tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } }
    doc.paths['/loops'] = {
      post: {
        operationId: 'loops',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  a: { $ref: '#/components/schemas/A' },
                  choice: { $ref: '#/components/schemas/Choice' },
                  tree: { $ref: '#/components/schemas/Tree' },
                },
              },
            },
          },
        },
        responses: {},
      },
    }
    const result = await importApiDocument(JSON.stringify(doc))
    const schema = JSON.parse(result.operations.find((operation) => operation.operation_id === 'loops')!.input_schema)
    const body = schema.properties.body.properties
    // A's loop through B is cut where it came back to A; B's own rule stays.
    expect(body.a).toEqual({ type: 'object', properties: { a: { type: 'string' } }, allOf: [{ allOf: [{ required: ['a'] }] }] })
    // A choice that includes the loop accepts anything, so only the rest of the schema is left (here: nothing).
    expect(body.choice).toEqual({})
    // Recursion through a property is fine: it ends with the value.
    expect(body.tree).toEqual({ $ref: '#/$defs/Tree' })
    expect(schema.$defs.Tree.properties.children.items).toEqual({ $ref: '#/$defs/Tree' })
    const loopWarnings = result.warnings.filter((warning) => warning.message.includes('contains itself'))
    expect(loopWarnings.map((warning) => warning.pointer).sort()).toEqual(['/components/schemas/A', '/components/schemas/Choice'])
  })

  test('a schema nested 100 levels deep (without references) is cut at 64 in the tool schema; deeper JSON is refused', async () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 100; i++) schema = { type: 'object', properties: { a: schema } }
    const doc = {
      openapi: '3.1.0',
      info: { title: 'Deep', version: '1' },
      paths: { '/d': { post: { requestBody: { content: { 'application/json': { schema } } }, responses: {} } } },
    }
    const result = await importApiDocument(JSON.stringify(doc))
    expect(result.operations[0]!.input_schema).toContain('nested too deeply')
    for (let i = 0; i < 100; i++) schema = { type: 'object', properties: { a: schema } }
    expect(await outcome({ ...doc, paths: { '/d': { post: { requestBody: { content: { 'application/json': { schema } } }, responses: {} } } } })).toBe(
      'invalid',
    )
  })

  test('deep YAML gets the deep-JSON answer, whether the parser overflows or not; a YAML alias bomb is refused', async () => {
    const head = 'openapi: 3.1.0\ninfo:\n  title: T\n  version: "1"\npaths: {}\nx-deep: '
    const refusal = async (text: string) => {
      try {
        await importApiDocument(text)
        return 'imported'
      } catch (error) {
        if (!(error instanceof SpecInvalidError)) throw error
        return error.message
      }
    }
    // 20,000 levels overflow the YAML parser's stack; 300 do not, and are measured after parsing.
    expect(await refusal(head + '['.repeat(20_000) + ']'.repeat(20_000))).toBe('The document nests deeper than 256 levels')
    const block = Array.from({ length: 300 }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')
    expect(await refusal(`openapi: 3.1.0\ninfo:\n  title: T\n  version: "1"\npaths: {}\nx-deep:\n${block} 1\n`)).toBe(
      'The document nests deeper than 256 levels',
    )
    expect(await refusal(head + '['.repeat(200) + ']'.repeat(200))).toBe('imported')
    // Aliases are shared values: a document that multiplies itself through them is refused before anything walks it.
    const laughs = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for (let level = 1; level < 9; level++)
      laughs.push(
        `${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(', ')}]`,
      )
    expect(await refusal(`${head}1\n${laughs.join('\n')}\n`)).toMatch(/^The file is not valid YAML or JSON: its aliases expand it to more than 100,000 values$/)
  })
})
