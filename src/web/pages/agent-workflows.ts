// An agent's workflows in the designer: graph and JSON editor, run / dry run, run view, history (owners edit the draft).
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'
import type { AgentPanelProps } from './agent-fields.ts'
import { Banner, formatDate, h, Loading, useLoad } from '../ui.ts'
import { type Workflow, WorkflowEditor } from './workflow-editor.ts'
import type { Definition } from './workflow-graph.ts'
import { type Run, RunForm, RunsHistory, RunView } from './workflow-run.ts'

export type WorkflowsPanelProps = AgentPanelProps

interface WorkflowSummary {
  id: string
  name: string
  node_count: number
  source: 'draft' | 'live'
  updated_at: string
}

const enc = encodeURIComponent

/** What "New workflow" starts from: the smallest useful flow, to edit or replace by pasting. */
const STARTER: Definition = {
  nodes: [
    { id: 'prepare', type: 'agentbox.set', params: { values: { greeting: 'Hello {{ $json.name }}' } } },
    { id: 'result', type: 'agentbox.output', params: { value: '{{ $json }}' } },
  ],
  connections: [{ from: 'prepare', to: 'result' }],
}

function WorkflowDetail({
  agent,
  id,
  owner,
  onSaved,
  onDeleted,
}: {
  agent: string
  id: string | null
  owner: boolean
  onSaved: (w: Workflow) => void
  onDeleted: () => void
}) {
  // Read-only views ask for the live version's copy: an owner on the Live tab sees what MCP clients and chat use.
  const workflow = useLoad(
    () => (id ? api<Workflow>('GET', `/api/workflows/${enc(agent)}/${enc(id)}${owner ? '' : '?version=live'}`) : Promise.resolve(null)),
    [agent, id],
  )
  const [run, setRun] = useState<Run | null>(null)
  const [tick, setTick] = useState(0)
  if (workflow.data === undefined) return h(Loading, { error: workflow.error })
  const wf = workflow.data
  const showRun = (next: Run) => {
    setRun(next)
    setTick((n) => n + 1)
  }
  return h(
    'div',
    { class: 'wf-detail' },
    h(WorkflowEditor, {
      agent,
      id,
      name: wf?.name ?? '',
      definition: wf?.definition ?? STARTER,
      editable: owner,
      onSaved: (saved) => {
        workflow.reload()
        onSaved(saved)
      },
      onDeleted,
    }),
    wf
      ? [
          h(RunForm, { key: 'form', agent, workflowId: wf.id, owner, onRun: showRun }),
          run ? h('div', { key: 'run', 'aria-live': 'polite' }, h(RunView, { key: run.run_id, run, definition: wf.definition, onCancelled: showRun })) : null,
          h(RunsHistory, { key: 'history', agent, workflowId: wf.id, tick, onOpen: setRun }),
        ]
      : h('p', { class: 'muted' }, 'Create the workflow to run it.'),
  )
}

/** Owners: the draft's workflows (list, new, edit, delete, run the draft or live). Viewers and admins: the live version's, read-only, with Run. */
export function WorkflowsPanel({ agent, role, onChanged }: WorkflowsPanelProps) {
  const owner = role === 'owner'
  const list = useLoad(() => api<WorkflowSummary[]>('GET', `/api/workflows/${enc(agent)}${owner ? '' : '?version=live'}`), [agent])
  const [selected, setSelected] = useState<string | null>(null)
  const [notice, setNotice] = useState('')
  // The first workflow opens by itself; a selection that disappeared (deleted elsewhere) falls back to it.
  useEffect(() => {
    if (!list.data) return
    if (selected === 'new' || (selected && list.data.some((w) => w.id === selected))) return
    setSelected(list.data[0]?.id ?? null)
  }, [list.data])
  const choose = (id: string) => {
    setNotice('')
    setSelected(id)
  }
  return h(
    'section',
    { class: 'card wf-panel', 'aria-labelledby': 'wf-panel-title' },
    h('h3', { id: 'wf-panel-title' }, 'Workflows'),
    h(
      'p',
      { class: 'muted' },
      owner
        ? "The draft's workflows: save changes here, publish the agent to make them live. Runs use the draft (dry run by default) or the live version."
        : "The live version's workflows (read-only). Runs use the live version.",
    ),
    notice ? h(Banner, { kind: 'success' }, notice) : null,
    !list.data
      ? h(Loading, { error: list.error })
      : h(
          'div',
          { class: 'wf-list' },
          list.data.length === 0 ? h('p', null, owner ? 'No workflows in the draft yet.' : 'The live version has no workflows.') : null,
          list.data.length
            ? h(
                'ul',
                { class: 'operations', 'aria-label': 'Workflows' },
                list.data.map((w) =>
                  h(
                    'li',
                    { key: w.id },
                    h(
                      'button',
                      { type: 'button', class: 'link', 'aria-pressed': selected === w.id, onClick: () => choose(w.id) },
                      h('strong', null, w.name),
                      h('span', { class: 'muted' }, ` · ${w.node_count} ${w.node_count === 1 ? 'node' : 'nodes'} · updated ${formatDate(w.updated_at)}`),
                    ),
                  ),
                ),
              )
            : null,
          owner
            ? h(
                'div',
                { class: 'row-actions' },
                h('button', { type: 'button', 'aria-pressed': selected === 'new', onClick: () => choose('new') }, 'New workflow'),
              )
            : null,
        ),
    selected
      ? h(WorkflowDetail, {
          key: selected,
          agent,
          id: selected === 'new' ? null : selected,
          owner,
          onSaved: (saved) => {
            setNotice(`Saved ${saved.name} in the draft.`)
            setSelected(saved.id)
            list.reload()
            onChanged()
          },
          onDeleted: () => {
            setNotice('Workflow deleted from the draft.')
            setSelected(null)
            list.reload()
            onChanged()
          },
        })
      : null,
  )
}
