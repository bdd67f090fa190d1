// The whitelisting evaluator: walks a checked jsep tree over a null-prototype scope; no eval, no Function, no prototypes.
import { LIMITS } from '../definition/types.ts'
import { activeBudget } from './budget.ts'
import { ExpressionError, isReservedKey } from './errors.ts'
import { FUNCTIONS } from './functions.ts'
import { parseExpression, VARIABLES, type Node } from './parse.ts'
import { capString, deepEqual, isPlainObject, MAX_RESULT_CHARS, normalise, readMember, toText, truthy } from './values.ts'
import { measureValue, sizeProblem } from './value-size.ts'

/** The variables one evaluation sees ($json, $steps, $run, $workflow, $item, $index, $now); missing ones read as null. */
export type Scope = Partial<Record<'$json' | '$steps' | '$run' | '$workflow' | '$item' | '$index' | '$now', unknown>>

const fail = (message: string) => new ExpressionError(message)

function arithmetic(operator: string, left: unknown, right: unknown): unknown {
  if (operator === '+' && (typeof left === 'string' || typeof right === 'string')) return capString(toText(left) + toText(right))
  if (typeof left !== 'number' || typeof right !== 'number') {
    throw fail(`The operator '${operator}' needs numbers${operator === '+' ? ' or text' : ''} (use to_number() to convert)`)
  }
  switch (operator) {
    case '+':
      return normalise(left + right)
    case '-':
      return normalise(left - right)
    case '*':
      return normalise(left * right)
    case '/':
      return normalise(left / right)
    default:
      return normalise(left % right)
  }
}

function compare(operator: string, left: unknown, right: unknown): boolean {
  const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string')
  if (!comparable) {
    if (left === null || right === null) return false
    throw fail(`The operator '${operator}' compares two numbers or two texts`)
  }
  const l = left as number | string
  const r = right as number | string
  switch (operator) {
    case '<':
      return l < r
    case '>':
      return l > r
    case '<=':
      return l <= r
    default:
      return l >= r
  }
}

/** Work units per list element: making or walking an element costs about as much as eight characters of text. */
const UNITS_PER_ELEMENT = 8
/** Work a function's argument or result stands for: the length of a text or a list (objects: their walk is charged elsewhere). */
const workOf = (value: unknown): number => (typeof value === 'string' ? value.length : Array.isArray(value) ? value.length * UNITS_PER_ELEMENT : 1)

/** Calls a built-in, charging the active budget for what it reads before and what it made after; refuses oversized results. */
function call(name: string, fn: (...args: unknown[]) => unknown, args: unknown[]): unknown {
  const budget = activeBudget()
  if (budget) budget.charge(args.reduce<number>((units, arg) => units + workOf(arg), 1))
  const result = normalise(fn(...args))
  if (typeof result === 'string' && result.length > MAX_RESULT_CHARS)
    throw fail(`${name}() made a text of ${result.length} characters; the limit is ${MAX_RESULT_CHARS}`)
  if (Array.isArray(result) && result.length > LIMITS.functionItemsCap)
    throw fail(`${name}() made a list of ${result.length} elements; the limit is ${LIMITS.functionItemsCap}`)
  if (budget) budget.charge(workOf(result))
  return result
}

