// A template's size limit is 1 MiB of UTF-8 (bytes, not characters), and the routes that take one read bodies up to
// 7 MiB, so a template at the limit is saved however its JSON escapes it: quotes, backslashes and newlines (two bytes
// each), non-ASCII characters of two, three and four bytes, written as themselves or as \uXXXX escapes, and control
// characters (six bytes each). One byte over is a 422 on body.html, and a body over the routes' 7 MiB a 413, on create
// and on change alike; other JSON routes keep the 1 MiB body limit.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type People, startWithPeople } from '../helpers/people.ts'
import { createTemplate, ownedApplication } from './helpers.ts'
import { longestJsonWritten } from '../helpers/json-written.ts'

const MiB = 1024 * 1024
const ROUTE_LIMIT = 7 * MiB

let w: People
let app: string

beforeAll(async () => {
  w = await startWithPeople()
  app = await ownedApplication(w)
})
afterAll(() => w.t.close())

const createPath = `/api/ui-templates/PLACEHOLDER/operations/listPets`
const create = () => createPath.replace('PLACEHOLDER', app)
const change = (id: string) => `/api/ui-templates/${app}/templates/${id}`

/** An HTML document of exactly `bytes` bytes of UTF-8, its body `fill` repeated, topped up with ASCII. */
function htmlOf(bytes: number, fill: string): string {
  const head = '<!doctype html><html><body><p title="a \\"quoted\\" value">\n'
  const tail = '\n</p></body></html>'
  const room = bytes - Buffer.byteLength(head) - Buffer.byteLength(tail)
  const fillBytes = Buffer.byteLength(fill)
  const html = head + fill.repeat(Math.floor(room / fillBytes)) + 'x'.repeat(room % fillBytes) + tail
  if (Buffer.byteLength(html) !== bytes) throw new Error('size arithmetic')
  return html
}

/** JSON as an encoder that escapes every non-ASCII character (Python's default, ensure_ascii) writes it. */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** The body sent as it is, JSON by content type. */
const send = (method: 'POST' | 'PUT', path: string, rawBody: string) =>
  w.t.request(method, path, { token: w.owner.token, rawBody, headers: { 'content-type': 'application/json' } })

const FILLS: Record<string, string> = {
  'quotes, backslashes and newlines': '"\\\n<a href="x">\'</a>\t',
  'two-byte characters': 'é',
  'three-byte characters': '€',
  'four-byte characters': '😀',
  'a mix': '<td class="n">Zürich — 東京 😀</td>\n',
}

describe('a template of exactly 1 MiB of UTF-8 is saved', () => {
  for (const [name, fill] of Object.entries(FILLS)) {
    test(`${name}, as plain JSON and with every non-ASCII character escaped`, async () => {
      const html = htmlOf(MiB, fill)
      const created = await send('POST', create(), JSON.stringify({ html }))
      expect(created.status).toBe(201)
      expect(created.body.html).toBe(html)
      const body = asciiJson({ html, type: 'card' })
      expect(body.length).toBeGreaterThan(MiB)
      const changed = await send('PUT', change(created.body.id), body)
      expect(changed.status).toBe(200)
      expect(changed.body.html).toBe(html)
      expect(changed.body.type).toBe('card')
      const read = await w.t.request('GET', change(created.body.id), { token: w.owner.token })
      expect(read.body.html).toBe(html)
      expect((await w.t.request('DELETE', change(created.body.id), { token: w.owner.token })).status).toBe(204)
    }, 30_000)
  }

  test('the worst case: control characters, six bytes each as JSON (a body of 6 MiB and more)', async () => {
    const html = htmlOf(MiB, '\u0001')
    const body = JSON.stringify({ html, is_default: true })
    expect(body.length).toBeGreaterThan(6 * MiB - 512)
    const created = await send('POST', create(), body)
    expect(created.status).toBe(201)
    expect(created.body.html).toBe(html)
    // An HTML-safe encoder (Go's) writes < and > as \u003c and \u003e: six bytes again.
    const htmlSafe = htmlOf(MiB, '<>')
    const escaped = JSON.stringify({ html: htmlSafe }).replace(/[<>]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
    expect(escaped.length).toBeGreaterThan(5 * MiB)
    const changed = await send('PUT', change(created.body.id), escaped)
    expect(changed.status).toBe(200)
    expect(changed.body.html).toBe(htmlSafe)
    expect((await w.t.request('DELETE', change(created.body.id), { token: w.owner.token })).status).toBe(204)
  }, 30_000)
})

describe('one byte over is refused with 422 on body.html, on create and on change', () => {
  test('ASCII, and multi-byte characters whose count is under the limit while their bytes are over', async () => {
    const existing = await createTemplate(w, w.owner.token, app, 'listPets')
    for (const fill of ['x', '"\n', 'é', '€', '😀']) {
      const html = htmlOf(MiB + 1, fill)
      for (const [method, where] of [
        ['POST', create()],
        ['PUT', change(existing.id)],
      ] as const) {
        const refused = await send(method, where, JSON.stringify({ html }))
        expect(refused.status).toBe(422)
        expect(refused.body.detail).toHaveLength(1)
        expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'html'], type: 'string_too_long', ctx: { max_length: MiB } })
        // The schema's own check (characters) answers ASCII; the bytes check the rest, with the same type and limit.
        expect(refused.body.detail[0].msg).toBe(
          Buffer.byteLength(fill) === fill.length ? `String should have at most ${MiB} characters` : 'The template is larger than 1 MiB',
        )
      }
    }
    // Nothing was saved or changed.
    const listed = await w.t.request('GET', create(), { token: w.owner.token })
    expect(listed.body.templates.map((t: { id: string }) => t.id)).toEqual([existing.id])
    expect(listed.body.templates[0].html).toBe(existing.html)
    expect((await w.t.request('DELETE', change(existing.id), { token: w.owner.token })).status).toBe(204)
  }, 30_000)
})

