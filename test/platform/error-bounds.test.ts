// Error bodies stay under 64 KiB whatever produced them (issue 25, item 2): long lists end with a too_many_errors entry
// saying how many more there were, echoed inputs and ctx values are shortened, sentences are cut. Through the real
// server for route validation and non-object bodies, through a bare Elysia app for a service's DomainError and an
// HttpError, and through callTool for tool errors.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia, t as schema } from 'elysia'
import { boundedIssues, ERROR_BODY_MAX_BYTES, errorBodyText, shortenValue } from '../../src/platform/bounded-errors.ts'
import { invalidInput, notFound } from '../../src/platform/errors.ts'
import { HttpError } from '../../src/platform/http/http-error.ts'
import { httpPlatform } from '../../src/platform/http/http-platform.ts'
import { callTool, ToolError, type Tool } from '../../src/platform/tools/tool.ts'
import { CapturedLog, startTestServer, type TestServer } from '../helpers/server.ts'

let t: TestServer
let adminToken: string

beforeAll(async () => {
  t = await startTestServer()
  ;({ adminToken } = await t.provision())
})
afterAll(() => t.close())

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8')

describe('HTTP error bodies', () => {
  test('an 860 KB array where an object belongs: 422 model_type with the input shortened', async () => {
    const big = Array.from({ length: 80_000 }, (_, i) => `item-${i}`)
    const res = await t.request('POST', '/api/users', { token: adminToken, body: big })
    expect(res.status).toBe(422)
    expect(res.body.detail).toMatchObject([{ loc: ['body'], type: 'model_type' }])
    expect(bytesOf(res.body)).toBeLessThan(1024)
    expect(res.body.detail[0].input.at(-1)).toBe('…')
  })

  test('route validation past the errors Elysia collects: the list ends saying there were more', async () => {
    const res = await t.request('PUT', '/api/org/settings', { token: adminToken, body: { outbound_allow: Array.from({ length: 200 }, (_, i) => i) } })
    expect(res.status).toBe(422)
    expect(res.body.detail.length).toBeLessThanOrEqual(51)
    expect(res.body.detail.at(-1)).toMatchObject({ loc: ['body'], type: 'too_many_errors', ctx: { at_least: true } })
    expect(res.body.detail.at(-1).msg).toMatch(/^… and (at least \d+ )?more errors$/)
  })

  test("a service's 100,000 issues with megabyte inputs and ctx: 50 shortened ones and a count of the rest, under 64 KiB", async () => {
    const huge = 'x'.repeat(1_000_000)
    const issues = Array.from({ length: 100_000 }, (_, i) => ({
      loc: ['items', i, huge],
      msg: `Bad item ${huge}`,
      type: 'value_error',
      input: { value: huge, list: [huge, huge] },
      ctx: { expected: huge, nested: { deep: [huge] } },
    }))
    const app = new Elysia()
      .use(httpPlatform({ logger: new CapturedLog(), limits: { json: 1024, upload: 2048 } }))
      .get('/many', () => {
        throw invalidInput(...issues.slice(0, 60_000))
      })
      .get('/http', () => {
        throw new HttpError(422, issues)
      })
      .get('/sentence', () => {
        throw notFound(`No such thing: ${huge}`)
      })
    for (const path of ['/many', '/http']) {
      const res = await app.handle(new Request(`http://localhost${path}`))
      expect(res.status).toBe(422)
      const text = await res.text()
      expect(Buffer.byteLength(text, 'utf8')).toBeLessThan(ERROR_BODY_MAX_BYTES)
      const detail = JSON.parse(text).detail
      expect(detail.length).toBeLessThanOrEqual(51)
      const kept = detail.length - 1
      expect(detail.at(-1)).toEqual({
        loc: ['body'],
        msg: `… and ${(path === '/many' ? 60_000 - kept : 100_000 - kept).toLocaleString('en-US')} more errors`,
        type: 'too_many_errors',
        ctx: { more: path === '/many' ? 60_000 - kept : 100_000 - kept },
      })
      expect(detail[0].msg.length).toBeLessThanOrEqual(1000)
      expect(JSON.stringify(detail[0].input).length).toBeLessThan(300)
      expect(JSON.stringify(detail[0].ctx).length).toBeLessThan(600)
    }
    const sentence = await app.handle(new Request('http://localhost/sentence'))
    expect(sentence.status).toBe(404)
    expect(Buffer.byteLength(await sentence.text(), 'utf8')).toBeLessThan(10_000)
  })
})

