// A workflow definition drawn as a graph: dagre lays the nodes out top to bottom (reads the same in both directions),
// SVG draws boxes and port-labelled arrows; screen readers get a summary and the steps as a list.
import { graphlib, layout } from '@dagrejs/dagre'
import { useMemo } from 'preact/hooks'
import { h } from '../ui.ts'

export interface WfNode {
  id: string
  type: string
  name?: string
  params?: Record<string, unknown>
  [key: string]: unknown
}
export interface WfConnection {
  from: string
  port?: string
  to: string
}
export interface Definition {
  nodes: WfNode[]
  connections: WfConnection[]
  settings?: Record<string, unknown>
}

/** Each type's ports, as the server's nodes/*.ts declare them; the first is the one a connection without `port` leaves by. */
export const PORTS: Record<string, readonly string[]> = {
  'agentbox.set': ['main', 'error'],
  'agentbox.if': ['true', 'false', 'error'],
  'agentbox.map': ['loop', 'done', 'error'],
  'agentbox.join': ['main'],
  'agentbox.llm': ['main', 'error'],
  'agentbox.approval': ['approved', 'rejected', 'timeout'],
  'agentbox.output': [],
}

export const shortType = (type: unknown) => (typeof type === 'string' ? type.replace(/^agentbox\./, '') : '?')
/** The port label an arrow shows: the named port, else the type's default; the plain `main` goes unlabelled. */
export function portLabel(from: WfNode | undefined, c: WfConnection): string {
  const port = c.port ?? (from ? PORTS[from.type]?.[0] : undefined) ?? ''
  return port === 'main' ? '' : port
}

/** A definition the graph can draw, or a sentence saying why not (the server's own checks come at save). */
export function asDefinition(value: unknown): Definition | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'The definition must be a JSON object {nodes, connections}'
  const v = value as Record<string, unknown>
  if (!Array.isArray(v.nodes)) return 'The definition needs a "nodes" list'
  if (v.connections !== undefined && !Array.isArray(v.connections)) return '"connections" must be a list'
  const nodes = v.nodes.filter((n): n is WfNode => typeof n === 'object' && n !== null && typeof (n as WfNode).id === 'string')
  // Malformed connections stay as blanks, so a connection's index (what save errors name) still finds its arrow.
  const connections = ((v.connections ?? []) as unknown[]).map((c) => {
    const x = (typeof c === 'object' && c !== null ? c : {}) as Partial<WfConnection>
    return { from: String(x.from ?? ''), to: String(x.to ?? ''), ...(typeof x.port === 'string' ? { port: x.port } : {}) }
  })
  return { ...(v as object), nodes, connections } as Definition
}

interface PlacedNode {
  node: WfNode
  title: string
  subtitle: string
  x: number
  y: number
  w: number
  h: number
}
interface PlacedEdge {
  index: number
  label: string
  points: { x: number; y: number }[]
  lx: number
  ly: number
}
interface Placed {
  width: number
  height: number
  nodes: PlacedNode[]
  edges: PlacedEdge[]
}

const NODE_H = 46
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

function place(def: Definition, statuses: Readonly<Record<string, string>> | undefined, rtl: boolean): Placed {
  const g = new graphlib.Graph({ multigraph: true })
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 46, edgesep: 14, marginx: 10, marginy: 10 })
  g.setDefaultEdgeLabel(() => ({}))
  const byId = new Map<string, WfNode>()
  for (const node of def.nodes) {
    if (byId.has(node.id)) continue
    byId.set(node.id, node)
    const title = clip(typeof node.name === 'string' && node.name ? node.name : node.id, 30)
    const status = statuses?.[node.id]
    const kind = clip(typeof node.name === 'string' && node.name ? `${shortType(node.type)} · ${node.id}` : shortType(node.type), 34)
    const subtitle = status ? `${kind} · ${status.replace('_', ' ')}` : kind
    const w = Math.min(300, Math.max(96, Math.max(title.length * 7.6, subtitle.length * 6.2) + 26))
    g.setNode(node.id, { width: w, height: NODE_H, title, subtitle })
  }
  def.connections.forEach((c, index) => {
    if (!byId.has(c.from) || !byId.has(c.to)) return
    const label = portLabel(byId.get(c.from), c)
    g.setEdge(c.from, c.to, { label, width: label ? label.length * 6.6 + 10 : 0, height: label ? 18 : 0, labelpos: 'c', index }, String(index))
  })
  layout(g)
  const nodes: PlacedNode[] = g.nodes().map((id) => {
    const n = g.node(id)
    return { node: byId.get(id)!, title: n.title as string, subtitle: n.subtitle as string, x: n.x ?? 0, y: n.y ?? 0, w: n.width, h: n.height }
  })
  const edges: PlacedEdge[] = g.edges().map((e) => {
    const label = g.edge(e)
    return { index: label.index as number, label: label.label as string, points: label.points ?? [], lx: label.x ?? 0, ly: label.y ?? 0 }
  })
  const graph = g.graph()
  const width = Math.max(graph.width ?? 0, 120)
  // Right-to-left pages read the branches from the right: the picture is mirrored (top to bottom stays).
  if (rtl) {
    for (const n of nodes) n.x = width - n.x
    for (const e of edges) {
      e.lx = width - e.lx
      e.points = e.points.map((p) => ({ x: width - p.x, y: p.y }))
    }
  }
  return { width, height: Math.max(graph.height ?? 0, 60), nodes, edges }
}

