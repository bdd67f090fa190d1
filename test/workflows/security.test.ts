// The expression security suite (design §4.5 point 8): every escape listed there, through every access path, is refused.
import { describe, expect, test } from 'bun:test'
import { ExpressionError } from '../../src/modules/workflows/expr/errors.ts'
import { parseExpression } from '../../src/modules/workflows/expr/parse.ts'
import { resolveString } from '../../src/modules/workflows/expr/template.ts'
import { mergePatch } from '../../src/modules/workflows/engine/merge-patch.ts'
import { parseSetPath } from '../../src/modules/workflows/engine/set-path.ts'

const scope = () => ({ $json: { a: { b: 1 }, s: 'text', list: [1, 2], k: 'constructor', p: '__proto__' }, $steps: {}, $run: { input: {} } })
const ev = (source: string) => resolveString(`{{ ${source} }}`, scope())

/** [case, source]: each must throw an ExpressionError (at parse or at evaluation), never return a host object. */
const ESCAPES: [string, string][] = [
  ['constructor by dot', '$json.constructor'],
  ['constructor by dot on a string', '$json.s.constructor'],
  ['constructor by dot on an array', '$json.list.constructor'],
  ['constructor by bracket', '$json["constructor"]'],
  ['constructor by computed string', '$json["con" + "structor"]'],
  ['constructor by computed variable', '$json[$json.k]'],
  ['constructor of constructor (Function)', '$json.constructor.constructor("return process")()'],
  ['bracket chain to Function', '$json["constructor"]["constructor"]'],
  ['bare constructor identifier', 'constructor'],
  ['__proto__ by dot', '$json.__proto__'],
  ['__proto__ by bracket', '$json["__proto__"]'],
  ['__proto__ by computed variable', '$json[$json.p]'],
  ['prototype by dot', '$json.prototype'],
  ['prototype through a function value', 'find.prototype'],
  ['this', 'this'],
  ['this member', 'this.constructor'],
  ['method call on a string', '$json.s.toUpperCase()'],
  ['method call on an object', '$json.a.hasOwnProperty("b")'],
  ['computed method call', '$json.s["toString"]()'],
  ['call of a member path', '$json.list.map(1)'],
  ['unknown function', 'eval("1")'],
  ['Function', 'Function("return 1")()'],
  ['globalThis', 'globalThis'],
  ['process', 'process.env'],
  ['require', 'require("fs")'],
  ['arrow function', 'x => x'],
  ['arrow function with parens', '(x) => x'],
  ['template literal', '`${1}`'],
  ['new', 'new Date()'],
  ['typeof', 'typeof $json'],
  ['in', '"a" in $json'],
  ['assignment', '$json.a = 1'],
  ['sequence with ;', '1; 2'],
  ['bitwise or', '1 | 2'],
  ['bitwise not', '~1'],
  ['exponent', '2 ** 3'],
  ['shift', '1 << 2'],
  ['object literal __proto__ key', '{ "__proto__": { "polluted": true } }'],
  ['object literal __proto__ identifier key', '{ __proto__: 1 }'],
  ['object literal constructor key', '{ constructor: 1 }'],
  ['computed object key', '{ [$json.k]: 1 }'],
  ['shorthand object key', '{ $json }'],
  ['regex literal', '/a/.test("a")'],
  ['function as a value', 'find'],
  ['unknown variable', '$env'],
  ['undefined identifier', 'undefined'],
  ['source over 4 KB', `"${'a'.repeat(4100)}"`],
  ['AST over 1,000 nodes', Array.from({ length: 600 }, () => '1').join(' + ')],
  ['nesting deeper than 64', `${'['.repeat(70)}1${']'.repeat(70)}`],
]

describe('expression escapes are refused', () => {
  test.each(ESCAPES)('%s', (_label, source) => {
    let result: unknown
    try {
      result = ev(source)
    } catch (error) {
      expect(error).toBeInstanceOf(ExpressionError)
      return
    }
    throw new Error(`expected a refusal, got ${JSON.stringify(result)}`)
  })

  test('nothing leaked onto Object.prototype', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('huge inputs are bounded', () => {
  test('find over more than 10,000 elements is refused', () => {
    const big = Array.from({ length: 10_001 }, (_, i) => ({ id: i }))
    expect(() => resolveString('{{ find($json, "id", 1) }}', { $json: big })).toThrow(/10000/)
  })

  test('a string result over 1 MB is refused', () => {
    const half = 'x'.repeat(600_000)
    expect(() => resolveString('{{ $json + $json }}', { $json: half })).toThrow(/at most/)
  })

  test('min() over a huge list does not blow the stack', () => {
    expect(() => resolveString('{{ min($json) }}', { $json: Array.from({ length: 200_000 }, () => 1) })).toThrow(ExpressionError)
  })
})

describe('host objects and prototypes are invisible', () => {
  test('members of non-plain values read as null', () => {
    expect(resolveString('{{ $json.x.getTime }}', { $json: { x: new Date() } })).toBeNull()
    expect(resolveString('{{ $json.toString }}', { $json: {} })).toBeNull()
    expect(resolveString('{{ $json.list.push }}', { $json: { list: [] } })).toBeNull()
  })

  test('parse_json cannot smuggle a __proto__ key', () => {
    expect(resolveString('{{ keys(parse_json("{\\"__proto__\\": {\\"x\\": 1}}")) }}', {})).toEqual([])
  })

  test('parse accepts what the language has and rejects at parse time what it lacks', () => {
    expect(parseExpression('$json.a ?? { b: [1, "2"] }').stepRefs).toEqual([])
    expect(parseExpression('$steps.prep.json.x + $steps["other"].json').stepRefs).toEqual(['prep', 'other'])
    expect(() => parseExpression('$json.constructor')).toThrow(/not allowed/)
  })
})

describe('set paths and merge patches refuse prototype keys', () => {
  test.each(['__proto__.x', 'a.constructor.prototype', 'a[0].__proto__', 'prototype'])('set path %s', (path) => {
    expect(parseSetPath(path).problem).toMatch(/not allowed/)
  })

  test('merge patch skips __proto__ from JSON input and deletes with null', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": 1}, "a": null, "b": {"c": 2}}')
    const merged = mergePatch({ a: 1, b: { d: 1 } }, patch) as Record<string, unknown>
    expect(merged).toEqual({ b: { d: 1, c: 2 } })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype)
  })
})
