// The expression language (design §4.4): templates, operators, ??, functions, literals, and the if conditions.
import { describe, expect, test } from 'bun:test'
import { ExpressionError } from '../../src/modules/workflows/expr/errors.ts'
import { resolveString, resolveValue, splitTemplate } from '../../src/modules/workflows/expr/template.ts'
import { testCondition } from '../../src/modules/workflows/engine/conditions.ts'

const scope = {
  $json: {
    a: { b: 1 },
    zero: 0,
    empty: '',
    nil: null,
    s: 'Hello World',
    list: [
      { id: 1, user: { name: 'ann' } },
      { id: 2, user: { name: 'bob' } },
      { id: 3, user: { name: 'ann' } },
    ],
    nums: [3, 1, 2],
  },
  $steps: { prep: { json: { total: 42 } } },
  $run: { input: { q: 'x' } },
  $item: { n: 7 },
  $index: 2,
}
const ev = (source: string) => resolveString(source, scope)

describe('templates', () => {
  test.each([
    ['{{ $json.a.b }}', 1],
    ['{{ $json.a }}', { b: 1 }],
    ['{{ $json.list[1].id }}', 2],
    ['{{ $steps.prep.json.total }}', 42],
    ['{{ $run.input.q }}', 'x'],
    ['{{ $item.n + $index }}', 9],
    ['total: {{ $steps.prep.json.total }}!', 'total: 42!'],
    ['obj {{ $json.a }} / null "{{ $json.nil }}" / missing "{{ $json.nope }}"', 'obj {"b":1} / null "" / missing ""'],
    ['{{ "}}" }}', '}}'],
    ['{{ {k: {n: 1}} }}', { k: { n: 1 } }],
    ['no template', 'no template'],
  ])('%s → %p', (source, expected) => {
    expect(ev(source)).toEqual(expected)
  })

  test('an unclosed {{ is a syntax error', () => {
    expect(() => splitTemplate('a {{ $json')).toThrow(ExpressionError)
  })

  test('objects and arrays are resolved deeply, keeping each lone expression typed', () => {
    expect(resolveValue({ x: ['{{ $json.zero }}', 'v{{ $json.zero }}'], y: { z: '{{ $json.nums }}' } }, scope)).toEqual({ x: [0, 'v0'], y: { z: [3, 1, 2] } })
  })
})

describe('operators', () => {
  test.each([
    ['{{ $json.missing ?? "d" }}', 'd'],
    ['{{ $json.nil ?? "d" }}', 'd'],
    ['{{ $json.a.b.c.d ?? "deep" }}', 'deep'],
    ['{{ $json.zero ?? 5 }}', 0],
    ['{{ $json.empty ?? "d" }}', ''],
    ['{{ $json.zero || 5 }}', 5],
    ['{{ $json.a && "yes" }}', 'yes'],
    ['{{ 1 == "1" }}', false],
    ['{{ 1 === 1 }}', true],
    ['{{ 1 != "1" }}', true],
    ['{{ [1, {a: 2}] == [1, {a: 2}] }}', true],
    ['{{ $json.missing == null }}', true],
    ['{{ 2 + 3 * 4 }}', 14],
    ['{{ 7 % 4 }}', 3],
    ['{{ "n" + 1 }}', 'n1'],
    ['{{ -$json.a.b }}', -1],
    ['{{ !$json.zero }}', true],
    ['{{ 2 < 3 && "a" < "b" }}', true],
    ['{{ $json.zero > 0 ? "pos" : "not" }}', 'not'],
    ['{{ $json?.a?.b }}', 1],
    ['{{ 1 / 0 }}', null],
    ['{{ ["a", $json.zero, null] }}', ['a', 0, null]],
    ['{{ {"k-2": 1, n: $json.a.b} }}', { 'k-2': 1, n: 1 }],
    ['{{ $json.s.length }}', 11],
    ['{{ $json.s[0] }}', 'H'],
    ['{{ $json.nums.length }}', 3],
  ])('%s → %p', (source, expected) => {
    expect(ev(source)).toEqual(expected)
  })

  test('arithmetic on non-numbers fails with a hint rather than coercing', () => {
    expect(() => ev('{{ "2" * 3 }}')).toThrow(/needs numbers/)
    expect(() => ev('{{ $json.a - 1 }}')).toThrow(ExpressionError)
  })
})

