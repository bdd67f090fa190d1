// Save-time validation of a definition (docs/api.md "Workflows"): every problem as a 422 entry located inside it.
import type { InputIssue } from '../../../platform/errors.ts'
import { ExpressionError } from '../expr/errors.ts'
import { parseExpression } from '../expr/parse.ts'
import { collectExpressions } from '../expr/template.ts'
import { graphOf } from './graph.ts'
import { checkParams, findReservedKey } from './params.ts'
import { NODE_KINDS } from '../nodes/index.ts'
import { isValidNodeId, LIMITS, NODE_TYPES, type NodeType, type WorkflowDefinition } from './types.ts'

const ROOT = ['definition'] as const

/** Returns every problem found; an empty list means the definition can be saved and run. */
export function validateDefinition(definition: WorkflowDefinition): InputIssue[] {
  const issues: InputIssue[] = []
  const add = (loc: (string | number)[], msg: string, input?: unknown) =>
    issues.push({ loc: [...ROOT, ...loc], msg, type: 'value_error', ...(input === undefined ? {} : { input }) })
  const { nodes, connections } = definition
  if (nodes.length === 0) add(['nodes'], 'A workflow needs at least one node')
  if (nodes.length > LIMITS.nodes) add(['nodes'], `A workflow may have at most ${LIMITS.nodes} nodes`)
  if (connections.length > LIMITS.connections) add(['connections'], `A workflow may have at most ${LIMITS.connections} connections`)
  const settings = definition.settings ?? {}
  if (settings.max_steps !== undefined && !(Number.isInteger(settings.max_steps) && settings.max_steps >= 1 && settings.max_steps <= LIMITS.maxStepsCap)) {
    add(['settings', 'max_steps'], `max_steps must be an integer from 1 to ${LIMITS.maxStepsCap}`, settings.max_steps)
  }
  if (settings.timeout_s !== undefined && !(Number.isInteger(settings.timeout_s) && settings.timeout_s >= 1 && settings.timeout_s <= LIMITS.timeoutCapS)) {
    add(['settings', 'timeout_s'], `timeout_s must be an integer from 1 to ${LIMITS.timeoutCapS}`, settings.timeout_s)
  }

  const seen = new Map<string, number>()
  nodes.forEach((node, i) => {
    const at = ['nodes', i]
    if (!isValidNodeId(node.id)) add([...at, 'id'], 'Node ids are 1 to 64 letters, digits, "_" or "-", and not __proto__, constructor or prototype', node.id)
    if (seen.has(node.id)) add([...at, 'id'], `Duplicate node id '${node.id}' (also node ${seen.get(node.id)})`, node.id)
    else seen.set(node.id, i)
    if (!NODE_TYPES.includes(node.type)) return add([...at, 'type'], `Unknown node type; use one of ${NODE_TYPES.join(', ')}`, node.type)
    if (node.on_error === 'error_output' && !NODE_KINDS[node.type].ports.includes('error'))
      add([...at, 'on_error'], `${node.type} has no error port`, node.on_error)
    if (node.on_error !== undefined && node.on_error !== 'stop' && !NODE_KINDS[node.type].fallible)
      add([...at, 'on_error'], `${node.type} steps cannot fail, so on_error does not apply`, node.on_error)
    const retry = node.retry
    if (retry) {
      if (retry.max_tries !== undefined && !(Number.isInteger(retry.max_tries) && retry.max_tries >= 1 && retry.max_tries <= LIMITS.retryTriesCap))
        add([...at, 'retry', 'max_tries'], `max_tries must be an integer from 1 to ${LIMITS.retryTriesCap}`, retry.max_tries)
      if (retry.wait_ms !== undefined && !(Number.isInteger(retry.wait_ms) && retry.wait_ms >= 0 && retry.wait_ms <= LIMITS.retryWaitCapMs))
        add([...at, 'retry', 'wait_ms'], `wait_ms must be an integer from 0 to ${LIMITS.retryWaitCapMs}`, retry.wait_ms)
      if (node.type !== 'agentbox.llm' && (retry.max_tries ?? 1) > 1)
        add([...at, 'retry'], 'Only llm steps are retried (set, if, map, join, gates and outputs never are)')
    }
    const reserved = findReservedKey(node.params ?? {})
    if (reserved) add([...at, 'params', ...reserved], `The key '${reserved.at(-1)}' is not allowed`)
    checkParams(node, [...ROOT, ...at], issues)
  })

  const byId = new Map(nodes.map((n) => [n.id, n]))
  connections.forEach((c, i) => {
    const from = byId.get(c.from)
    if (!from) add(['connections', i, 'from'], `No node '${c.from}'`, c.from)
    if (!byId.has(c.to)) add(['connections', i, 'to'], `No node '${c.to}'`, c.to)
    if (!from || !NODE_TYPES.includes(from.type)) return
    const ports = NODE_KINDS[from.type as NodeType].ports
    if (c.port !== undefined && !ports.includes(c.port))
      add(['connections', i, 'port'], ports.length ? `${from.type} has ports ${ports.join(', ')}` : `${from.type} has no outgoing ports`, c.port)
    else if (c.port === undefined && (from.type === 'agentbox.if' || from.type === 'agentbox.map'))
      add(['connections', i, 'port'], `Connections from ${from.type} must name a port (${ports.slice(0, 2).join(' or ')})`)
    else if (ports.length === 0) add(['connections', i, 'from'], `${from.type} has no outgoing ports`, c.from)
  })
  // Structure checks need a well-formed graph; report the basics first.
  if (issues.length) return issues

  const graph = graphOf(definition)
  const nodeLoc = (id: string) => ['nodes', seen.get(id)!]
  const cycle = graph.findCycle()
  if (cycle) {
    add(['connections', cycle.index], 'Cycles are only allowed through a map: connect the last step of a map body back to its map')
    return issues
  }
  for (const [mapId, body] of graph.bodies) {
    for (const e of graph.edges) {
      if (e.from === mapId && e.port === 'done' && body.has(e.to)) add(['connections', e.index], `The done port of '${mapId}' cannot lead into its own body`)
      if (!body.has(e.from) && e.from !== mapId && body.has(e.to))
        add(['connections', e.index], `'${e.to}' is in the body of map '${mapId}'; a body is entered only through the map's loop port`)
      if (body.has(e.from) && !body.has(e.to) && e.to !== mapId)
        add(['connections', e.index], `A step in the body of map '${mapId}' can only connect inside the body or back to the map`)
    }
  }
  for (const node of nodes) {
    const owner = graph.owner.get(node.id)
    if (node.type === 'agentbox.join' && graph.inEdges(node.id).length < 2) add([...nodeLoc(node.id)], 'A join needs at least 2 incoming connections')
    if (owner && node.type === 'agentbox.approval') add([...nodeLoc(node.id)], `Approval gates cannot be inside a map body (map '${owner}')`)
    if (owner && node.type === 'agentbox.output') add([...nodeLoc(node.id)], `Output nodes cannot be inside a map body (map '${owner}')`)
    for (const { path, source, error } of collectExpressions(node.params ?? {})) {
      const loc = [...nodeLoc(node.id), 'params', ...path]
      if (error) {
        add(loc, error.message, source)
        continue
      }
      try {
        const parsed = parseExpression(source)
        for (const ref of parsed.stepRefs) {
          if (!graph.nodes.has(ref)) add(loc, `$steps.${ref}: no node '${ref}'`, source)
          else if (!graph.ancestors(node.id).has(ref)) add(loc, `$steps.${ref} is not upstream of '${node.id}'`, source)
        }
        if (!owner && (parsed.variables.has('$item') || parsed.variables.has('$index'))) add(loc, '$item and $index exist only inside a map body', source)
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error
        add(loc, error.message, source)
      }
    }
  }
  const topLevel = nodes.filter((n) => !graph.owner.has(n.id))
  const gates = topLevel.filter((n) => n.type === 'agentbox.approval')
  for (const gate of gates) {
    const parallel = topLevel.find((other) => graph.mayRunTogether(gate.id, other.id))
    if (parallel) add([...nodeLoc(gate.id)], `Approval gates cannot be on parallel branches ('${gate.id}' may run at the same time as '${parallel.id}')`)
    const sources = graph.inEdges(gate.id).map((e) => e.from)
    if (sources.some((a, i) => sources.some((b, j) => j > i && graph.mayRunTogether(a, b))))
      add([...nodeLoc(gate.id)], `Approval gate '${gate.id}' could be reached twice: its inputs are parallel branches (add a join)`)
  }
  const outputs = topLevel.filter((n) => n.type === 'agentbox.output')
  outputs.forEach((a, i) => {
    const clash = outputs.slice(i + 1).find((b) => graph.mayRunTogether(a.id, b.id))
    if (clash) add([...nodeLoc(clash.id)], `Output nodes '${a.id}' and '${clash.id}' are on parallel branches; only one output may decide the result`)
  })
  return issues
}
