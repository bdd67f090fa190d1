// A task's run history (GET /api/task/{id}/runs, newest first, paged) and, for the run opened, the messages it wrote to
// its thread (GET /api/threads/{id}: the prompt and the model's reply). Runs still going are polled until they end.
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, formatDate, h } from '../ui.ts'

export interface TaskRun {
  id: string
  task_id: string
  status: 'running' | 'succeeded' | 'failed'
  trigger: 'schedule' | 'catch_up' | 'manual'
  scheduled_for: string | null
  thread_id: string
  started_at: string
  finished_at: string | null
  error: string | null
}
interface Message {
  role: 'user' | 'assistant'
  content: string
  created_at: string
}
interface Thread {
  id: string
  task_id: string | null
  messages: Message[]
}
export interface RunsTask {
  id: string
  name: string
  created_by: string
}

const PAGE = 20
const POLL_MS = 1000
const TRIGGERS: Record<TaskRun['trigger'], string> = { schedule: 'Scheduled', catch_up: 'Catch-up after downtime', manual: 'Manual' }
const STATUSES: Record<TaskRun['status'], string> = { running: 'Running', succeeded: 'Succeeded', failed: 'Failed' }

/** "0.4 s", "12 s", "3 min 5 s", "1 h 2 min"; a run still going counts up to now. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—'
  if (ms < 100) return '< 0.1 s'
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`
  const m = Math.round(s / 60)
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`
}
const durationOf = (run: TaskRun) => (run.finished_at ? formatDuration(Date.parse(run.finished_at) - Date.parse(run.started_at)) : 'Still running')

/** A thread an append task writes to holds every run's messages; runs never overlap, so a run's own are those of its span. */
function messagesOf(thread: Thread, run: TaskRun): Message[] {
  const end = run.finished_at ?? '9999'
  const own = thread.messages.filter((m) => m.created_at >= run.started_at && m.created_at <= end)
  return own.length > 0 ? own : thread.messages
}

function RunOutput({ task, run, me }: { task: RunsTask; run: TaskRun; me: Me }) {
  const [thread, setThread] = useState<Thread | null>(null)
  const [error, setError] = useState('')
  useEffect(() => {
    let live = true
    setError('')
    api<Thread>('GET', `/api/threads/${encodeURIComponent(run.thread_id)}`).then(
      (t) => live && setThread(t),
      (e) =>
        live &&
        setError(
          e instanceof ApiError && e.status === 404 && task.created_by !== me.email
            ? `Only the task's creator (${task.created_by}) can read what its runs wrote.`
            : errorText(e),
        ),
    )
    return () => void (live = false)
    // A run that was going when opened is read again once it ends.
  }, [run.id, run.status])

  const messages = thread ? messagesOf(thread, run) : []
  return h(
    'section',
    { class: 'run-output', id: 'run-output', tabIndex: -1, 'aria-labelledby': 'run-output-title' },
    h('h3', { id: 'run-output-title' }, `Output of the run started ${formatDate(run.started_at)}`),
    run.error ? h(Banner, { kind: 'error' }, h('span', { dir: 'auto' }, `The run failed: ${run.error}`)) : null,
    error
      ? h(Banner, { kind: 'error' }, error)
      : !thread
        ? h('p', { 'aria-busy': 'true' }, 'Loading…')
        : h(
            'ol',
            { class: 'messages', 'aria-label': 'Messages of the run' },
            messages.map((m, i) =>
              h(
                'li',
                { key: `${m.created_at}-${i}`, class: `message message-${m.role}` },
                h(
                  'div',
                  { class: 'message-head' },
                  h('strong', null, m.role === 'user' ? 'Prompt' : 'Model reply'),
                  ' ',
                  h('time', { dateTime: m.created_at, class: 'muted' }, formatDate(m.created_at)),
                ),
                h('div', { class: 'message-body', dir: 'auto' }, m.content),
              ),
            ),
            run.status === 'running' ? h('li', { class: 'message muted', 'aria-busy': 'true' }, 'The model has not answered yet…') : null,
          ),
  )
}

