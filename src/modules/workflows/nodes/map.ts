// agentbox.map: runs its loop body once per item (the executor's nested frames) and emits the results on `done`.
import { LIMITS } from '../definition/types.ts'
import { StepError } from '../engine/errors.ts'
import { isTemplate, positiveInt, type NodeKind } from './kind.ts'

export const mapNode: NodeKind = {
  type: 'agentbox.map',
  ports: ['loop', 'done', 'error'],
  // `loop` and `done` both fire; only `done` and `error` exclude each other (see portsExclude in index.ts).
  exclusivePorts: false,
  fallible: true,
  checkParams(params, { report, oneOf }) {
    if (!isTemplate(params.items) && !Array.isArray(params.items)) report(['items'], 'items must be an expression ({{ … }}) or a list', params.items)
    if (params.max_items !== undefined && !positiveInt(params.max_items, LIMITS.mapItemsCap))
      report(['max_items'], `max_items must be an integer from 1 to ${LIMITS.mapItemsCap}`, params.max_items)
    oneOf('on_item_error', ['stop', 'null', 'skip'])
  },
  async run(_node, params, _json, tools) {
    const items = params.items
    if (!Array.isArray(items)) throw new StepError('map_items_not_array', `items must evaluate to a list, got ${items === null ? 'null' : typeof items}`)
    const cap = (params.max_items as number | undefined) ?? LIMITS.mapItemsCap
    if (items.length > cap) throw new StepError('map_too_many_items', `items has ${items.length} elements; max_items is ${cap}`)
    return { port: 'done', json: await tools.runMap(items), held: true }
  },
}
