// Running a workflow from the designer: the run form (live, draft, dry run), the run view (steps, result, gate) and the
// workflow's run history with cancel.
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import { Banner, formatDate, h, Link, Loading, useLoad } from '../ui.ts'
import { type Definition, shortType, WorkflowGraph } from './workflow-graph.ts'

export interface Step {
  node_id: string
  node_type: string
  name: string | null
  iteration: number[]
  seq: number
  status: string
  port: string | null
  started_at: string
  finished_at: string
  duration_ms: number
  attempts: { n: number; error: { code: string; message: string } }[]
  input: unknown
  params_resolved: unknown
  output: unknown
  error: { code: string; message: string } | null
  decision: { decision: string; reason?: string; channel: string } | null
  simulated: boolean
}
export interface Run {
  run_id: string
  agent: string
  workflow_id: string
  workflow_name: string
  version: number | null
  source: 'draft' | 'live'
  status: string
  dry_run: boolean
  recording: string | null
  starter_id: string
  result: unknown
  error: { code: string; message: string; node_id?: string } | null
  started_at: string
  finished_at: string | null
  waiting: { gate_id: string; message: string; since: string; expires_at: string; data?: unknown } | null
  steps?: Step[]
}

const enc = encodeURIComponent
const pretty = (value: unknown) => JSON.stringify(value, null, 2)
const STATUS_TEXT: Record<string, string> = { waiting_human: 'waiting for approval' }
export const statusText = (status: string) => STATUS_TEXT[status] ?? status
/** Every problem a 422 names (its field path, then the message), else the sentence. */
export function problems(error: unknown): string[] {
  if (error instanceof ApiError && error.entries.length > 0)
    return error.entries.map((e) => {
      const at = (e.loc ?? []).slice(1).join('.')
      return at ? `${at}: ${e.msg ?? 'Invalid value'}` : (e.msg ?? 'Invalid value')
    })
  return [errorText(error)]
}
const canCancel = (run: Run) => !run.dry_run && (run.status === 'running' || run.status === 'waiting_human')

function millis(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}

function StepData({ step }: { step: Step }) {
  const parts = (
    [
      ['Input', step.input],
      ['Parameters', step.params_resolved],
      ['Output', step.output],
      ['Error', step.error],
      ['Decision', step.decision],
    ] as const
  ).filter(([, value]) => value !== null && value !== undefined)
  if (parts.length === 0) return h('span', { class: 'muted' }, 'not recorded')
  return h(
    'details',
    null,
    h('summary', null, 'Data'),
    parts.map(([label, value]) => h('div', { key: label }, h('strong', null, label), h('pre', { class: 'data' }, pretty(value)))),
  )
}