/** The runs of one task; `refresh` changes when the page started a run, so the list reads it at once. */
export function TaskRuns({ task, me, refresh, onClose }: { task: RunsTask; me: Me; refresh: number; onClose: () => void }) {
  const [runs, setRuns] = useState<TaskRun[] | null>(null)
  const [more, setMore] = useState(false)
  const [error, setError] = useState('')
  const [open, setOpen] = useState<string | null>(null)
  const [tick, setTick] = useState(0)

  const url = (offset: number, limit: number) => `/api/task/${encodeURIComponent(task.id)}/runs?limit=${limit}&offset=${offset}`
  // Reloads as many runs as are shown (at least a page), so "Load more" pages survive a refresh.
  useEffect(() => {
    let live = true
    const limit = Math.max(PAGE, runs?.length ?? 0)
    api<TaskRun[]>('GET', url(0, limit)).then(
      (page) => {
        if (!live) return
        setRuns(page)
        setMore(page.length === limit)
        setError('')
      },
      (e) => live && setError(errorText(e)),
    )
    return () => void (live = false)
  }, [task.id, refresh, tick])

  const running = runs?.some((r) => r.status === 'running') ?? false
  useEffect(() => {
    if (!running) return
    const timer = setTimeout(() => setTick((n) => n + 1), POLL_MS)
    return () => clearTimeout(timer)
  }, [running, runs])

  const loadMore = async () => {
    try {
      const page = await api<TaskRun[]>('GET', url(runs?.length ?? 0, PAGE))
      setRuns([...(runs ?? []), ...page])
      setMore(page.length === PAGE)
    } catch (e) {
      setError(errorText(e))
    }
  }
  const show = (run: TaskRun) => {
    setOpen(open === run.id ? null : run.id)
    if (open !== run.id) requestAnimationFrame(() => document.getElementById('run-output')?.focus())
  }

  const opened = runs?.find((r) => r.id === open) ?? null
  const summary = !runs
    ? ''
    : runs.length === 0
      ? 'This task has not run yet.'
      : `${runs.length}${more ? '+' : ''} ${runs.length === 1 ? 'run' : 'runs'}${running ? ', one still running' : ''}.`
  return h(
    'section',
    { class: 'card task-runs', id: 'task-runs', 'aria-labelledby': 'task-runs-title', tabIndex: -1 },
    h(
      'div',
      { class: 'task-runs-head' },
      h('h2', { id: 'task-runs-title' }, 'Runs of "', h('bdi', null, task.name), '"'),
      h(
        'div',
        { class: 'row-actions' },
        h('button', { type: 'button', onClick: () => setTick((n) => n + 1) }, 'Refresh runs'),
        h('button', { type: 'button', onClick: onClose }, 'Close runs'),
      ),
    ),
    error ? h(Banner, { kind: 'error' }, error) : null,
    h('p', { role: 'status', 'aria-live': 'polite', class: 'muted' }, summary),
    !runs
      ? error
        ? null
        : h('p', { 'aria-busy': 'true' }, 'Loading…')
      : runs.length === 0
        ? null
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'sr-only' }, `Runs of ${task.name}, newest first`),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Started', 'Trigger', 'Status', 'Duration', 'Output'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                runs.map((run) =>
                  h(
                    'tr',
                    { key: run.id, class: open === run.id ? 'run-open' : undefined },
                    h('th', { scope: 'row', 'data-label': 'Started' }, h('time', { dateTime: run.started_at }, formatDate(run.started_at))),
                    h('td', { 'data-label': 'Trigger' }, TRIGGERS[run.trigger] ?? run.trigger),
                    h(
                      'td',
                      { 'data-label': 'Status' },
                      h('span', { class: `run-status run-${run.status}` }, STATUSES[run.status] ?? run.status),
                      run.error ? h('div', { class: 'muted', dir: 'auto' }, run.error) : null,
                    ),
                    h('td', { 'data-label': 'Duration' }, durationOf(run)),
                    h(
                      'td',
                      { 'data-label': 'Output' },
                      h(
                        'button',
                        { type: 'button', 'aria-expanded': open === run.id ? 'true' : 'false', 'aria-controls': 'run-output', onClick: () => show(run) },
                        open === run.id ? 'Hide output' : 'Show output',
                        h('span', { class: 'sr-only' }, ` of the run started ${formatDate(run.started_at)}`),
                      ),
                    ),
                  ),
                ),
              ),
            ),
          ),
    more ? h('div', { class: 'actions' }, h('button', { type: 'button', onClick: loadMore }, 'Load more runs')) : null,
    opened ? h(RunOutput, { task, run: opened, me, key: opened.id }) : null,
  )
}
