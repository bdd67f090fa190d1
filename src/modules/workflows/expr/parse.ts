// Parsing `{{ }}` sources with jsep and refusing, before anything runs, every construct the evaluator does not support.
import jsep from 'jsep'
import object from '@jsep-plugin/object'
import { ExpressionError, isReservedKey } from './errors.ts'
import { FUNCTION_NAMES } from './functions.ts'

jsep.plugins.register(object)

// biome-ignore lint/suspicious/noExplicitAny: jsep's node types are open; the evaluator checks each field it reads
export type Node = jsep.Expression & { [field: string]: any }

export const MAX_SOURCE_CHARS = 4096
export const MAX_AST_NODES = 1000
export const MAX_AST_DEPTH = 64

const BINARY = new Set(['||', '&&', '??', '==', '!=', '===', '!==', '<', '>', '<=', '>=', '+', '-', '*', '/', '%'])
const UNARY = new Set(['!', '-', '+'])
/** The only names an expression can read; each evaluation builds them into a fresh null-prototype scope. */
export const VARIABLES: ReadonlySet<string> = new Set(['$json', '$steps', '$run', '$workflow', '$item', '$index', '$now'])

const forbidden = (message: string) => new ExpressionError(message, 'expression_forbidden')

/** What one parse yields: the tree and the `$steps.<id>` names it reads (for the upstream check at save). */
export interface ParsedExpression {
  ast: Node
  stepRefs: string[]
  variables: Set<string>
}

// The cache holds only successes, keyed by source, so a definition saved once is never re-parsed at run time.
const cache = new Map<string, ParsedExpression>()
const CACHE_LIMIT = 5000

export function parseExpression(source: string): ParsedExpression {
  const hit = cache.get(source)
  if (hit) return hit
  if (source.length > MAX_SOURCE_CHARS) throw forbidden(`An expression may have at most ${MAX_SOURCE_CHARS} characters`)
  if (source.trim() === '') throw new ExpressionError('Empty expression', 'expression_syntax')
  let ast: Node
  try {
    ast = jsep(source) as Node
  } catch (error) {
    throw new ExpressionError(`Expression does not parse: ${(error as Error).message}`, 'expression_syntax')
  }
  const parsed: ParsedExpression = { ast, stepRefs: [], variables: new Set() }
  let count = 0
  const visit = (node: Node, depth: number): void => {
    if (++count > MAX_AST_NODES) throw forbidden(`An expression may have at most ${MAX_AST_NODES} parts`)
    if (depth > MAX_AST_DEPTH) throw forbidden(`An expression may nest at most ${MAX_AST_DEPTH} levels`)
    switch (node.type) {
      case 'Literal':
        if (node.value instanceof RegExp) throw forbidden('Regular expressions are only allowed in if conditions')
        return
      case 'Identifier':
        if (!VARIABLES.has(node.name)) {
          throw forbidden(
            FUNCTION_NAMES.has(node.name)
              ? `${node.name} is a function: call it as ${node.name}(…)`
              : `Unknown name '${node.name}': use $json, $steps, $run, $workflow, $item, $index or $now`,
          )
        }
        parsed.variables.add(node.name)
        return
      case 'MemberExpression':
        if (!node.computed && isReservedKey(node.property.name)) throw forbidden(`Access to '${node.property.name}' is not allowed`)
        if (node.computed && node.property.type === 'Literal' && isReservedKey(node.property.value))
          throw forbidden(`Access to '${node.property.value}' is not allowed`)
        recordStepRef(node, parsed)
        visit(node.object, depth + 1)
        if (node.computed) visit(node.property, depth + 1)
        return
      case 'CallExpression':
        if (node.callee.type !== 'Identifier') throw forbidden('Only the built-in functions can be called (no method calls)')
        if (!FUNCTION_NAMES.has(node.callee.name)) throw forbidden(`Unknown function '${node.callee.name}'`)
        for (const argument of node.arguments) visit(argument, depth + 1)
        return
      case 'ArrayExpression':
        for (const element of node.elements) {
          if (!element) throw new ExpressionError('Array literals cannot have holes', 'expression_syntax')
          visit(element, depth + 1)
        }
        return
      case 'ObjectExpression':
        for (const property of node.properties) {
          if (property.type !== 'Property' || property.computed || property.shorthand || !property.value)
            throw forbidden('Object literal keys must be plain names or strings, each with a value')
          const key = property.key.type === 'Identifier' ? property.key.name : property.key.value
          if (typeof key !== 'string' && typeof key !== 'number') throw forbidden('Object literal keys must be plain names or strings')
          if (isReservedKey(String(key))) throw forbidden(`The key '${key}' is not allowed`)
          visit(property.value, depth + 1)
        }
        return
      case 'UnaryExpression':
        if (!UNARY.has(node.operator)) throw forbidden(`The operator '${node.operator}' is not supported`)
        visit(node.argument, depth + 1)
        return
      case 'BinaryExpression':
        if (!BINARY.has(node.operator)) throw forbidden(`The operator '${node.operator}' is not supported`)
        visit(node.left, depth + 1)
        visit(node.right, depth + 1)
        return
      case 'ConditionalExpression':
        visit(node.test, depth + 1)
        visit(node.consequent, depth + 1)
        visit(node.alternate, depth + 1)
        return
      case 'ThisExpression':
        throw forbidden("'this' is not available in expressions")
      case 'Compound':
        throw new ExpressionError('An expression is a single value: unexpected words or ";" (new, typeof, in are not supported)', 'expression_syntax')
      default:
        throw forbidden(`${node.type} is not supported in expressions`)
    }
  }
  visit(ast, 0)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(source, parsed)
  return parsed
}

/** `$steps.x`, `$steps["x"]` and `$steps?.x` name node x. */
function recordStepRef(node: Node, parsed: ParsedExpression): void {
  if (node.object.type !== 'Identifier' || node.object.name !== '$steps') return
  const id = node.computed ? (node.property.type === 'Literal' ? node.property.value : null) : node.property.name
  if (typeof id === 'string') parsed.stepRefs.push(id)
}
