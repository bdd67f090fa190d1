// The routes with a larger JSON cap (the UI templates', 7 MiB) have their body checked against their schema by the body
// parser (platform/http/body-schema-check.ts), so that Elysia's own check never fails there: its ValidationError writes
// the whole body as JSON when it is made. These tests hold the two paths side by side (one app with the parser's
// check, one where Elysia checks): every answer is the same, byte for byte, and only Elysia's writes the body.
import { describe, expect, test } from 'bun:test'
import { Elysia, t } from 'elysia'
import { bodySchemaChecksOf, type RouteBodySchema } from '../../src/platform/http/body-schema-check.ts'
import { httpPlatform } from '../../src/platform/http/http-platform.ts'
import { withRequestTracking } from '../../src/platform/http/request-tracking.ts'
import { NOT_BLANK } from '../../src/platform/http/schema-pieces.ts'
import { CapturedLog } from '../helpers/server.ts'
import { longestJsonWritten } from '../helpers/json-written.ts'

const MiB = 1024 * 1024

// What the template bodies use, and more: a pattern, literals, a nullable object, an integer with a minimum, arrays
// with a bound, a closed object (unknown fields dropped by TypeBox's Clean) and a nested open one.
const Origin = t.String({ maxLength: 300, pattern: '^https://[a-z.]+$' })
const Body = t.Object({
  html: t.String({ maxLength: MiB }),
  type: t.Optional(t.String({ minLength: 1, maxLength: 32 })),
  title: t.Optional(t.String({ pattern: NOT_BLANK })),
  is_default: t.Optional(t.Boolean()),
  format: t.Optional(t.Literal('mcp-app')),
  kind: t.Optional(t.Union([t.Literal('a'), t.Literal('b')])),
  count: t.Optional(t.Integer({ minimum: 1 })),
  csp: t.Optional(t.Union([t.Object({ domains: t.Optional(t.Array(Origin, { maxItems: 3 })) }), t.Null()])),
  closed: t.Optional(t.Object({ a: t.Optional(t.Number()) }, { additionalProperties: false })),
  tags: t.Optional(t.Array(t.String())),
  meta: t.Optional(t.Object({ border: t.Optional(t.Boolean()), permissions: t.Optional(t.Object({ camera: t.Optional(t.Object({})) })) })),
})

function appOf(early: boolean) {
  let routes: readonly RouteBodySchema[] = []
  const limits = early
    ? { json: 1024, upload: 1024, largeJson: () => 7 * MiB, bodySchemaCheck: bodySchemaChecksOf(() => routes) }
    : { json: 7 * MiB, upload: 1024 }
  const log = new CapturedLog()
  // As the server builds its app (server.ts): TypeBox's Clean, request tracking (the error handler reads the body as sent).
  const app = new Elysia({ normalize: 'typebox' }).use(httpPlatform({ logger: log, limits })).post('/t/:id', ({ body }) => ({ saved: body }), { body: Body })
  routes = app.routes
  const fetch = withRequestTracking((request) => app.handle(request), log)
  return (body: string) =>
    fetch(new Request('http://localhost/t/1', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).then(async (response) => ({
      status: response.status,
      text: await response.text(),
    }))
}

const BODIES: Record<string, unknown> = {
  'valid, unknown fields dropped': { html: '<p>', closed: { a: 1, b: 2 }, extra: 'x', meta: { border: true, other: 1 } },
  'html missing': { type: 'card' },
  'html not a string': { html: 5 },
  'html one character too long': { html: 'x'.repeat(MiB + 1) },
  'every field wrong': {
    html: null,
    type: '',
    title: '   ',
    is_default: 'yes',
    format: 'other',
    kind: 'c',
    count: 0,
    csp: { domains: ['http://x', 'https://ok.example', 7, 'https://a', 'https://b'] },
    closed: { a: 'one' },
    meta: { border: 1, permissions: { camera: 'on' } },
  },
  'a nullable object given a string': { html: '', csp: 'none' },
  'a number where an integer belongs': { html: '', count: 1.5 },
  'a too-long type beside a valid html': { html: '<p>ok</p>', type: 't'.repeat(33) },
  'seventy wrong origins (one error: no member of the union matches)': { html: '', csp: { domains: Array.from({ length: 70 }, (_, i) => i) } },
  'sixty-three wrong tags': { html: '', tags: Array.from({ length: 63 }, (_, i) => i) },
  'sixty-four wrong tags (as many errors as Elysia lists)': { html: '', tags: Array.from({ length: 64 }, (_, i) => i) },
  'seventy wrong tags (more errors than Elysia lists)': { html: '', tags: Array.from({ length: 70 }, (_, i) => i) },
}

describe('the parser checks a large-body route as Elysia would', () => {
  const early = appOf(true)
  const elysia = appOf(false)
  for (const [name, body] of Object.entries(BODIES)) {
    test(name, async () => {
      const text = JSON.stringify(body)
      const [ours, theirs] = [await early(text), await elysia(text)]
      expect(ours).toEqual(theirs)
      expect(ours.status).toBe(name.startsWith('valid') ? 200 : 422)
    })
  }

  test('a refused template of control characters: the same 422, and only Elysia writes the body as JSON', async () => {
    const text = JSON.stringify({ html: '\u0001'.repeat(MiB + 1), type: 'card' })
    expect(text.length).toBeGreaterThan(6 * MiB)
    let ours = { status: 0, text: '' }
    let theirs = { status: 0, text: '' }
    const oursLongest = await longestJsonWritten(async () => {
      ours = await early(text)
    })
    const theirsLongest = await longestJsonWritten(async () => {
      theirs = await elysia(text)
    })
    expect(ours).toEqual(theirs)
    expect(ours.status).toBe(422)
    expect(JSON.parse(ours.text).detail).toMatchObject([{ loc: ['body', 'html'], type: 'string_too_long' }])
    // Elysia's ValidationError writes the six megabytes of escapes (twice); the parser's check writes only the answer.
    expect(theirsLongest).toBeGreaterThan(6 * MiB)
    expect(oursLongest).toBeLessThan(64 * 1024)
  })
})
