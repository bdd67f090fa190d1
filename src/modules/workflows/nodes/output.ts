// agentbox.output: ends its branch with the run's result.
import type { NodeKind } from './kind.ts'

export const outputNode: NodeKind = {
  type: 'agentbox.output',
  ports: [],
  exclusivePorts: false,
  fallible: true,
  checkParams(params, { report }) {
    if (!('value' in params)) report(['value'], 'value is required: the run result (a literal or {{ expression }})')
  },
  run: (_node, params) => ({ port: null, json: params.value, result: params.value }),
}
