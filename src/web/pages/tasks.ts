// Tasks: the caller's and public scheduled tasks, run now, each task's runs and their output (task-runs.ts), and one
// form to create or edit (name, prompt, schedule).
import { useState } from 'preact/hooks'
import { api, ApiError, errorText } from '../api.ts'
import type { Me } from '../session.ts'
import { Banner, Field, formatDate, h, Loading, Select, useLoad } from '../ui.ts'
import { TaskRuns } from './task-runs.ts'

type Frequency = 'manual' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'cron'
interface Schedule {
  frequency: Frequency
  hour: string | null
  day: string | null
  timezone: string
  cron: string | null
}
interface Task {
  id: string
  name: string
  prompt: string
  created_by: string
  visibility: 'private' | 'public'
  schedule: Schedule
  state: 'enabled' | 'disabled'
  next_run: string | null
  last_run_at: string | null
  last_run_status: 'running' | 'succeeded' | 'failed' | null
}
interface Run {
  id: string
  status: string
  started_at: string
  error: string | null
}

const FREQUENCIES = [
  ['manual', 'Manual (run now only)'],
  ['hourly', 'Hourly'],
  ['daily', 'Daily'],
  ['weekly', 'Weekly'],
  ['monthly', 'Monthly'],
  ['cron', 'Cron expression'],
] as const
const VISIBILITIES = [
  ['private', 'Private (only me)'],
  ['public', 'Public (every member)'],
] as const
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

const localZone = (): string => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
  } catch {
    return 'UTC'
  }
}

/** One sentence per schedule, e.g. "Daily at 09:00 (Europe/Paris)". */
export function describeSchedule(s: Schedule): string {
  const zone = ` (${s.timezone})`
  switch (s.frequency) {
    case 'manual':
      return 'Manual only'
    case 'hourly':
      return `Hourly at minute ${(s.hour ?? '00:00').slice(3, 5) || '00'}${zone}`
    case 'daily':
      return `Daily at ${s.hour ?? '—'}${zone}`
    case 'weekly':
      return `Weekly on ${capital(s.day ?? '—')} at ${s.hour ?? '—'}${zone}`
    case 'monthly':
      return `Monthly on day ${s.day ?? '—'} at ${s.hour ?? '—'}${zone}`
    case 'cron':
      return `Cron ${s.cron ?? '—'}${zone}`
  }
}

interface Form {
  name: string
  prompt: string
  visibility: string
  frequency: Frequency
  hour: string
  day: string
  timezone: string
  cron: string
}

const emptyForm = (): Form => ({
  name: '',
  prompt: '',
  visibility: 'private',
  frequency: 'daily',
  hour: '09:00',
  day: 'monday',
  timezone: localZone(),
  cron: '',
})
const formOf = (t: Task): Form => ({
  name: t.name,
  prompt: t.prompt,
  visibility: t.visibility,
  frequency: t.schedule.frequency,
  hour: t.schedule.hour ?? '09:00',
  day: t.schedule.day ?? (t.schedule.frequency === 'monthly' ? '1' : 'monday'),
  timezone: t.schedule.timezone,
  cron: t.schedule.cron ?? '',
})

/** Only the fields the chosen frequency uses are sent, so a stale day or cron never trips validation. */
function scheduleOf(f: Form): Record<string, string> {
  const s: Record<string, string> = { frequency: f.frequency, timezone: f.timezone.trim() }
  if (f.frequency !== 'manual' && f.frequency !== 'cron') s.hour = f.hour
  if (f.frequency === 'weekly' || f.frequency === 'monthly') s.day = f.day.trim()
  if (f.frequency === 'cron') s.cron = f.cron.trim()
  return s
}

const FIELD_KEYS = ['name', 'prompt', 'visibility', 'schedule.frequency', 'schedule.hour', 'schedule.day', 'schedule.timezone', 'schedule.cron']

