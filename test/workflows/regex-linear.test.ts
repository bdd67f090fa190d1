// User regular expressions run on RE2 (issue 14, item 5): catastrophic patterns cost linear time, backtracking-only syntax is refused.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { compileRegex, MAX_SUBJECT_CHARS, testCondition } from '../../src/modules/workflows/engine/conditions.ts'
import { edge, newAgent, node, saveWorkflow, setup, type People } from './helpers.ts'

describe('compileRegex', () => {
  test('^(a+)+$ against 100,000 characters answers without backtracking', () => {
    const subject = `${'a'.repeat(MAX_SUBJECT_CHARS - 1)}b`
    // Work, not wall time: a backtracking engine needs ~2^n steps here and would never return.
    expect(testCondition({ left: subject, operator: 'matches_regex', right: '^(a+)+$' }, false)).toBe(false)
    expect(testCondition({ left: subject, operator: 'matches_regex', right: '/(a|aa)+b$/' }, false)).toBe(true)
  })

  test('flags and case folding keep their meaning', () => {
    expect(testCondition({ left: 'Order-42', operator: 'matches_regex', right: '/^order-\\d+$/i' }, false)).toBe(true)
    expect(testCondition({ left: 'Order-42', operator: 'matches_regex', right: '^order' }, true)).toBe(true)
    expect(testCondition({ left: 'a\nb', operator: 'matches_regex', right: '/^b$/m' }, false)).toBe(true)
    expect(testCondition({ left: 'a\nb', operator: 'matches_regex', right: '/a.b/s' }, false)).toBe(true)
    expect(testCondition({ left: 'a\nb', operator: 'matches_regex', right: '/a.b/' }, false)).toBe(false)
  })

  test('backreferences and lookarounds are refused with a reason', () => {
    for (const pattern of ['(a)\\1', '(?=a)a', '(?<!a)b']) expect(compileRegex(pattern, false).problem).toMatch(/Invalid regular expression.*not supported/)
  })
})

let p: People
beforeAll(async () => {
  p = await setup()
})
afterAll(() => p.t.close())

describe('over HTTP', () => {
  test('a workflow with many catastrophic conditions runs to its end', async () => {
    const agent = await newAgent(p)
    const conditions = Array.from({ length: 50 }, () => ({ left: '{{ $json.s }}', operator: 'matches_regex', right: '^(a+)+$' }))
    const id = await saveWorkflow(p, agent, {
      nodes: [node('check', 'if', { conditions, combinator: 'or' }), node('yes', 'output', { value: 'matched' }), node('no', 'output', { value: 'no match' })],
      connections: [edge('check', 'yes', 'true'), edge('check', 'no', 'false')],
    })
    const res = await p.t.request('POST', `/api/workflows/${agent}/${id}/run`, { token: p.owner.token, body: { input: { s: `${'a'.repeat(5000)}!` } } })
    expect(res.body).toMatchObject({ status: 'succeeded', result: 'no match' })
  })

  test('a backreference is refused at save on the condition', async () => {
    const agent = await newAgent(p)
    const res = await p.t.request('POST', `/api/workflows/${agent}`, {
      token: p.owner.token,
      body: {
        name: 'f',
        definition: { nodes: [node('c', 'if', { conditions: [{ left: 'a', operator: 'matches_regex', right: '(a)\\1' }] })], connections: [] },
      },
    })
    expect(res.status).toBe(422)
    expect(res.body.detail[0].loc).toEqual(['body', 'definition', 'nodes', 0, 'params', 'conditions', 0, 'right'])
  })
})