function evaluateNode(node: Node, scope: Record<string, unknown>): unknown {
  activeBudget()?.charge(1)
  switch (node.type) {
    case 'Literal':
      return normalise(node.value)
    case 'Identifier':
      // The parse already refused unknown names; the scope has a null prototype, so only own entries exist.
      return VARIABLES.has(node.name) ? normalise(scope[node.name]) : null
    case 'MemberExpression': {
      const target = evaluateNode(node.object, scope)
      const key = node.computed ? evaluateNode(node.property, scope) : node.property.name
      if (node.computed && typeof key !== 'string' && typeof key !== 'number') {
        if (key === null) return null
        throw fail('A computed key must be text or a number')
      }
      if (isReservedKey(typeof key === 'number' ? String(key) : key))
        throw new ExpressionError(`Access to '${String(key)}' is not allowed`, 'expression_forbidden')
      return readMember(target, key)
    }
    case 'CallExpression': {
      const fn = Object.hasOwn(FUNCTIONS, node.callee.name) ? FUNCTIONS[node.callee.name] : undefined
      if (node.callee.type !== 'Identifier' || !fn) throw new ExpressionError('Only the built-in functions can be called', 'expression_forbidden')
      return call(
        node.callee.name,
        fn,
        node.arguments.map((argument: Node) => evaluateNode(argument, scope)),
      )
    }
    case 'ArrayExpression':
      return node.elements.map((element: Node) => evaluateNode(element, scope))
    case 'ObjectExpression': {
      const result: Record<string, unknown> = {}
      for (const property of node.properties) {
        const key = String(property.key.type === 'Identifier' ? property.key.name : property.key.value)
        if (isReservedKey(key)) throw new ExpressionError(`The key '${key}' is not allowed`, 'expression_forbidden')
        result[key] = evaluateNode(property.value, scope)
      }
      return result
    }
    case 'UnaryExpression': {
      const value = evaluateNode(node.argument, scope)
      if (node.operator === '!') return !truthy(value)
      if (typeof value !== 'number') throw fail(`The operator '${node.operator}' needs a number (use to_number() to convert)`)
      return node.operator === '-' ? normalise(-value) : value
    }
    case 'BinaryExpression': {
      const { operator } = node
      if (operator === '&&') {
        const left = evaluateNode(node.left, scope)
        return truthy(left) ? evaluateNode(node.right, scope) : left
      }
      if (operator === '||') {
        const left = evaluateNode(node.left, scope)
        return truthy(left) ? left : evaluateNode(node.right, scope)
      }
      if (operator === '??') {
        const left = evaluateNode(node.left, scope)
        return left === null ? evaluateNode(node.right, scope) : left
      }
      const left = evaluateNode(node.left, scope)
      const right = evaluateNode(node.right, scope)
      switch (operator) {
        case '==':
        case '===':
          return deepEqual(left, right)
        case '!=':
        case '!==':
          return !deepEqual(left, right)
        case '<':
        case '>':
        case '<=':
        case '>=':
          return compare(operator, left, right)
        case '+':
        case '-':
        case '*':
        case '/':
        case '%':
          return arithmetic(operator, left, right)
      }
      throw new ExpressionError(`The operator '${operator}' is not supported`, 'expression_forbidden')
    }
    case 'ConditionalExpression':
      return truthy(evaluateNode(node.test, scope)) ? evaluateNode(node.consequent, scope) : evaluateNode(node.alternate, scope)
    default:
      throw new ExpressionError(`${node.type} is not supported in expressions`, 'expression_forbidden')
  }
}

const REFERENCES: ReadonlySet<string> = new Set(['Identifier', 'MemberExpression', 'Literal'])

/** Evaluates one expression source (the text between `{{` and `}}`). Missing paths are null; results are JSON values. */
export function evaluateExpression(source: string, variables: Scope): unknown {
  const { ast } = parseExpression(source)
  const scope: Record<string, unknown> = Object.create(null)
  for (const name of VARIABLES) if (Object.hasOwn(variables, name)) scope[name] = (variables as Record<string, unknown>)[name]
  try {
    const value = evaluateNode(ast, scope)
    // A value the expression built (a list, an object, a function's result) is measured; a plain reference is not, since
    // what it points at (the input, a step's output) was bounded when it was made.
    if (value !== null && typeof value === 'object' && (Array.isArray(value) || isPlainObject(value)) && !REFERENCES.has(ast.type)) {
      const size = measureValue(value)
      activeBudget()?.charge(Math.ceil(size.json / 8))
      const problem = sizeProblem("The expression's value", size)
      if (problem) throw new ExpressionError(problem, 'output_too_large')
    }
    return value
  } catch (error) {
    if (error instanceof ExpressionError) throw error
    // A RangeError from a huge spread or the like: still the author's expression, still a readable failure.
    throw fail(`Expression failed: ${(error as Error).message}`)
  }
}
