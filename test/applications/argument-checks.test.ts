// Arguments are checked with bounded work and bounded answers, whatever schema a member uploads (issue 25 items 2, 4
// and 6; issue 26 item 1): a huge enum does not multiply into the error, uniqueItems is linear, schema loops neither
// overflow the stack nor answer 500, an exponential schema is refused with a clear 422, and problems under `$defs`
// name the expected type. Over HTTP execute and over an MCP tools/call of the same operation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ERROR_BODY_MAX_BYTES } from '../../src/platform/bounded-errors.ts'
import { checkAgainstSchema, DEFAULT_LIMITS } from '../../src/modules/applications/checks/json-schema.ts'
import { connectV1, type McpWorld, startMcpWorld } from '../mcp/helpers.ts'
import { uploadSpec } from './helpers.ts'

const ENUM_SIZE = 20_000
const jsonBody = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } })
const ok = { '200': { description: 'ok' } }

/** Ten ways to reach the next level, eight levels deep: 10^8 paths to an integer, none of which a string takes. */
function explodingSchemas(): Record<string, unknown> {
  const schemas: Record<string, unknown> = { L8: { type: 'integer', minimum: 0 } }
  for (let level = 7; level >= 0; level--) schemas[`L${level}`] = { anyOf: Array.from({ length: 10 }, () => ({ $ref: `#/components/schemas/L${level + 1}` })) }
  return schemas
}

function boundsApi(serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: { title: 'Bounds', version: '1' },
    servers: [{ url: serverUrl }],
    paths: {
      '/tags': {
        post: {
          operationId: 'setTags',
          requestBody: jsonBody({ type: 'array', items: { type: 'string', enum: Array.from({ length: ENUM_SIZE }, (_, i) => `tag-${i}`) } }),
          responses: ok,
        },
      },
      '/unique': {
        post: {
          operationId: 'uniqueThings',
          requestBody: jsonBody({
            type: 'array',
            uniqueItems: true,
            items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
          }),
          responses: ok,
        },
      },
      '/loop': { post: { operationId: 'loop', requestBody: jsonBody({ $ref: '#/components/schemas/A' }), responses: ok } },
      '/tree': { post: { operationId: 'tree', requestBody: jsonBody({ $ref: '#/components/schemas/Node' }), responses: ok } },
      '/explode': { post: { operationId: 'explode', requestBody: jsonBody({ $ref: '#/components/schemas/L0' }), responses: ok } },
    },
    components: {
      schemas: {
        A: { type: 'object', allOf: [{ $ref: '#/components/schemas/B' }], properties: { name: { type: 'string' } } },
        B: { allOf: [{ $ref: '#/components/schemas/A' }] },
        Node: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, size: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
        },
        ...explodingSchemas(),
      },
    },
  }
}

let w: McpWorld
let upstream: ReturnType<typeof Bun.serve>
const received: string[] = []
let warnings: { pointer: string; message: string }[] = []

beforeAll(async () => {
  upstream = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      received.push(new URL(request.url).pathname)
      return Response.json({ ok: true, size: (await request.text()).length })
    },
  })
  w = await startMcpWorld({ env: { AGENTBOX_OUTBOUND_ALLOW: '127.0.0.1' } })
  const imported = await uploadSpec(w.t, w.admin, boundsApi(`http://127.0.0.1:${upstream.port}`), {
    api_name: 'bounds',
    global_spec: 'true',
    create_mcp: 'true',
  })
  expect(imported.status).toBe(201)
  warnings = imported.body.warnings
})
afterAll(async () => {
  await w.stop()
  upstream.stop(true)
})

const execute = (operation: string, args: unknown, dryRun = true) =>
  w.t.request('POST', `/api/applications/bounds/operations/${operation}/execute`, { token: w.owner.token, body: { arguments: args, dry_run: dryRun } })

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8')

async function callTool(name: string, args: Record<string, unknown>) {
  const client = await connectV1(`${w.base}/app/bounds/mcp`, w.owner.token)
  try {
    return (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: any }
  } finally {
    await client.close()
  }
}