function TaskForm({ editing, onSaved, onCancel }: { editing: Task | null; onSaved: (message: string) => void; onCancel: () => void }) {
  const [form, setForm] = useState<Form>(() => (editing ? formOf(editing) : emptyForm()))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const set = (key: keyof Form) => (value: string) => setForm({ ...form, [key]: value })
  const prefix = 'task'

  const submit = async (event: Event) => {
    event.preventDefault()
    setErrors({})
    setError('')
    setBusy(true)
    const body = { name: form.name, prompt: form.prompt, visibility: form.visibility, schedule: scheduleOf(form) }
    try {
      const saved = editing ? await api<Task>('PATCH', `/api/task/${encodeURIComponent(editing.id)}`, body) : await api<Task>('POST', '/api/task', body)
      if (!editing) setForm(emptyForm())
      onSaved(editing ? `Task "${saved.name}" saved.` : `Task "${saved.name}" created.`)
    } catch (e) {
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) {
        setErrors(e.fields)
        // Anything the form has no field for still gets said, above the form.
        const rest = Object.entries(e.fields).filter(([key]) => !FIELD_KEYS.includes(key))
        if (rest.length > 0) setError(rest.map(([key, msg]) => `${key}: ${msg}`).join('; '))
      } else if (e instanceof ApiError && e.status === 403) setError(`You may not change this task: ${e.message}`)
      else if (e instanceof ApiError && e.status === 404) setError(`This task no longer exists: ${e.message}`)
      else setError(errorText(e))
    } finally {
      setBusy(false)
    }
  }

  const f = form.frequency
  const title = editing ? `Edit task "${editing.name}"` : 'Create a task'
  return h(
    'form',
    { class: 'card', onSubmit: submit, 'aria-labelledby': `${prefix}-title` },
    h('h2', { id: `${prefix}-title` }, title),
    error ? h(Banner, { kind: 'error' }, error) : null,
    h(Field, { id: `${prefix}-name`, label: 'Name', value: form.name, onInput: set('name'), error: errors.name, required: true }),
    h(Field, { id: `${prefix}-prompt`, label: 'Prompt', value: form.prompt, onInput: set('prompt'), error: errors.prompt, multiline: true, required: true }),
    h(
      'div',
      { class: 'filters' },
      h(Select, { id: `${prefix}-visibility`, label: 'Visibility', value: form.visibility, options: VISIBILITIES, onChange: set('visibility') }),
      h(Select, { id: `${prefix}-frequency`, label: 'Frequency', value: f, options: FREQUENCIES, onChange: set('frequency') }),
      f !== 'manual' && f !== 'cron'
        ? h(Field, {
            id: `${prefix}-hour`,
            label: 'Time (HH:MM)',
            type: 'time',
            value: form.hour,
            onInput: set('hour'),
            error: errors['schedule.hour'],
            required: true,
            ...(f === 'hourly' ? { hint: 'Only the minutes are used' } : {}),
          })
        : null,
      f === 'weekly'
        ? h(
            'div',
            null,
            h(Select, {
              id: `${prefix}-day`,
              label: 'Day',
              value: WEEKDAYS.includes(form.day as never) ? form.day : 'monday',
              options: WEEKDAYS.map((d) => [d, capital(d)] as const),
              onChange: set('day'),
            }),
            errors['schedule.day'] ? h('div', { class: 'field-error', role: 'alert' }, errors['schedule.day']) : null,
          )
        : null,
      f === 'monthly'
        ? h(Field, {
            id: `${prefix}-day`,
            label: 'Day of the month (1–31)',
            type: 'number',
            value: /^\d+$/.test(form.day) ? form.day : '1',
            onInput: set('day'),
            error: errors['schedule.day'],
            required: true,
          })
        : null,
      f === 'cron'
        ? h(Field, {
            id: `${prefix}-cron`,
            label: 'Cron expression',
            value: form.cron,
            onInput: set('cron'),
            error: errors['schedule.cron'],
            hint: '5 fields, e.g. 0 9 * * 1-5',
            required: true,
          })
        : null,
      h(Field, {
        id: `${prefix}-timezone`,
        label: 'Time zone',
        value: form.timezone,
        onInput: set('timezone'),
        error: errors['schedule.timezone'],
        hint: 'IANA name, e.g. Europe/Paris',
        required: true,
      }),
    ),
    errors['schedule.frequency'] || errors.visibility
      ? h('div', { class: 'field-error', role: 'alert' }, errors['schedule.frequency'] ?? errors.visibility)
      : null,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', disabled: busy }, editing ? 'Save task' : 'Create task'),
      editing ? h('button', { type: 'button', onClick: onCancel }, 'Cancel editing') : null,
    ),
  )
}