describe('functions', () => {
  test.each([
    ['{{ find($json.list, "id", 2).user.name }}', 'bob'],
    ['{{ find($json.list, "user.name", "ann").id }}', 1],
    ['{{ find($json.list, "id", 9) }}', null],
    ['{{ length(filter_by($json.list, "user.name", "ann")) }}', 2],
    ['{{ filter_by($json.list, "id", 99) }}', []],
    ['{{ length($json.s) }}', 11],
    ['{{ keys($json.a) }}', ['b']],
    ['{{ values($json.a) }}', [1]],
    ['{{ first($json.nums) }}', 3],
    ['{{ last($json.nums) }}', 2],
    ['{{ join($json.nums, "-") }}', '3-1-2'],
    ['{{ split("a,b", ",") }}', ['a', 'b']],
    ['{{ lower($json.s) }}', 'hello world'],
    ['{{ upper("x") }}', 'X'],
    ['{{ trim("  x ") }}', 'x'],
    ['{{ contains($json.s, "World") }}', true],
    ['{{ contains($json.nums, 2) }}', true],
    ['{{ starts_with($json.s, "He") }}', true],
    ['{{ ends_with($json.s, "x") }}', false],
    ['{{ replace("a.b.c", ".", "$&") }}', 'a$&b$&c'],
    ['{{ to_number("4.5") }}', 4.5],
    ['{{ to_string($json.a) }}', '{"b":1}'],
    ['{{ to_json([1]) }}', '[1]'],
    ['{{ parse_json("{\\"x\\": 1}").x }}', 1],
    ['{{ round(3.14159, 2) }}', 3.14],
    ['{{ min($json.nums) }}', 1],
    ['{{ max(4, 9, 2) }}', 9],
    ['{{ sum($json.nums) }}', 6],
  ])('%s → %p', (source, expected) => {
    expect(ev(source)).toEqual(expected)
  })

  test('bad arguments fail as expression errors', () => {
    expect(() => ev('{{ find("x", "id", 1) }}')).toThrow(/array/)
    expect(() => ev('{{ to_number("abc") }}')).toThrow(/cannot convert/)
    expect(() => ev('{{ parse_json("{") }}')).toThrow(/not JSON/)
  })
})

describe('if conditions', () => {
  test.each([
    [{ left: 'Hello', operator: 'equals', right: 'hello' }, false, false],
    [{ left: 'Hello', operator: 'equals', right: 'hello' }, true, true],
    [{ left: 'Hello', operator: 'not_equals', right: 'x' }, false, true],
    [{ left: 'Hello', operator: 'contains', right: 'ELL' }, true, true],
    [{ left: 'Hello', operator: 'not_contains', right: 'z' }, false, true],
    [{ left: 'Hello', operator: 'starts_with', right: 'he' }, true, true],
    [{ left: 'Hello', operator: 'not_starts_with', right: 'he' }, false, true],
    [{ left: 'Hello', operator: 'ends_with', right: 'lo' }, false, true],
    [{ left: 'Hello', operator: 'not_ends_with', right: 'lo' }, false, false],
    [{ left: 'order-42', operator: 'matches_regex', right: '/^ORDER-\\d+$/' }, true, true],
    [{ left: 'order-42', operator: 'matches_regex', right: '^ORDER' }, false, false],
    [{ left: 'order-42', operator: 'not_matches_regex', right: '^x' }, false, true],
    [{ left: '', operator: 'is_empty' }, false, true],
    [{ left: null, operator: 'is_empty' }, false, true],
    [{ left: ' ', operator: 'is_not_empty' }, false, true],
    [{ left: 0, operator: 'exists' }, false, true],
    [{ left: null, operator: 'not_exists' }, false, true],
    [{ left: 5, operator: 'gt', right: 3 }, false, true],
    [{ left: '5', operator: 'lte', right: 5 }, false, true],
    [{ left: 5, operator: 'equals', right: 5 }, false, true],
    [{ left: true, operator: 'is_true' }, false, true],
    [{ left: ['A', 'b'], operator: 'contains', right: 'a' }, true, true],
    [{ left: [1, 2], operator: 'length_eq', right: 2 }, false, true],
    [{ left: null, operator: 'contains', right: '' }, false, true],
    [{ left: 12, operator: 'starts_with', right: '1' }, false, true],
  ])('%p ignore_case=%p → %p', (condition, ignoreCase, expected) => {
    expect(testCondition(condition, ignoreCase)).toBe(expected)
  })

  test('an object on the left of a text operator is an evaluation error', () => {
    expect(() => testCondition({ left: { a: 1 }, operator: 'contains', right: 'a' }, false)).toThrow(ExpressionError)
  })

  test('regex flags are limited to imsu and patterns to 256 characters', () => {
    expect(() => testCondition({ left: 'a', operator: 'matches_regex', right: '/a/g' }, false)).toThrow(/flags/)
    expect(() => testCondition({ left: 'a', operator: 'matches_regex', right: 'a'.repeat(257) }, false)).toThrow(/256/)
  })
})