describe('a huge enum does not multiply into the error (issue 25, item 2)', () => {
  const wrong = Array.from({ length: 300 }, (_, i) => `wrong-${i}`)

  test('HTTP: 300 wrong items of a 20,000-value enum: 50 short issues and one saying 250 more, under 64 KiB', async () => {
    const res = await execute('setTags', { body: wrong })
    expect(res.status).toBe(422)
    expect(bytesOf(res.body)).toBeLessThan(ERROR_BODY_MAX_BYTES)
    expect(res.body.detail).toHaveLength(51)
    expect(res.body.detail[0]).toEqual({
      loc: ['body', 'arguments', 'body', 0],
      msg: "Input should be 'tag-0', 'tag-1', 'tag-2', 'tag-3', 'tag-4', 'tag-5', 'tag-6', 'tag-7', 'tag-8', 'tag-9' or one of 19,990 more values",
      type: 'literal_error',
      input: 'wrong-0',
      ctx: { expected: "'tag-0', 'tag-1', 'tag-2', 'tag-3', 'tag-4', 'tag-5', 'tag-6', 'tag-7', 'tag-8', 'tag-9' or one of 19,990 more values" },
    })
    expect(res.body.detail.at(-1)).toEqual({ loc: ['body', 'arguments'], msg: '… and 250 more errors', type: 'too_many_errors', ctx: { more: 250 } })
    // Items in the enum pass.
    expect((await execute('setTags', { body: ['tag-19999', 'tag-0'] })).status).toBe(200)
  })

  test('MCP tools/call of the same operation: a tool error of bounded size that says how many more', async () => {
    const result = await callTool('setTags', { body: wrong })
    expect(result.isError).toBe(true)
    const text = result.content[0]!.text
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThan(ERROR_BODY_MAX_BYTES)
    expect(text).toStartWith("body.0: Input should be 'tag-0'")
    expect(text).toEndWith('; … and 250 more errors')
    expect(text.split('; ')).toHaveLength(51)
  })
})

describe('uniqueItems is linear (issue 25, item 4)', () => {
  const objects = (count: number) => Array.from({ length: count }, (_, i) => ({ id: i, name: `n${i}` }))

  test('10,000 distinct objects pass; one repeat (keys in another order) is named; 30,000 are refused as too costly', async () => {
    expect((await execute('uniqueThings', { body: objects(10_000) })).status).toBe(200)
    const repeated = objects(10_000)
    repeated[9_999] = { name: 'n7', id: 7 }
    const res = await execute('uniqueThings', { body: repeated })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'arguments', 'body'],
        msg: 'List should have unique items: item 9999 repeats item 7',
        type: 'value_error',
        input: expect.any(Array),
        ctx: { index: 9999, repeats: 7 },
      },
    ])
    expect(bytesOf(res.body)).toBeLessThan(2048)
    const costly = await execute('uniqueThings', { body: objects(30_000) })
    expect(costly.status).toBe(422)
    expect(costly.body.detail).toMatchObject([{ loc: ['body', 'arguments'], type: 'arguments_too_complex' }])
  })

  test('the work grows with the items, not with their square', () => {
    const schema = { type: 'array', uniqueItems: true, items: { type: 'object' } }
    const unbounded = { ...DEFAULT_LIMITS, budget: 1e12 }
    const small = checkAgainstSchema(schema, objects(10_000), unbounded)
    const large = checkAgainstSchema(schema, objects(40_000), unbounded)
    expect(small.issues).toEqual([])
    expect(large.issues).toEqual([])
    expect(large.spent / small.spent).toBeGreaterThan(3.9)
    expect(large.spent / small.spent).toBeLessThan(4.1)
    // The 20,000 objects of the attack fit in the budget; 80,000 (what 1 MiB allows) do not, and stop early.
    expect(checkAgainstSchema(schema, objects(20_000)).spent).toBeLessThan(DEFAULT_LIMITS.budget)
    const refused = checkAgainstSchema(schema, objects(80_000))
    expect(refused.issues).toMatchObject([{ type: 'arguments_too_complex' }])
    expect(refused.spent).toBeLessThan(DEFAULT_LIMITS.budget * 1.1)
  })
})

