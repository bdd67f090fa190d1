// A workflow's graph beside its JSON: the graph follows the text as it parses; Save creates or replaces the draft's copy,
// and the server's 422 entries are placed on the node (or arrow) they name, in the graph and in a list under the editor.
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import { Banner, Field, h } from '../ui.ts'
import { asDefinition, type Definition, WorkflowGraph } from './workflow-graph.ts'

export interface Workflow {
  id: string
  name: string
  definition: Definition
  source: 'draft' | 'live'
  created_at: string
  updated_at: string
}

export interface SaveProblem {
  /** The node the problem is at (its id), when the server located it inside one. */
  node?: string
  /** The connection's index, when it is about an arrow. */
  connection?: number
  /** Where inside the node or connection, e.g. params.timeout_s. */
  at: string
  message: string
}

const index = (part: unknown): number | undefined =>
  typeof part === 'number' ? part : typeof part === 'string' && /^\d+$/.test(part) ? Number(part) : undefined

/** The 422 entries of a save, each located at a node id or a connection of the definition that was sent. */
export function locateProblems(error: unknown, sent: unknown): SaveProblem[] {
  if (!(error instanceof ApiError) || error.entries.length === 0) return [{ at: '', message: errorText(error) }]
  const def = (sent ?? {}) as { nodes?: { id?: unknown }[]; connections?: { from?: unknown; to?: unknown }[] }
  return error.entries.map((entry) => {
    const loc = entry.loc?.[0] === 'body' ? entry.loc.slice(1) : (entry.loc ?? [])
    const message = entry.msg ?? 'Invalid value'
    if (loc[0] !== 'definition') return { at: loc.join('.'), message }
    const i = index(loc[2])
    if (loc[1] === 'nodes' && i !== undefined) {
      const id = def.nodes?.[i]?.id
      return { node: typeof id === 'string' ? id : `nodes[${i}]`, at: loc.slice(3).join('.'), message }
    }
    if (loc[1] === 'connections' && i !== undefined) return { connection: i, at: loc.slice(3).join('.'), message }
    return { at: loc.slice(1).join('.') || 'definition', message }
  })
}

function problemLabel(p: SaveProblem, sent: Definition | undefined): string {
  if (p.node) return `Node ${p.node}${p.at ? ` (${p.at})` : ''}`
  if (p.connection !== undefined) {
    const c = sent?.connections[p.connection]
    return `Connection ${c ? `${c.from} → ${c.to}${c.port ? ` on ${c.port}` : ''}` : `#${p.connection + 1}`}${p.at ? ` (${p.at})` : ''}`
  }
  return p.at
}

interface EditorProps {
  agent: string
  /** The workflow's id once saved; null for a new one. */
  id: string | null
  name: string
  definition: Definition
  /** Owners edit and save; others read. */
  editable: boolean
  onSaved: (workflow: Workflow) => void
  onDeleted: () => void
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2)

