// Per-type parameter checks at save time: each problem is one 422 entry located at the parameter.
import type { ValidationIssue } from '../../../platform/http/http-error.ts'
import { isReservedKey } from '../expr/errors.ts'
import { isPlainObject } from '../expr/values.ts'
import { compileRegex, IF_OPERATORS, UNARY_OPERATORS } from '../engine/conditions.ts'
import { parseSetPath } from '../engine/set-path.ts'
import { LIMITS, type WorkflowNode } from './types.ts'

type Loc = (string | number)[]
type Report = (loc: Loc, msg: string, input?: unknown) => void

const isTemplate = (value: unknown) => typeof value === 'string' && value.includes('{{')
const positiveInt = (value: unknown, max: number) => typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max

export function checkParams(node: WorkflowNode, at: Loc, issues: ValidationIssue[]): void {
  const params = node.params ?? {}
  const report: Report = (loc, msg, input) => issues.push({ loc: [...at, 'params', ...loc], msg, type: 'value_error', ...(input === undefined ? {} : { input }) })
  const oneOf = (key: string, allowed: readonly string[]) => {
    if (params[key] !== undefined && !allowed.includes(params[key] as string)) report([key], `${key} must be one of ${allowed.join(', ')}`, params[key])
  }
  switch (node.type) {
    case 'agentbox.set': {
      if (!isPlainObject(params.values)) return report(['values'], 'values must be an object of {path: value}', params.values)
      for (const path of Object.keys(params.values)) {
        const problem = parseSetPath(path).problem
        if (problem) report(['values', path], problem, path)
      }
      return oneOf('mode', ['merge', 'replace'])
    }
    case 'agentbox.if': {
      if (!Array.isArray(params.conditions) || params.conditions.length === 0) return report(['conditions'], 'conditions must be a non-empty list of {left, operator, right}', params.conditions)
      params.conditions.forEach((condition, i) => {
        if (!isPlainObject(condition)) return report(['conditions', i], 'A condition is an object {left, operator, right}', condition)
        if (!IF_OPERATORS.has(condition.operator as string)) return report(['conditions', i, 'operator'], `Unknown operator; use one of ${[...IF_OPERATORS].join(', ')}`, condition.operator)
        if (!('left' in condition)) report(['conditions', i, 'left'], 'Field required')
        if (!UNARY_OPERATORS.has(condition.operator as string) && !('right' in condition)) report(['conditions', i, 'right'], 'Field required')
        if (/matches_regex/.test(condition.operator as string) && typeof condition.right === 'string' && !isTemplate(condition.right)) {
          const problem = compileRegex(condition.right, false).problem
          if (problem) report(['conditions', i, 'right'], problem, condition.right)
        }
      })
      if (params.ignore_case !== undefined && typeof params.ignore_case !== 'boolean') report(['ignore_case'], 'ignore_case must be true or false', params.ignore_case)
      return oneOf('combinator', ['and', 'or'])
    }
    case 'agentbox.map': {
      if (!isTemplate(params.items) && !Array.isArray(params.items)) report(['items'], 'items must be an expression ({{ … }}) or a list', params.items)
      if (params.max_items !== undefined && !positiveInt(params.max_items, LIMITS.mapItemsCap)) report(['max_items'], `max_items must be an integer from 1 to ${LIMITS.mapItemsCap}`, params.max_items)
      return oneOf('on_item_error', ['stop', 'null', 'skip'])
    }
    case 'agentbox.llm':
      if (typeof params.prompt !== 'string' || params.prompt.trim() === '') report(['prompt'], 'prompt must be a non-empty string', params.prompt)
      for (const key of ['system', 'model', 'provider']) if (params[key] !== undefined && typeof params[key] !== 'string') report([key], `${key} must be a string`, params[key])
      return
    case 'agentbox.approval':
      if (params.message !== undefined && typeof params.message !== 'string') report(['message'], 'message must be a string', params.message)
      if (params.timeout_s !== undefined && !positiveInt(params.timeout_s, LIMITS.gateTimeoutCapS)) report(['timeout_s'], `timeout_s must be an integer from 1 to ${LIMITS.gateTimeoutCapS} (30 days)`, params.timeout_s)
      return
    case 'agentbox.output':
      if (!('value' in params)) report(['value'], 'value is required: the run result (a literal or {{ expression }})')
      return
    case 'agentbox.join':
      return
  }
}

/** Keys of literal objects in params must not be prototype keys either (they end up in run data). */
export function findReservedKey(value: unknown, path: Loc = []): Loc | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findReservedKey(value[i], [...path, i])
      if (found) return found
    }
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (isReservedKey(key)) return [...path, key]
      const found = findReservedKey((value as Record<string, unknown>)[key], [...path, key])
      if (found) return found
    }
  }
  return null
}