describe('schemas that loop or explode (issue 25, item 6)', () => {
  test('an allOf/$ref loop imports with a warning, and the operation validates: a 200 dry run, a 422 for a wrong type, never a 500', async () => {
    expect(warnings).toContainEqual({ pointer: '/components/schemas/A', message: expect.stringContaining('contains itself') })
    expect((await execute('loop', { body: { name: 'x' } })).status).toBe(200)
    const wrong = await execute('loop', { body: { name: 5 } })
    expect(wrong.status).toBe(422)
    expect(wrong.body.detail).toEqual([{ loc: ['body', 'arguments', 'body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 5 }])
    const result = await callTool('loop', { body: { name: 'x' } })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({ status: 200, body: { ok: true } })
    expect(received).toContain('/loop')
  })

  test('a schema loop stored before loops were cut still validates: no stack overflow, no 500', () => {
    const stored = {
      type: 'object',
      properties: { body: { $ref: '#/$defs/A' } },
      $defs: { A: { allOf: [{ $ref: '#/$defs/B' }], properties: { n: { type: 'integer' } } }, B: { anyOf: [{ $ref: '#/$defs/A' }] } },
    }
    expect(checkAgainstSchema(stored, { body: { n: 1 } }).issues).toEqual([])
    expect(checkAgainstSchema(stored, { body: { n: 'x' } }).issues).toMatchObject([{ loc: ['body', 'n'], type: 'int_type' }])
    const self = { $ref: '#' }
    expect(checkAgainstSchema(self, { anything: true }).issues).toEqual([])
  })

  test('10^8 ways through anyOf: refused with a clear 422 once the budget is spent, over HTTP and MCP', async () => {
    const res = await execute('explode', { body: 'not a number' })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'arguments'],
        msg: expect.stringMatching(
          /^The arguments are too large or too complex to check against this operation's schema \(the check stopped after 200,000 steps\)/,
        ),
        type: 'arguments_too_complex',
        input: { body: 'not a number' },
      },
    ])
    // A value that takes the first way through is found at once.
    expect((await execute('explode', { body: 3 })).status).toBe(200)
    const result = await callTool('explode', { body: 'not a number' })
    expect(result.isError).toBe(true)
    expect(result.content[0]!.text).toContain('too large or too complex')
  })

  test('a schema deeper than the stack allows stops with the same 422, not a stack overflow', () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 20_000; i++) schema = { allOf: [schema] }
    const { issues } = checkAgainstSchema(schema, 5)
    expect(issues).toMatchObject([{ loc: [], type: 'arguments_too_complex', msg: expect.stringContaining('nests deeper than 1000 levels') }])
  })
})

describe('problems under $defs name the expected type (issue 26, item 1)', () => {
  test('a recursive schema kept in $defs: string_type, int_type, missing, at every depth', async () => {
    const res = await execute('tree', { body: { name: 1, size: 'big', children: [{ name: 'ok', children: [{ size: 2.5 }] }] } })
    expect(res.status).toBe(422)
    expect(res.body.detail).toEqual([
      { loc: ['body', 'arguments', 'body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 1 },
      { loc: ['body', 'arguments', 'body', 'size'], msg: 'Input should be a valid integer', type: 'int_type', input: 'big' },
      { loc: ['body', 'arguments', 'body', 'children', 0, 'children', 0, 'name'], msg: 'Field required', type: 'missing', input: { size: 2.5 } },
      { loc: ['body', 'arguments', 'body', 'children', 0, 'children', 0, 'size'], msg: 'Input should be a valid integer', type: 'int_type', input: 2.5 },
    ])
    expect(JSON.stringify(res.body)).not.toContain('undefined')
  })
})