/** One run: its state, the graph coloured by the steps, each step's status and timing (and data), result, error or gate. */
export function RunView({ run, definition, onCancelled }: { run: Run; definition?: Definition | undefined; onCancelled: (run: Run) => void }) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const cancel = async () => {
    setBusy(true)
    setError('')
    try {
      onCancelled(await api<Run>('POST', `/api/workflows/${enc(run.agent)}/runs/${enc(run.run_id)}/cancel`))
    } catch (e) {
      setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }
  const statuses: Record<string, string> = {}
  for (const step of run.steps ?? []) statuses[step.node_id] = step.status
  if (run.waiting) statuses[run.waiting.gate_id] = 'waiting_human'
  const kind =
    run.status === 'succeeded' ? 'success' : run.status === 'failed' ? 'error' : run.status === 'waiting_human' || run.status === 'running' ? 'info' : 'warning'
  const where = run.source === 'draft' ? 'draft' : `live v${run.version ?? '?'}`
  return h(
    'section',
    { class: 'card wf-run', 'aria-labelledby': `run-${run.run_id}`, 'data-run': run.run_id },
    h('h4', { id: `run-${run.run_id}` }, `${run.dry_run ? 'Dry run' : 'Run'} of ${run.workflow_name} (${where})`),
    h(
      Banner,
      { kind },
      h('strong', { class: 'wf-run-status' }, `Status: ${statusText(run.status)}`),
      ` · started ${formatDate(run.started_at)}`,
      run.finished_at ? ` · finished ${formatDate(run.finished_at)} (${millis(Date.parse(run.finished_at) - Date.parse(run.started_at))})` : '',
    ),
    error ? h(Banner, { kind: 'error' }, error) : null,
    run.waiting
      ? h(
          'div',
          { class: 'wf-waiting' },
          h('p', { class: 'gate-message' }, `Waiting at ${run.waiting.gate_id}: ${run.waiting.message || '(no message)'}`),
          h(
            'p',
            { class: 'muted' },
            `Since ${formatDate(run.waiting.since)}; expires ${formatDate(run.waiting.expires_at)}. `,
            h(Link, { to: '/approvals' }, 'Decide it in Approvals'),
          ),
        )
      : null,
    run.error
      ? h('p', { class: 'wf-run-error' }, h('strong', null, `${run.error.code}${run.error.node_id ? ` at ${run.error.node_id}` : ''}: `), run.error.message)
      : null,
    run.status === 'succeeded'
      ? h('figure', null, h('figcaption', null, 'Result'), h('pre', { class: 'data', 'data-testid': 'run-result' }, pretty(run.result)))
      : null,
    canCancel(run) ? h('div', { class: 'row-actions' }, h('button', { type: 'button', class: 'danger', disabled: busy, onClick: cancel }, 'Cancel run')) : null,
    definition && (run.steps?.length || run.waiting) ? h(WorkflowGraph, { definition, statuses, title: `Run of ${run.workflow_name}` }) : null,
    run.steps === undefined
      ? null
      : run.steps.length === 0
        ? h('p', { class: 'muted' }, run.recording === 'disabled' ? 'Steps are not recorded for this run (recording is off).' : 'No steps ran.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack wf-steps' },
              h('caption', null, 'Steps'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['#', 'Step', 'Type', 'Status', 'Port', 'Started', 'Time', 'Data'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                run.steps.map((step) =>
                  h(
                    'tr',
                    { key: step.seq, 'data-step': step.node_id },
                    h('td', { 'data-label': '#' }, String(step.seq)),
                    h(
                      'th',
                      { scope: 'row', 'data-label': 'Step' },
                      step.node_id,
                      step.iteration.length ? ` [${step.iteration.join(', ')}]` : '',
                      step.name ? h('span', { class: 'muted' }, ` ${step.name}`) : null,
                    ),
                    h('td', { 'data-label': 'Type' }, shortType(step.node_type)),
                    h(
                      'td',
                      { 'data-label': 'Status', class: `wf-step-${step.status}` },
                      statusText(step.status),
                      step.simulated ? h('span', { class: 'muted' }, ' (simulated)') : null,
                      step.attempts.length ? h('span', { class: 'muted' }, ` after ${step.attempts.length + 1} tries`) : null,
                    ),
                    h('td', { 'data-label': 'Port' }, step.port ?? '—'),
                    h('td', { 'data-label': 'Started' }, formatDate(step.started_at)),
                    h('td', { 'data-label': 'Time' }, millis(step.duration_ms)),
                    h('td', { 'data-label': 'Data' }, h(StepData, { step })),
                  ),
                ),
              ),
            ),
          ),
  )
}

interface RunFormProps {
  agent: string
  workflowId: string
  /** Owners may run the draft (a dry run by default); everyone may run the live version. */
  owner: boolean
  onRun: (run: Run) => void
}

