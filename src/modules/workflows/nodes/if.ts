// agentbox.if: tests its conditions (and / or) and passes $json on `true` or `false`.
import { isPlainObject } from '../expr/values.ts'
import { compileRegex, IF_OPERATORS, testCondition, UNARY_OPERATORS, type Condition } from '../engine/conditions.ts'
import { isTemplate, type NodeKind } from './kind.ts'

export const ifNode: NodeKind = {
  type: 'agentbox.if',
  ports: ['true', 'false', 'error'],
  exclusivePorts: true,
  fallible: true,
  checkParams(params, { report, oneOf }) {
    if (!Array.isArray(params.conditions) || params.conditions.length === 0)
      return report(['conditions'], 'conditions must be a non-empty list of {left, operator, right}', params.conditions)
    params.conditions.forEach((condition, i) => {
      if (!isPlainObject(condition)) return report(['conditions', i], 'A condition is an object {left, operator, right}', condition)
      if (!IF_OPERATORS.has(condition.operator as string))
        return report(['conditions', i, 'operator'], `Unknown operator; use one of ${[...IF_OPERATORS].join(', ')}`, condition.operator)
      if (!('left' in condition)) report(['conditions', i, 'left'], 'Field required')
      if (!UNARY_OPERATORS.has(condition.operator as string) && !('right' in condition)) report(['conditions', i, 'right'], 'Field required')
      if (/matches_regex/.test(condition.operator as string) && typeof condition.right === 'string' && !isTemplate(condition.right)) {
        const problem = compileRegex(condition.right, false).problem
        if (problem) report(['conditions', i, 'right'], problem, condition.right)
      }
    })
    if (params.ignore_case !== undefined && typeof params.ignore_case !== 'boolean')
      report(['ignore_case'], 'ignore_case must be true or false', params.ignore_case)
    oneOf('combinator', ['and', 'or'])
  },
  run(_node, params, json) {
    const conditions = params.conditions as Condition[]
    const ignoreCase = params.ignore_case === true
    const outcomes = conditions.map((c) => testCondition(c, ignoreCase))
    const pass = params.combinator === 'or' ? outcomes.some(Boolean) : outcomes.every(Boolean)
    // $json passes on as it is: run values are never changed in place, so no copy is needed (nor held twice).
    return { port: pass ? 'true' : 'false', json }
  },
}
