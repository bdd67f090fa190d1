// `{{ expr }}` templates inside parameter values: finding them, resolving them, and keeping a lone expression's type.
import { activeBudget, withBudget, type ExpressionBudget } from './budget.ts'
import { ExpressionError } from './errors.ts'
import { evaluateExpression, type Scope } from './evaluate.ts'
import { capString, isPlainObject, toText } from './values.ts'

export type Segment = { text: string } | { expr: string }

/**
 * Splits a string into text and `{{ }}` parts. The scan tracks quotes and braces, so an object literal or a string
 * containing `}}` inside an expression does not end it early. An unclosed `{{` is a syntax error.
 */
export function splitTemplate(source: string): Segment[] {
  const segments: Segment[] = []
  let text = ''
  let i = 0
  while (i < source.length) {
    if (source.startsWith('{{', i)) {
      let j = i + 2
      let depth = 0
      let quote: string | null = null
      let end = -1
      while (j < source.length) {
        const c = source[j]!
        if (quote) {
          if (c === '\\') j++
          else if (c === quote) quote = null
        } else if (c === '"' || c === "'") quote = c
        else if (c === '{' || c === '[' || c === '(') depth++
        else if ((c === '}' || c === ']' || c === ')') && depth > 0) depth--
        else if (c === '}' && source[j + 1] === '}') {
          end = j
          break
        }
        j++
      }
      if (end < 0) throw new ExpressionError('Unclosed {{ in template', 'expression_syntax')
      if (text) segments.push({ text })
      text = ''
      segments.push({ expr: source.slice(i + 2, end).trim() })
      i = end + 2
    } else {
      text += source[i]
      i++
    }
  }
  if (text) segments.push({ text })
  return segments
}

const hasTemplate = (value: string) => value.includes('{{')

/** A string: exactly one `{{ }}` keeps the value's type; mixed text becomes a string (null → "", objects → JSON). */
export function resolveString(value: string, scope: Scope): unknown {
  if (!hasTemplate(value)) return value
  const segments = splitTemplate(value)
  if (segments.length === 1 && 'expr' in segments[0]!) return evaluateExpression(segments[0].expr, scope)
  let out = ''
  for (const segment of segments) {
    out += 'expr' in segment ? toText(evaluateExpression(segment.expr, scope)) : segment.text
    capString(out)
  }
  activeBudget()?.charge(out.length)
  return out
}

/**
 * Resolves every string inside a parameter value (objects and arrays walked), returning a fresh copy. With a budget,
 * every expression inside charges it (a run passes its own, so the limit holds across all of its steps).
 */
export function resolveValue(value: unknown, scope: Scope, budget?: ExpressionBudget | null): unknown {
  return withBudget(budget, () => resolveTree(value, scope))
}

function resolveTree(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return resolveString(value, scope)
  if (Array.isArray(value)) return value.map((item) => resolveTree(item, scope))
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[key] = resolveTree(item, scope)
    return out
  }
  return value ?? null
}

/** Every expression source inside a value with the path to the string holding it (for save-time checks). */
export function collectExpressions(
  value: unknown,
  path: (string | number)[] = [],
  out: { path: (string | number)[]; source: string; error?: ExpressionError }[] = [],
) {
  if (typeof value === 'string') {
    if (!hasTemplate(value)) return out
    try {
      for (const segment of splitTemplate(value)) if ('expr' in segment) out.push({ path, source: segment.expr })
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error
      out.push({ path, source: value, error })
    }
  } else if (Array.isArray(value)) value.forEach((item, i) => collectExpressions(item, [...path, i], out))
  else if (isPlainObject(value)) for (const [key, item] of Object.entries(value)) collectExpressions(item, [...path, key], out)
  return out
}