const path = (points: { x: number; y: number }[]) => points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ')

let graphs = 0

export interface GraphProps {
  definition: Definition
  /** Node ids (and connection indexes) a save found a problem at: drawn in the danger colour. */
  problems?: { nodes: ReadonlySet<string>; connections: ReadonlySet<number> }
  /** A run's step status by node id (the last step of each node): the run view colours the graph with it. */
  statuses?: Readonly<Record<string, string>>
  /** The accessible name's start, e.g. "Workflow refunds". */
  title: string
}

/** The definition as a picture, plus its steps as a list for screen readers. */
export function WorkflowGraph({ definition, problems, statuses, title }: GraphProps) {
  const key = useMemo(() => JSON.stringify([definition.nodes.map((n) => [n.id, n.type, n.name]), definition.connections, statuses]), [definition, statuses])
  const rtl = document.documentElement.dir === 'rtl'
  const placed = useMemo(() => place(definition, statuses, rtl), [key, rtl])
  const marker = useMemo(() => `wf-arrow-${++graphs}`, [])
  const byId = new Map(definition.nodes.map((n) => [n.id, n]))
  const summary = `${title}: ${placed.nodes.length} ${placed.nodes.length === 1 ? 'step' : 'steps'}, ${placed.edges.length} ${placed.edges.length === 1 ? 'connection' : 'connections'}${
    problems?.nodes.size ? `; problems at ${[...problems.nodes].join(', ')}` : ''
  }`
  const outgoing = (id: string) =>
    definition.connections
      .filter((c) => c.from === id)
      .map((c) => {
        const label = portLabel(byId.get(id), c)
        return label ? `${c.to} (${label})` : c.to
      })
  return h(
    'figure',
    { class: 'wf-graph' },
    h(
      'div',
      { class: 'wf-graph-scroll' },
      h(
        'svg',
        {
          role: 'img',
          'aria-label': summary,
          viewBox: `0 0 ${placed.width.toFixed(0)} ${placed.height.toFixed(0)}`,
          width: placed.width.toFixed(0),
          height: placed.height.toFixed(0),
        },
        h(
          'defs',
          null,
          h(
            'marker',
            { id: marker, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
            h('path', { d: 'M0 0L10 5L0 10z', class: 'wf-arrowhead' }),
          ),
        ),
        placed.edges.map((e) =>
          h(
            'g',
            { key: `e${e.index}`, class: problems?.connections.has(e.index) ? 'wf-edge wf-problem' : 'wf-edge', 'data-port': e.label || undefined },
            h('path', { d: path(e.points), 'marker-end': `url(#${marker})` }),
            e.label
              ? h(
                  'g',
                  { class: 'wf-port' },
                  h('rect', { x: e.lx - (e.label.length * 6.6 + 10) / 2, y: e.ly - 9, width: e.label.length * 6.6 + 10, height: 18, rx: 4 }),
                  h('text', { x: e.lx, y: e.ly + 4, 'text-anchor': 'middle' }, e.label),
                )
              : null,
          ),
        ),
        placed.nodes.map((n) => {
          const status = statuses?.[n.node.id]
          const cls = [
            'wf-node',
            `wf-type-${shortType(n.node.type).replace(/[^a-z]/g, '')}`,
            problems?.nodes.has(n.node.id) ? 'wf-problem' : '',
            status ? `wf-status-${status}` : '',
          ]
          return h(
            'g',
            {
              key: n.node.id,
              class: cls.filter(Boolean).join(' '),
              'data-node': n.node.id,
              transform: `translate(${(n.x - n.w / 2).toFixed(1)} ${(n.y - n.h / 2).toFixed(1)})`,
            },
            h('rect', { width: n.w, height: n.h, rx: 7 }),
            h('text', { x: n.w / 2, y: 19, 'text-anchor': 'middle', class: 'wf-title' }, n.title),
            h('text', { x: n.w / 2, y: 36, 'text-anchor': 'middle', class: 'wf-sub' }, n.subtitle),
          )
        }),
      ),
    ),
    h(
      'ol',
      { class: 'sr-only', 'aria-label': `${title}: steps` },
      placed.nodes.map((n) =>
        h(
          'li',
          { key: n.node.id },
          `${n.node.id}${n.node.name ? ` (${n.node.name})` : ''}: ${shortType(n.node.type)}`,
          statuses?.[n.node.id] ? `, ${statuses[n.node.id]!.replace('_', ' ')}` : '',
          problems?.nodes.has(n.node.id) ? ', has a problem' : '',
          outgoing(n.node.id).length ? `; leads to ${outgoing(n.node.id).join(', ')}` : '; ends here',
        ),
      ),
    ),
  )
}
