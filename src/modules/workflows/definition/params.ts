// Parameter checks at save time: each problem is one 422 entry located at the parameter.
import type { InputIssue } from '../../../platform/errors.ts'
import { isReservedKey } from '../expr/errors.ts'
import { NODE_KINDS } from '../nodes/index.ts'
import type { WorkflowNode } from './types.ts'

type Loc = (string | number)[]

/** Each type checks its own parameters (nodes/<type>.ts); problems are located under the node's `params`. */
export function checkParams(node: WorkflowNode, at: Loc, issues: InputIssue[]): void {
  const params = node.params ?? {}
  const report = (loc: Loc, msg: string, input?: unknown) =>
    void issues.push({ loc: [...at, 'params', ...loc], msg, type: 'value_error', ...(input === undefined ? {} : { input }) })
  const oneOf = (key: string, allowed: readonly string[]) => {
    if (params[key] !== undefined && !allowed.includes(params[key] as string)) report([key], `${key} must be one of ${allowed.join(', ')}`, params[key])
  }
  NODE_KINDS[node.type].checkParams(params, { report, oneOf })
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