export function TasksPage({ me }: { me: Me }) {
  const tasks = useLoad(() => api<Task[]>('GET', '/api/tasks'))
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [editing, setEditing] = useState<Task | null>(null)
  const [runsOf, setRunsOf] = useState<Task | null>(null)
  const [runStarts, setRunStarts] = useState(0)

  const runNow = async (task: Task) => {
    try {
      const run = await api<Run>('POST', `/api/task/${encodeURIComponent(task.id)}/run`)
      setNotice({
        kind: run.status === 'failed' ? 'error' : 'success',
        text: `Run started for "${task.name}" (${run.status}${run.error ? `: ${run.error}` : ''}).`,
      })
      setRunStarts((n) => n + 1)
    } catch (e) {
      const status = e instanceof ApiError ? e.status : 0
      setNotice({
        kind: 'error',
        text: status === 403 ? `You may not run "${task.name}": ${errorText(e)}` : status === 404 ? `"${task.name}" no longer exists.` : errorText(e),
      })
    }
    tasks.reload()
  }
  const edit = (task: Task) => {
    setEditing(task)
    setNotice(null)
    // Take the keyboard (and the eye) to the form the button opened.
    requestAnimationFrame(() => document.getElementById('task-name')?.focus())
  }
  const showRuns = (task: Task) => {
    setRunsOf(runsOf?.id === task.id ? null : task)
    if (runsOf?.id !== task.id) requestAnimationFrame(() => document.getElementById('task-runs')?.focus())
  }
  const saved = (text: string) => {
    setNotice({ kind: 'success', text })
    setEditing(null)
    tasks.reload()
  }

  return h(
    'section',
    null,
    h('h1', null, 'Tasks'),
    h('div', { 'aria-live': 'polite' }, notice ? h(Banner, { kind: notice.kind }, h('span', { dir: 'auto' }, notice.text)) : null),
    !tasks.data
      ? h(Loading, { error: tasks.error })
      : tasks.data.length === 0
        ? h('p', null, 'No tasks yet. Create one below.')
        : h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'sr-only' }, 'Your tasks and public tasks'),
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Name', 'Visibility', 'Schedule', 'Next run', 'Last status', 'Actions'].map((c) => h('th', { scope: 'col', key: c }, c)),
                ),
              ),
              h(
                'tbody',
                null,
                tasks.data.map((task) => {
                  const mayEdit = me.role === 'admin' || task.created_by === me.email
                  return h(
                    'tr',
                    { key: task.id },
                    h('th', { scope: 'row', 'data-label': 'Name' }, h('bdi', null, task.name)),
                    h('td', { 'data-label': 'Visibility' }, capital(task.visibility)),
                    h(
                      'td',
                      { 'data-label': 'Schedule' },
                      h('span', { dir: 'auto' }, describeSchedule(task.schedule)),
                      task.state === 'disabled' ? ' (disabled)' : '',
                    ),
                    h('td', { 'data-label': 'Next run' }, task.next_run ? h('time', { dateTime: task.next_run }, formatDate(task.next_run)) : '—'),
                    h(
                      'td',
                      { 'data-label': 'Last status' },
                      task.last_run_status ? `${capital(task.last_run_status)}, ${formatDate(task.last_run_at)}` : 'Never run',
                    ),
                    h(
                      'td',
                      { 'data-label': 'Actions' },
                      h(
                        'div',
                        { class: 'row-actions' },
                        h('button', { type: 'button', onClick: () => runNow(task) }, 'Run now', h('span', { class: 'sr-only' }, ` ${task.name}`)),
                        h(
                          'button',
                          {
                            type: 'button',
                            'aria-expanded': runsOf?.id === task.id ? 'true' : 'false',
                            'aria-controls': 'task-runs',
                            onClick: () => showRuns(task),
                          },
                          'Runs',
                          h('span', { class: 'sr-only' }, ` of ${task.name}`),
                        ),
                        mayEdit ? h('button', { type: 'button', onClick: () => edit(task) }, 'Edit', h('span', { class: 'sr-only' }, ` ${task.name}`)) : null,
                      ),
                    ),
                  )
                }),
              ),
            ),
          ),
    runsOf && tasks.data?.some((t) => t.id === runsOf.id)
      ? h(TaskRuns, { task: runsOf, me, refresh: runStarts, onClose: () => setRunsOf(null), key: runsOf.id })
      : null,
    // One form: empty to create, prefilled (and keyed by the task, so it starts fresh) to edit.
    h(TaskForm, { editing, onSaved: saved, onCancel: () => setEditing(null), key: editing ? `edit-${editing.id}` : 'new' }),
  )
}