describe('tool errors', () => {
  test('a ToolError made with 10,000 issues and a 1 MB message keeps 50 issues and 16,000 characters', () => {
    const issues = Array.from({ length: 10_000 }, (_, i) => ({ loc: ['a', i], msg: 'wrong', type: 'value_error', input: 'y'.repeat(10_000) }))
    const error = new ToolError('invalid_arguments', 'z'.repeat(1_000_000), issues)
    expect(error.message.length).toBe(16_000)
    expect(error.issues).toHaveLength(51)
    expect(error.issues.at(-1)).toEqual({ loc: [], msg: '… and 9,950 more errors', type: 'too_many_errors', ctx: { more: 9950 } })
  })

  test("a handler's DomainError with 100,000 issues becomes a tool error of bounded text", async () => {
    const tool: Tool = {
      name: 'many',
      description: 'fails',
      inputSchema: schema.Object({}),
      jsonSchema: { type: 'object' },
      async handler() {
        throw invalidInput(...Array.from({ length: 100_000 }, (_, i) => ({ loc: ['arguments', 'x', i], msg: 'wrong', type: 'value_error' })))
      },
    }
    const outcome = await callTool(tool, { userId: 'u', role: 'member' } as never, {})
    expect(outcome.ok).toBe(false)
    if (outcome.ok) return
    expect(outcome.error.issues).toHaveLength(51)
    expect(outcome.error.message).toEndWith('… and 99,950 more errors')
    expect(Buffer.byteLength(outcome.error.message, 'utf8')).toBeLessThan(ERROR_BODY_MAX_BYTES)
  })
})

describe('the bounding itself', () => {
  test('shortenValue keeps the start of strings, arrays and objects and marks what it cut', () => {
    expect(shortenValue('short')).toBe('short')
    expect(shortenValue('x'.repeat(1000))).toBe(`${'x'.repeat(197)}…`)
    expect(shortenValue([1, 2, 3])).toEqual([1, 2, 3])
    const cut = shortenValue(Array.from({ length: 1000 }, (_, i) => i)) as unknown[]
    expect(cut.at(-1)).toBe('…')
    expect(JSON.stringify(cut).length).toBeLessThan(250)
    expect(JSON.stringify(shortenValue({ a: 'x'.repeat(5000), b: { c: 'y'.repeat(5000) } })).length).toBeLessThan(250)
  })

  test('a producer that already cut its list: the counts add up and its location is kept', () => {
    const issues = [
      ...Array.from({ length: 60 }, (_, i) => ({ loc: ['arguments', i], msg: 'm', type: 't' })),
      { loc: ['arguments'], msg: '… and 40 more errors', type: 'too_many_errors', ctx: { more: 40 } },
    ]
    const bounded = boundedIssues(issues)
    expect(bounded).toHaveLength(51)
    expect(bounded.at(-1)).toEqual({ loc: ['arguments'], msg: '… and 50 more errors', type: 'too_many_errors', ctx: { more: 50 } })
  })

  test('issues heavy in multi-byte characters are dropped until the body fits', () => {
    const wide = '😀'.repeat(100_000)
    const issues = Array.from({ length: 50 }, (_, i) => ({ loc: [wide, i], msg: wide, type: wide, input: wide, ctx: { a: wide, b: wide, c: wide } }))
    const text = errorBodyText(issues)
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThan(ERROR_BODY_MAX_BYTES)
    expect(JSON.parse(text).detail.at(-1).type).toBe('too_many_errors')
  })
})
