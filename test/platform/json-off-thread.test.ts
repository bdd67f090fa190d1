// Large JSON bodies are parsed in the JSON worker, small ones on the request thread: the same bytes give the same value
// and the same answers either way (invalid UTF-8, nested too deep, not an object, malformed). Proved by one app whose
// parser sends every body to the worker beside one that parses every body inline, and by the real server, whose
// template routes take bodies past the worker's threshold. A body over the JSON cap holds at most 100,000 values.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { httpPlatform } from '../../src/platform/http/http-platform.ts'
import { createJsonWorkerParser } from '../../src/platform/http/json-off-thread.ts'
import { holdsMoreValuesThan, MAX_JSON_DEPTH, MAX_LARGE_BODY_VALUES, parseJsonBytes } from '../../src/platform/http/json-text.ts'
import { OFF_THREAD_JSON_BYTES } from '../../src/platform/http/body.ts'
import { type People, startWithPeople } from '../helpers/people.ts'
import { CapturedLog } from '../helpers/server.ts'
import { ownedApplication } from '../ui-templates/helpers.ts'

const MiB = 1024 * 1024
const encode = (text: string) => new TextEncoder().encode(text)
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

/** Bodies of every kind, the small ones as they are; the answers must not depend on where they were parsed. */
const BODIES: Record<string, Uint8Array> = {
  'an object': encode(JSON.stringify({ a: 1, b: [true, null, 'x'], c: { d: 'é😀\u0001' } })),
  'a large object (6 MiB of \\u0001 escapes)': encode(JSON.stringify({ html: '\u0001'.repeat(MiB), n: 1.5e300 })),
  'invalid UTF-8': new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  'invalid UTF-8, large': new Uint8Array([...encode(`{"a":"${'x'.repeat(300_000)}`), 0xc3, 0x28, ...encode('"}')]),
  'nested too deep': encode(`{"a":${nested(MAX_JSON_DEPTH + 1)}}`),
  'nested too deep, large': encode(`{"pad":"${'x'.repeat(300_000)}","a":${nested(MAX_JSON_DEPTH + 1)}}`),
  'a number': encode('42'),
  'an array': encode('[{"name":"a"},2,3]'),
  'a large array': encode(JSON.stringify(Array.from({ length: 40_000 }, (_, i) => `item-${i}`))),
  null: encode('null'),
  'a string': encode('"x"'),
  'malformed: cut short': encode('{"email": '),
  'malformed: a trailing comma': encode('{"a":1,}'),
  'malformed: large, garbage at the end': encode(`{"a":"${'y'.repeat(300_000)}"} trailing`),
}

describe('the worker and the request thread parse alike', () => {
  const worker = createJsonWorkerParser()
  test.each(Object.keys(BODIES))('%s: the same result from parseJsonBytes and from the worker', async (name) => {
    const bytes = BODIES[name]!
    const inline = parseJsonBytes(bytes)
    const offThread = await worker(bytes.slice())
    expect(offThread).toEqual(inline)
    if (inline.ok) expect(JSON.stringify(offThread.ok && offThread.value)).toBe(JSON.stringify(inline.value))
  })

  test('the value limit applies alike: at the limit the body passes, one value over it is refused', async () => {
    // The object, its array and MAX - 2 numbers are MAX values.
    const at = encode(`{"a":[${'0,'.repeat(MAX_LARGE_BODY_VALUES - 3)}0]}`)
    const over = encode(`{"a":[${'0,'.repeat(MAX_LARGE_BODY_VALUES - 2)}0]}`)
    for (const bytes of [at, over]) expect(await worker(bytes.slice(), MAX_LARGE_BODY_VALUES)).toEqual(parseJsonBytes(bytes, MAX_LARGE_BODY_VALUES))
    expect(parseJsonBytes(at, MAX_LARGE_BODY_VALUES).ok).toBe(true)
    expect(parseJsonBytes(over, MAX_LARGE_BODY_VALUES)).toEqual({ ok: false, error: `A JSON body this large may hold at most ${MAX_LARGE_BODY_VALUES} values` })
  })

  test('values are counted at every depth, keys not counted', () => {
    // The object, a and d; a's two objects; b's 1, c's array; its two numbers: 9.
    const value = { a: [{ b: 1 }, { c: [1, 2] }], d: 'x' }
    expect(holdsMoreValuesThan(value, 9)).toBe(false)
    expect(holdsMoreValuesThan(value, 8)).toBe(true)
    expect(holdsMoreValuesThan('x', 1)).toBe(false)
    expect(holdsMoreValuesThan([], 0)).toBe(true)
  })

  test('requests in flight at once are each answered with their own body', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) => ({ i, pad: String(i).repeat(50_000) }))
    const results = await Promise.all(bodies.map((body) => worker(encode(JSON.stringify(body)))))
    expect(results).toEqual(bodies.map((value) => ({ ok: true, value })))
  })
})