describe('a refused template of control characters', () => {
  test('is answered without writing its body as JSON, on create and on change', async () => {
    const existing = await createTemplate(w, w.owner.token, app, 'listPets')
    // Six bytes a character as JSON, and one character over; a field wrong beside it.
    for (const body of [{ html: '\u0001'.repeat(MiB + 1) }, { html: '\u0001'.repeat(MiB), type: '' }]) {
      const text = JSON.stringify(body)
      for (const [method, where] of [
        ['POST', create()],
        ['PUT', change(existing.id)],
      ] as const) {
        let refused: Awaited<ReturnType<typeof send>> | undefined
        const longest = await longestJsonWritten(async () => {
          refused = await send(method, where, text)
        })
        expect(refused!.status).toBe(422)
        expect(refused!.body.detail).toHaveLength(1)
        expect(refused!.body.detail[0].loc).toEqual(['body', 'type' in body ? 'type' : 'html'])
        // The answer is written (capped at 64 KiB); the six megabytes sent are not, as Elysia's own refusal wrote them.
        expect(longest).toBeLessThan(64 * 1024)
      }
    }
    expect((await w.t.request('DELETE', change(existing.id), { token: w.owner.token })).status).toBe(204)
  }, 30_000)
})

describe('bodies over the limit', () => {
  test("a body over the template routes' 7 MiB is 413, declared or streamed, before anything is parsed", async () => {
    const existing = await createTemplate(w, w.owner.token, app, 'listPets')
    const tooBig = JSON.stringify({ html: 'x'.repeat(ROUTE_LIMIT) })
    for (const [method, where] of [
      ['POST', create()],
      ['PUT', change(existing.id)],
    ] as const) {
      const declared = await send(method, where, tooBig)
      expect(declared.status).toBe(413)
      expect(declared.body).toEqual({ detail: 'Request body too large' })
      const bytes = new TextEncoder().encode(tooBig)
      const streamed = await w.t.request(method, where, {
        token: w.owner.token,
        headers: { 'content-type': 'application/json' },
        rawBody: new ReadableStream({
          start(controller) {
            for (let at = 0; at < bytes.length; at += MiB) controller.enqueue(bytes.subarray(at, at + MiB))
            controller.close()
          },
        }),
      })
      expect(streamed.status).toBe(413)
    }
    // Exactly at the limit the body is read (and this one's HTML is then too large for a template).
    const atLimit = `{"html":"${'x'.repeat(ROUTE_LIMIT - 11)}"}`
    expect(atLimit.length).toBe(ROUTE_LIMIT)
    expect((await send('POST', create(), atLimit)).status).toBe(422)
    expect((await w.t.request('DELETE', change(existing.id), { token: w.owner.token })).status).toBe(204)
  }, 30_000)

  test('other routes keep the 1 MiB body limit, the template routes\u2019 other methods and neighbours included', async () => {
    const overOneMiB = JSON.stringify({ html: 'x'.repeat(MiB) })
    // A template's repository settings and a sync take no HTML: 1 MiB.
    expect((await send('PUT', `/api/ui-templates/vcs/${app}`, overOneMiB)).status).toBe(413)
    expect((await send('POST', `/api/ui-templates/vcs/sync/${app}/0190d1c4-0000-7000-8000-000000000000`, overOneMiB)).status).toBe(413)
    // POST to a template's own path, PUT to the create path: no such routes, answered before the body is read.
    expect((await send('POST', change('0190d1c4-0000-7000-8000-000000000000'), overOneMiB)).status).toBe(405)
    expect((await send('PUT', create(), overOneMiB)).status).toBe(405)
    expect((await send('POST', '/api/context-type', overOneMiB)).status).toBe(413)
  })
})
