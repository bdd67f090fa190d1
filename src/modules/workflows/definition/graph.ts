// The shape of a definition the engine and validation both need: map bodies, back-edges, ancestry, concurrency.
import { portOf, portsExclude } from '../nodes/index.ts'
import type { Connection, WorkflowDefinition, WorkflowNode } from './types.ts'

export interface Edge {
  index: number
  from: string
  port: string
  to: string
}

export class WorkflowGraph {
  readonly nodes = new Map<string, WorkflowNode>()
  readonly edges: Edge[] = []
  /** Every node of a map's body (nested bodies included). */
  readonly bodies = new Map<string, Set<string>>()
  /** The innermost map whose body holds a node; absent for top-level nodes. */
  readonly owner = new Map<string, string>()
  /** Edges from a body node back into its map: they carry an iteration's result. */
  readonly backEdges = new Set<number>()
  readonly forward: Edge[] = []
  readonly outgoing = new Map<string, Edge[]>()
  readonly incoming = new Map<string, Edge[]>()
  #ancestors = new Map<string, Set<string>>()

  constructor(readonly definition: WorkflowDefinition) {
    for (const node of definition.nodes) if (!this.nodes.has(node.id)) this.nodes.set(node.id, node)
    definition.connections.forEach((c: Connection, index) => {
      const from = this.nodes.get(c.from)
      if (!from || !this.nodes.has(c.to)) return
      this.edges.push({ index, from: c.from, port: portOf(from, c), to: c.to })
    })
    for (const node of this.nodes.values()) {
      if (node.type !== 'agentbox.map') continue
      const body = new Set<string>()
      const stack = this.edges.filter((e) => e.from === node.id && e.port === 'loop').map((e) => e.to)
      while (stack.length) {
        const id = stack.pop()!
        if (id === node.id || body.has(id)) continue
        body.add(id)
        for (const e of this.edges) if (e.from === id) stack.push(e.to)
      }
      this.bodies.set(node.id, body)
    }
    for (const id of this.nodes.keys()) {
      let best: string | undefined
      for (const [map, body] of this.bodies) if (body.has(id) && (!best || body.size < this.bodies.get(best)!.size)) best = map
      if (best) this.owner.set(id, best)
    }
    for (const e of this.edges) {
      if (this.bodies.get(e.to)?.has(e.from)) this.backEdges.add(e.index)
      else this.forward.push(e)
    }
    for (const e of this.forward) {
      if (!this.outgoing.has(e.from)) this.outgoing.set(e.from, [])
      this.outgoing.get(e.from)!.push(e)
      if (!this.incoming.has(e.to)) this.incoming.set(e.to, [])
      this.incoming.get(e.to)!.push(e)
    }
  }

  inEdges = (id: string): Edge[] => this.incoming.get(id) ?? []
  outEdges = (id: string): Edge[] => this.outgoing.get(id) ?? []

  /** Edges of a node that leave its frame back to the map it belongs to. */
  backEdgesFrom(id: string): Edge[] {
    return this.edges.filter((e) => e.from === id && this.backEdges.has(e.index))
  }

  /** A forward-edge cycle (the only cycles allowed go through a map's back-edge), as one edge on it, or null. */
  findCycle(): Edge | null {
    const indegree = new Map<string, number>([...this.nodes.keys()].map((id) => [id, 0]))
    for (const e of this.forward) indegree.set(e.to, indegree.get(e.to)! + 1)
    const ready = [...indegree].filter(([, n]) => n === 0).map(([id]) => id)
    const done = new Set<string>()
    while (ready.length) {
      const id = ready.pop()!
      done.add(id)
      for (const e of this.outEdges(id)) {
        indegree.set(e.to, indegree.get(e.to)! - 1)
        if (indegree.get(e.to) === 0) ready.push(e.to)
      }
    }
    return this.forward.find((e) => !done.has(e.from) && !done.has(e.to)) ?? null
  }

  /** Nodes with a forward path to `id` (computed on an acyclic graph only). */
  ancestors(id: string): Set<string> {
    const known = this.#ancestors.get(id)
    if (known) return known
    const result = new Set<string>()
    const stack = this.inEdges(id).map((e) => e.from)
    while (stack.length) {
      const next = stack.pop()!
      if (result.has(next)) continue
      result.add(next)
      for (const e of this.inEdges(next)) stack.push(e.from)
    }
    this.#ancestors.set(id, result)
    return result
  }

  /** The ports of `from` through which `to` can be reached by forward edges. */
  portsReaching(from: string, to: string): Set<string> {
    const ports = new Set<string>()
    for (const e of this.outEdges(from)) if (e.to === to || this.ancestors(to).has(e.to)) ports.add(e.port)
    return ports
  }

  /**
   * True when `a` and `b` may both be pending in one run: neither is upstream of the other and no node with
   * alternative ports (if, gate, a step's main/error, a map's done/error) sends them down different ports.
   */
  mayRunTogether(a: string, b: string): boolean {
    if (a === b) return false
    const up = this.ancestors(a)
    const upB = this.ancestors(b)
    if (up.has(b) || upB.has(a)) return false
    for (const x of up) {
      if (!upB.has(x)) continue
      const type = this.nodes.get(x)!.type
      const pa = this.portsReaching(x, a)
      const pb = this.portsReaching(x, b)
      if ([...pa].every((p) => [...pb].every((q) => portsExclude(type, p, q)))) return false
    }
    return true
  }
}

// Definitions are immutable once saved; one analysis per definition object serves every run and resume of it.
const graphs = new WeakMap<WorkflowDefinition, WorkflowGraph>()
export function graphOf(definition: WorkflowDefinition): WorkflowGraph {
  let graph = graphs.get(definition)
  if (!graph) graphs.set(definition, (graph = new WorkflowGraph(definition)))
  return graph
}