export function WorkflowEditor(p: EditorProps) {
  const [name, setName] = useState(p.name)
  const [text, setText] = useState(() => pretty(p.definition))
  const [shown, setShown] = useState<Definition>(p.definition)
  const [parseError, setParseError] = useState('')
  const [problems, setProblems] = useState<{ list: SaveProblem[]; sent?: Definition; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  // What was last loaded or saved, to tell unsaved changes apart.
  const [base, setBase] = useState(() => ({ name: p.name, text: pretty(p.definition) }))

  // The graph follows the text once it parses (after a short pause in typing, so large graphs are not laid out per key).
  useEffect(() => {
    const timer = setTimeout(() => {
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch (e) {
        return setParseError(`Not valid JSON yet (${errorText(e)}); the graph shows the last definition that parsed.`)
      }
      const def = asDefinition(value)
      if (typeof def === 'string') return setParseError(def)
      setParseError('')
      setShown(def)
    }, 150)
    return () => clearTimeout(timer)
  }, [text])

  const save = async () => {
    let sent: unknown
    try {
      sent = JSON.parse(text)
    } catch (e) {
      return setProblems({ list: [{ at: '', message: `The definition is not valid JSON: ${errorText(e)}` }], text })
    }
    setBusy(true)
    try {
      const body = { name: name.trim(), definition: sent }
      const saved = p.id
        ? await api<Workflow>('PUT', `/api/workflows/${encodeURIComponent(p.agent)}/${encodeURIComponent(p.id)}`, body)
        : await api<Workflow>('POST', `/api/workflows/${encodeURIComponent(p.agent)}`, body)
      setProblems(null)
      setBase({ name, text })
      p.onSaved(saved)
    } catch (e) {
      const def = asDefinition(sent)
      setProblems({ list: locateProblems(e, sent), sent: typeof def === 'string' ? undefined : def, text })
    } finally {
      setBusy(false)
    }
  }
  const remove = async () => {
    if (!p.id || !confirm(`Delete the workflow ${p.name} from the draft?`)) return
    setBusy(true)
    try {
      await api('DELETE', `/api/workflows/${encodeURIComponent(p.agent)}/${encodeURIComponent(p.id)}`)
      p.onDeleted()
    } catch (e) {
      setProblems({ list: [{ at: '', message: errorText(e) }], text })
      setBusy(false)
    }
  }

  // The problems belong to the text that was saved: once it changes they stay listed but no longer mark the graph.
  const current = problems !== null && problems.text === text
  const marks = current
    ? {
        nodes: new Set(problems.list.flatMap((x) => (x.node ? [x.node] : []))),
        connections: new Set(problems.list.flatMap((x) => (x.connection !== undefined ? [x.connection] : []))),
      }
    : undefined
  const nameProblem = problems?.list.find((x) => x.at === 'name')
  const listed = problems?.list.filter((x) => x !== nameProblem) ?? []
  const dirty = name !== base.name || text !== base.text
  const editorId = `wf-json-${p.id ?? 'new'}`
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'wf-editor-title' },
    h('h4', { id: 'wf-editor-title' }, p.id ? (p.editable ? `Edit ${p.name}` : p.name) : 'New workflow'),
    p.editable ? h(Field, { id: 'wf-name', label: 'Workflow name', value: name, onInput: setName, error: nameProblem?.message, required: true }) : null,
    h(
      'div',
      { class: 'wf-design' },
      h(WorkflowGraph, { definition: shown, problems: marks, title: `Workflow ${name || 'without a name'}` }),
      h(
        'div',
        { class: 'field wf-json' },
        h('label', { for: editorId }, p.editable ? 'Definition (JSON)' : 'Definition (JSON, read-only)'),
        h('textarea', {
          id: editorId,
          name: editorId,
          dir: 'ltr',
          rows: 18,
          spellcheck: false,
          readOnly: !p.editable,
          class: 'wf-code',
          value: text,
          'aria-invalid': parseError || (current && listed.length) ? 'true' : undefined,
          'aria-describedby': `${editorId}-status`,
          onInput: (e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value),
        }),
        h('div', { class: 'field-error', id: `${editorId}-status`, role: 'status' }, parseError),
      ),
    ),
    listed.length
      ? h(
          Banner,
          { kind: 'error' },
          h('p', null, h('strong', null, current ? 'The workflow was not saved:' : 'The last save was refused (the text has changed since):')),
          h(
            'ul',
            { class: 'wf-problems' },
            listed.map((x, i) => {
              const label = problemLabel(x, problems?.sent)
              return h('li', { key: i, 'data-node': x.node }, label ? h('strong', null, `${label}: `) : null, x.message)
            }),
          ),
        )
      : null,
    p.editable
      ? h(
          'div',
          { class: 'row-actions' },
          h('button', { type: 'button', class: 'primary', disabled: busy, onClick: save }, p.id ? 'Save' : 'Create workflow'),
          p.id ? h('button', { type: 'button', class: 'danger', disabled: busy, onClick: remove }, 'Delete workflow') : null,
          dirty ? h('span', { class: 'muted wf-dirty' }, 'Unsaved changes') : null,
        )
      : null,
  )
}
