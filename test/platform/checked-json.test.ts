// checkedJson: a value that matches its schema goes out as the JSON Elysia would send; anything else is handed back as
// it was, so Elysia's own response handling still applies to it.
import { expect, test } from 'bun:test'
import { t } from 'elysia'
import { checkedJson } from '../../src/platform/http/checked-json.ts'

const Envelope = t.Object({ status: t.Integer(), headers: t.Record(t.String(), t.String()), body: t.Unknown(), id: t.Union([t.String(), t.Null()]) })
const answer = checkedJson<Record<string, unknown>>(Envelope)

test('a matching value becomes a JSON response with the same bytes and type as Response.json', async () => {
  const value = { status: 200, headers: { 'content-type': 'application/json' }, body: { nested: [1, 'two', null] }, id: null }
  const sent = answer(value) as unknown as Response
  expect(sent).toBeInstanceOf(Response)
  const expected = Response.json(value)
  expect(sent.status).toBe(200)
  expect(sent.headers.get('content-type')).toBe(expected.headers.get('content-type'))
  expect(await sent.text()).toBe(await expected.text())
})

test('a value that does not match is handed back unchanged', () => {
  for (const value of [
    { status: 2.5, headers: {}, body: null, id: null },
    { status: 200, headers: { a: 1 }, body: null, id: null },
    { status: 200, headers: {}, id: 'x' },
  ]) {
    expect(answer(value)).toBe(value)
  }
})
