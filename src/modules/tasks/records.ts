// Rows to API records: the spec's Task (every field) and runs.
import type {
  RunStatus,
  RunTrigger,
  ScheduleFrequency,
  TaskRunsTable,
  TasksTable,
  TaskState,
  TaskVisibility,
  ThreadPolicy,
} from '../../platform/db/tables/tasks.ts'
import type { Schedule } from './schedule.ts'

export interface TaskRecord {
  id: string
  name: string
  prompt: string
  created_by: string
  agent_id: string | null
  chat_model: { provider: string; model: string } | null
  mentions: Record<string, unknown>[]
  visibility: TaskVisibility
  schedule: { frequency: ScheduleFrequency; hour: string | null; day: string | null; timezone: string; cron: string | null }
  state: TaskState
  thread_policy: ThreadPolicy
  thread_id: string | null
  next_run: string | null
  last_run_at: string | null
  last_run_status: RunStatus | null
  last_run_thread_id: string | null
  created_at: string
  updated_at: string
}

export interface RunRecord {
  id: string
  task_id: string
  status: RunStatus
  trigger: RunTrigger
  scheduled_for: string | null
  thread_id: string
  started_at: string
  finished_at: string | null
  error: string | null
}

export const scheduleOf = (row: Pick<TasksTable, 'frequency' | 'schedule_hour' | 'schedule_day' | 'timezone' | 'cron'>): Schedule => ({
  frequency: row.frequency,
  hour: row.schedule_hour,
  day: row.schedule_day,
  timezone: row.timezone,
  cron: row.cron,
})

export const toTaskRecord = (row: TasksTable): TaskRecord => ({
  id: row.id,
  name: row.name,
  prompt: row.prompt,
  created_by: row.created_by,
  agent_id: row.agent_id,
  chat_model: row.chat_provider && row.chat_model ? { provider: row.chat_provider, model: row.chat_model } : null,
  mentions: JSON.parse(row.mentions) as Record<string, unknown>[],
  visibility: row.visibility,
  schedule: scheduleOf(row),
  state: row.state,
  thread_policy: row.thread_policy,
  thread_id: row.thread_id,
  next_run: row.next_run,
  last_run_at: row.last_run_at,
  last_run_status: row.last_run_status,
  last_run_thread_id: row.last_run_thread_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

export const toRunRecord = (row: TaskRunsTable): RunRecord => ({
  id: row.id,
  task_id: row.task_id,
  status: row.status,
  trigger: row.trigger,
  scheduled_for: row.scheduled_for,
  thread_id: row.thread_id,
  started_at: row.started_at,
  finished_at: row.finished_at,
  error: row.error,
})