describe('over HTTP: identical answers from an app that parses every body in the worker and one that parses none there', () => {
  const appWith = (offThreadBytes: number) =>
    new Elysia()
      .use(httpPlatform({ logger: new CapturedLog(), limits: { json: 8 * MiB, upload: MiB, offThreadBytes } }))
      .post('/echo', ({ body }) => ({ body }))
  const everyBody = appWith(0)
  const noBody = appWith(Number.POSITIVE_INFINITY)
  const post = async (app: ReturnType<typeof appWith>, bytes: Uint8Array) => {
    const response = await app.handle(
      new Request('http://localhost/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes.slice() }),
    )
    return { status: response.status, text: await response.text() }
  }

  test.each(Object.keys(BODIES))('%s', async (name) => {
    const bytes = BODIES[name]!
    const [offThread, inline] = [await post(everyBody, bytes), await post(noBody, bytes)]
    expect(offThread).toEqual(inline)
    expect(offThread.status).toBe(name.startsWith('an object') || name.startsWith('a large object') ? 200 : 422)
  })
})

describe('the real server: template bodies past the threshold', () => {
  let w: People
  let app: string
  beforeAll(async () => {
    w = await startWithPeople()
    app = await ownedApplication(w)
  })
  afterAll(() => w.t.close())
  const send = (raw: string | Uint8Array) =>
    w.t.request('POST', `/api/ui-templates/${app}/operations/listPets`, { token: w.owner.token, rawBody: raw, headers: { 'content-type': 'application/json' } })

  test('a template sent as 6 MiB of escapes is saved as sent', async () => {
    const html = `<p>${'\u0001'.repeat(MiB - 16)}</p>`
    const body = JSON.stringify({ html })
    expect(body.length).toBeGreaterThan(OFF_THREAD_JSON_BYTES)
    const created = await send(body)
    expect(created.status).toBe(201)
    expect(created.body.html).toBe(html)
  })

  test('a malformed large body is the same 422 json_invalid as a small one with the same fault', async () => {
    const large = await send(`{"html":"${'x'.repeat(400_000)}"} trailing`)
    const small = await send('{"html":"x"} trailing')
    expect(large.status).toBe(422)
    expect(large.body).toEqual(small.body)
    expect(large.body.detail[0]).toMatchObject({ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' })
  })

  test('invalid UTF-8 and nesting too deep in a large body: the same 422 answers as small bodies', async () => {
    const pad = 'x'.repeat(400_000)
    const badUtf8 = (extra: string) => new Uint8Array([...encode(`{"html":"${extra}`), 0xff, ...encode('"}')])
    expect((await send(badUtf8(pad))).body).toEqual((await send(badUtf8(''))).body)
    const deep = (extra: string) => `{"html":"${extra}","x":${nested(MAX_JSON_DEPTH + 1)}}`
    const large = await send(deep(pad))
    expect(large.status).toBe(422)
    expect(large.body).toEqual((await send(deep(''))).body)
    expect(large.body.detail[0].ctx).toEqual({ error: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` })
  })

  test('a large array is "Input should be an object", as a small one is', async () => {
    const large = await send(JSON.stringify(Array.from({ length: 30_000 }, (_, i) => i)))
    expect(large.status).toBe(422)
    expect(large.body.detail[0]).toMatchObject({ loc: ['body'], msg: 'Input should be an object', type: 'model_type' })
  })

  test('a body over 1 MiB holding more than 100,000 values is refused before it reaches the route', async () => {
    const body = `{"html":"<p>x</p>","junk":[${'0,'.repeat(600_000)}0]}`
    expect(body.length).toBeGreaterThan(MiB)
    const refused = await send(body)
    expect(refused.status).toBe(422)
    expect(refused.body.detail).toEqual([
      {
        loc: ['body'],
        msg: 'JSON decode error',
        type: 'json_invalid',
        ctx: { error: `A JSON body this large may hold at most ${MAX_LARGE_BODY_VALUES} values` },
      },
    ])
    // Under 1 MiB the same kind of body is only held to the route's schema (the junk field is dropped).
    const small = await send(`{"html":"<p>x</p>","junk":[${'0,'.repeat(200_000)}0]}`)
    expect(small.status).toBe(201)
  })
})
