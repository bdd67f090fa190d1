// Tables of migration 0004_tasks: scheduled tasks, runs and threads (issue 4).

export interface TasksTables {}
