// The whitelisting evaluator: walks a checked jsep tree over a null-prototype scope; no eval, no Function, no prototypes.
import { ExpressionError, isReservedKey } from './errors.ts'
import { FUNCTIONS } from './functions.ts'
import { parseExpression, VARIABLES, type Node } from './parse.ts'
import { capString, deepEqual, normalise, readMember, toText, truthy } from './values.ts'

/** The variables one evaluation sees ($json, $steps, $run, $workflow, $item, $index, $now); missing ones read as null. */
export type Scope = Partial<Record<'$json' | '$steps' | '$run' | '$workflow' | '$item' | '$index' | '$now', unknown>>

const fail = (message: string) => new ExpressionError(message)

function arithmetic(operator: string, left: unknown, right: unknown): unknown {
  if (operator === '+' && (typeof left === 'string' || typeof right === 'string')) return capString(toText(left) + toText(right))
  if (typeof left !== 'number' || typeof right !== 'number') {
    throw fail(`The operator '${operator}' needs numbers${operator === '+' ? ' or text' : ''} (use to_number() to convert)`)
  }
  switch (operator) {
    case '+': return normalise(left + right)
    case '-': return normalise(left - right)
    case '*': return normalise(left * right)
    case '/': return normalise(left / right)
    default: return normalise(left % right)
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
    case '<': return l < r
    case '>': return l > r
    case '<=': return l <= r
    default: return l >= r
  }
}

function evaluateNode(node: Node, scope: Record<string, unknown>): unknown {
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
      if (isReservedKey(typeof key === 'number' ? String(key) : key)) throw new ExpressionError(`Access to '${String(key)}' is not allowed`, 'expression_forbidden')
      return readMember(target, key)
    }
    case 'CallExpression': {
      const fn = Object.hasOwn(FUNCTIONS, node.callee.name) ? FUNCTIONS[node.callee.name] : undefined
      if (node.callee.type !== 'Identifier' || !fn) throw new ExpressionError('Only the built-in functions can be called', 'expression_forbidden')
      return normalise(fn(...node.arguments.map((argument: Node) => evaluateNode(argument, scope))))
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

/** Evaluates one expression source (the text between `{{` and `}}`). Missing paths are null; results are JSON values. */
export function evaluateExpression(source: string, variables: Scope): unknown {
  const { ast } = parseExpression(source)
  const scope: Record<string, unknown> = Object.create(null)
  for (const name of VARIABLES) if (Object.hasOwn(variables, name)) scope[name] = (variables as Record<string, unknown>)[name]
  try {
    return evaluateNode(ast, scope)
  } catch (error) {
    if (error instanceof ExpressionError) throw error
    // A RangeError from a huge spread or the like: still the author's expression, still a readable failure.
    throw fail(`Expression failed: ${(error as Error).message}`)
  }
}
