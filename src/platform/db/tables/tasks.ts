// Tables of migration 0004_tasks: scheduled tasks and their runs (issue 4); the threads runs write to are in threads.ts.

export type TaskVisibility = 'private' | 'public'
export type TaskState = 'enabled' | 'disabled'
export type ThreadPolicy = 'new_each_run' | 'append'
export type ScheduleFrequency = 'manual' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'cron'
export type RunStatus = 'running' | 'succeeded' | 'failed'
/** What started a run: its schedule, a catch-up at boot for a slot missed while the server was down, or "run now". */
export type RunTrigger = 'schedule' | 'catch_up' | 'manual'

export interface TasksTable {
  id: string
  name: string
  prompt: string
  /** The creator's user id: ownership checks use it, never the e-mail. */
  creator_id: string
  /** The creator's e-mail, the spec's `created_by`. */
  created_by: string
  agent_id: string | null
  /** chat_model.provider and .model; both null when the task follows the instance default. */
  chat_provider: string | null
  chat_model: string | null
  /** JSON array of objects. */
  mentions: string
  visibility: TaskVisibility
  frequency: ScheduleFrequency
  /** "HH:MM", or null. */
  schedule_hour: string | null
  /** monday…sunday for weekly, "1"…"31" for monthly, else null. */
  schedule_day: string | null
  timezone: string
  cron: string | null
  state: TaskState
  thread_policy: ThreadPolicy
  thread_id: string | null
  /** UTC ISO; null for manual or disabled tasks. The scheduler's durable record of the next slot. */
  next_run: string | null
  last_run_at: string | null
  last_run_status: RunStatus | null
  last_run_thread_id: string | null
  created_at: string
  updated_at: string
}

export interface TaskRunsTable {
  id: string
  task_id: string
  status: RunStatus
  trigger: RunTrigger
  /** The slot a scheduled run was for; null for manual runs. Unique per task, so a slot can never run twice. */
  scheduled_for: string | null
  thread_id: string
  started_at: string
  finished_at: string | null
  error: string | null
  /** The process that started the run (a new id at every boot); null for runs from before 0024. */
  instance_id: string | null
}

export interface TasksTables {
  tasks: TasksTable
  task_runs: TaskRunsTable
}
