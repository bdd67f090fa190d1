// Approvals: the caller's runs paused at a gate (only the starter may resume), with approve (+ edits) or reject (+ reason).
import { useState } from 'preact/hooks'
import { api, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, Field, formatDate, h, Loading, useLoad } from '../ui.ts'

interface Run {
  run_id: string
  agent: string
  workflow_name: string
  status: string
  starter_id: string
  started_at: string
  result: unknown
  error: { message: string } | null
  waiting: { gate_id: string; message: string; since: string; expires_at: string; data?: unknown } | null
}

/** Runs live under their agent: list the agents the caller sees, then each one's waiting runs, keeping the caller's own. */
async function waitingRuns(me: Me): Promise<Run[]> {
  const agents = await api<{ name: string }[]>('GET', '/api/agents')
  const lists = await Promise.all(agents.map((a) => api<Run[]>('GET', `/api/workflows/${encodeURIComponent(a.name)}/runs?status=waiting_human`)))
  const mine = lists.flat().filter((run) => run.starter_id === me.id)
  // The list leaves out the gate's data; each run's own GET carries it.
  return Promise.all(mine.map((run) => api<Run>('GET', `/api/workflows/${encodeURIComponent(run.agent)}/runs/${encodeURIComponent(run.run_id)}`)))
}

const json = (value: unknown) => JSON.stringify(value, null, 2)

function Decision({ run, onDone }: { run: Run; onDone: (run: Run) => void }) {
  const [edits, setEdits] = useState('')
  const [reason, setReason] = useState('')
  const [error, setError] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const id = run.run_id
  const decide = async (decision: 'approve' | 'reject') => {
    const body: Record<string, unknown> = { decision }
    if (decision === 'approve' && edits.trim()) {
      try {
        body.edits = JSON.parse(edits)
      } catch {
        return setError({ edits: 'Edits must be a JSON object, for example {"amount": 4}' })
      }
    }
    if (decision === 'reject' && reason.trim()) body.reason = reason.trim()
    setBusy(true)
    setError({})
    try {
      onDone(await api<Run>('POST', `/api/workflows/${encodeURIComponent(run.agent)}/runs/${encodeURIComponent(id)}/resume`, body))
    } catch (e) {
      setError({ form: errorText(e) })
    } finally {
      setBusy(false)
    }
  }
  return h(
    'article',
    { class: 'card', 'aria-labelledby': `run-${id}` },
    h('h2', { id: `run-${id}` }, `${run.agent} · ${run.workflow_name}`),
    h('p', { class: 'gate-message' }, run.waiting?.message ?? ''),
    h('p', { class: 'muted' }, `Waiting since ${formatDate(run.waiting?.since)}; expires ${formatDate(run.waiting?.expires_at)}`),
    run.waiting?.data !== undefined ? h('figure', null, h('figcaption', null, 'Gate data'), h('pre', { class: 'data' }, json(run.waiting.data))) : null,
    error.form ? h(Banner, { kind: 'error' }, error.form) : null,
    h(Field, {
      id: `edits-${id}`,
      label: 'Edits to apply when approving (optional JSON)',
      value: edits,
      onInput: setEdits,
      error: error.edits,
      multiline: true,
    }),
    h(Field, { id: `reason-${id}`, label: 'Reason when rejecting (optional)', value: reason, onInput: setReason }),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'primary', disabled: busy, onClick: () => decide('approve') }, 'Approve'),
      h('button', { type: 'button', class: 'danger', disabled: busy, onClick: () => decide('reject') }, 'Reject'),
    ),
  )
}

export function ApprovalsPage({ me }: { me: Me }) {
  const runs = useLoad(() => waitingRuns(me))
  const [results, setResults] = useState<Run[]>([])
  const done = (run: Run) => {
    setResults([run, ...results])
    runs.reload()
  }
  return h(
    'section',
    null,
    h('h1', null, 'Approvals'),
    h(
      'div',
      { 'aria-live': 'polite' },
      results.map((run) =>
        h(
          Banner,
          { kind: run.status === 'failed' ? 'error' : 'success', key: run.run_id },
          h('strong', null, `${run.agent} · ${run.workflow_name}: ${run.status}`),
          run.result !== undefined && run.result !== null ? h('pre', { class: 'data' }, json(run.result)) : null,
          run.error ? h('p', null, run.error.message) : null,
        ),
      ),
    ),
    !runs.data
      ? h(Loading, { error: runs.error })
      : runs.data.length === 0
        ? h('p', null, 'Nothing is waiting for your approval.')
        : runs.data.map((run) => h(Decision, { run, onDone: done, key: run.run_id })),
    h('button', { type: 'button', onClick: runs.reload }, 'Refresh'),
  )
}