/** The input (JSON), which version (owners) and real or dry; dry runs may carry step data for llm steps and gates. */
export function RunForm({ agent, workflowId, owner, onRun }: RunFormProps) {
  const [input, setInput] = useState('{}')
  const [stepData, setStepData] = useState('')
  const [version, setVersion] = useState<'draft' | 'live'>(owner ? 'draft' : 'live')
  const [error, setError] = useState<string[] | null>(null)
  const [busy, setBusy] = useState(false)
  const run = async (dry: boolean) => {
    setError(null)
    const body: Record<string, unknown> = { dry_run: dry, include_data: true, version }
    try {
      body.input = input.trim() ? JSON.parse(input) : {}
    } catch {
      return setError(['The input is not valid JSON'])
    }
    if (dry && stepData.trim()) {
      try {
        body.step_data = JSON.parse(stepData)
      } catch {
        return setError(['The step data is not valid JSON'])
      }
    }
    setBusy(true)
    try {
      onRun(await api<Run>('POST', `/api/workflows/${enc(agent)}/${enc(workflowId)}/run`, body))
    } catch (e) {
      setError(problems(e))
    } finally {
      setBusy(false)
    }
  }
  const dryFirst = version === 'draft'
  const area = (id: string, label: string, value: string, set: (v: string) => void, rows: number) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h('textarea', {
        id,
        name: id,
        dir: 'ltr',
        rows,
        spellcheck: false,
        class: 'wf-code',
        value,
        onInput: (e: Event) => set((e.currentTarget as HTMLTextAreaElement).value),
      }),
    )
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'wf-run-title' },
    h('h4', { id: 'wf-run-title' }, 'Run'),
    owner
      ? h(
          'fieldset',
          { class: 'wf-version' },
          h('legend', null, 'Version'),
          h(
            'div',
            { class: 'choice' },
            (
              [
                ['draft', 'Draft (as saved)'],
                ['live', 'Live version'],
              ] as const
            ).map(([value, text]) =>
              h(
                'label',
                { key: value },
                h('input', { type: 'radio', name: `wf-version-${workflowId}`, value, checked: version === value, onChange: () => setVersion(value) }),
                text,
              ),
            ),
          ),
        )
      : null,
    area('wf-input', 'Input (JSON)', input, setInput, 4),
    h(
      'details',
      null,
      h('summary', null, 'Step data for dry runs'),
      h(
        'p',
        { class: 'hint' },
        'By node id: an llm step’s output, or a gate’s decision, e.g. {"gate": {"decision": "reject", "reason": "too much"}}. Gates approve by default.',
      ),
      area('wf-step-data', 'Step data (JSON)', stepData, setStepData, 3),
    ),
    h(
      'div',
      { class: 'row-actions' },
      h('button', { type: 'button', class: dryFirst ? 'primary' : undefined, disabled: busy, onClick: () => run(true) }, 'Dry run'),
      h('button', { type: 'button', class: dryFirst ? undefined : 'primary', disabled: busy, onClick: () => run(false) }, 'Run'),
    ),
    h(
      'p',
      { class: 'hint' },
      'Dry runs simulate model calls and approval gates and record nothing. A real run answers when it finishes or waits for approval.',
    ),
    error
      ? h(
          Banner,
          { kind: 'error' },
          h(
            'ul',
            null,
            error.map((line) => h('li', { key: line }, line)),
          ),
        )
      : null,
  )
}

/** The workflow's runs, newest first (admins see everyone's, members their own); opening one shows it with its steps. */
export function RunsHistory({ agent, workflowId, tick, onOpen }: { agent: string; workflowId: string; tick: number; onOpen: (run: Run) => void }) {
  const runs = useLoad(() => api<Run[]>('GET', `/api/workflows/${enc(agent)}/runs?workflow_id=${enc(workflowId)}&limit=50`), [agent, workflowId, tick])
  const [error, setError] = useState('')
  const open = async (run: Run) => {
    setError('')
    try {
      onOpen(await api<Run>('GET', `/api/workflows/${enc(agent)}/runs/${enc(run.run_id)}?include_data=true`))
    } catch (e) {
      setError(errorText(e))
    }
  }
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'wf-history-title' },
    h('h4', { id: 'wf-history-title' }, 'Runs history'),
    error ? h(Banner, { kind: 'error' }, error) : null,
    !runs.data
      ? h(Loading, { error: runs.error })
      : runs.data.length === 0
        ? h('p', { class: 'muted' }, 'No recorded runs yet (dry runs are not recorded).')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack wf-history' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Started', 'Status', 'Version', 'Finished', ''].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                runs.data.map((run) =>
                  h(
                    'tr',
                    { key: run.run_id, 'data-run': run.run_id },
                    h('th', { scope: 'row', 'data-label': 'Started' }, formatDate(run.started_at)),
                    h('td', { 'data-label': 'Status' }, statusText(run.status)),
                    h('td', { 'data-label': 'Version' }, run.source === 'draft' ? 'draft' : `v${run.version ?? '?'}`),
                    h('td', { 'data-label': 'Finished' }, formatDate(run.finished_at)),
                    h(
                      'td',
                      { 'data-label': 'Actions' },
                      h('button', { type: 'button', 'aria-label': `Open run of ${formatDate(run.started_at)}`, onClick: () => open(run) }, 'Open'),
                    ),
                  ),
                ),
              ),
            ),
          ),
    h('button', { type: 'button', onClick: runs.reload }, 'Refresh'),
  )
}
