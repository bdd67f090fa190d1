// /api/task and /api/tasks (docs/api.md "Tasks"): scheduled tasks and their runs; threads are the threads module's.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { CreateTaskBody, ListRunsQuery, ListTasksQuery, Run, Task, TaskIdParams, UpdateTaskBody } from './schema.ts'
import type { TasksService } from './service.ts'

export function tasksRoutes(guard: AuthGuard, tasks: TasksService) {
  const tags = ['tasks']
  return new Elysia({ name: 'tasks-routes' })
    .use(guard)
    .post(
      '/api/task',
      async ({ principal, body, set }) => {
        set.status = 201
        return tasks.create(principal, body)
      },
      {
        auth: 'member',
        body: CreateTaskBody,
        response: { 201: Task },
        detail: {
          tags,
          summary: 'Create a scheduled task',
          responses: { 409: { description: 'The caller already has the most tasks one person may have (100)' } },
        },
      },
    )
    .get('/api/tasks', ({ principal, query }) => tasks.list(principal, query), {
      auth: 'member',
      query: ListTasksQuery,
      response: { 200: t.Array(Task) },
      detail: { tags, summary: 'List my tasks and public ones, newest first', responses: { 403: { description: 'all=true from a member' } } },
    })
    .get('/api/task/:task_id', ({ principal, params }) => tasks.get(principal, params.task_id), {
      auth: 'member',
      params: TaskIdParams,
      response: { 200: Task },
      detail: { tags, summary: 'Get a task' },
    })
    .patch('/api/task/:task_id', ({ principal, params, body }) => tasks.update(principal, params.task_id, body), {
      auth: 'member',
      params: TaskIdParams,
      body: UpdateTaskBody,
      response: { 200: Task },
      detail: {
        tags,
        summary: 'Change a task (creator or admin); schedule changes take effect at once',
        responses: { 403: { description: 'A public task of someone else' } },
      },
    })
    .delete(
      '/api/task/:task_id',
      async ({ principal, params, set }) => {
        await tasks.delete(principal, params.task_id)
        set.status = 204
      },
      {
        auth: 'member',
        params: TaskIdParams,
        response: { 204: t.Void({ description: 'Deleted; no body' }) },
        detail: { tags, summary: 'Delete a task and its runs (creator or admin)', responses: { 403: { description: 'A public task of someone else' } } },
      },
    )
    .post(
      '/api/task/:task_id/run',
      async ({ principal, params, set }) => {
        const run = await tasks.runNow(principal, params.task_id)
        set.status = 202
        return run
      },
      {
        auth: 'member',
        params: TaskIdParams,
        response: { 202: Run },
        detail: {
          tags,
          summary: 'Run a task now; answers with the run as started',
          responses: { 403: { description: 'A public task of someone else' }, 409: { description: 'The task is running' } },
        },
      },
    )
    .get('/api/task/:task_id/runs', ({ principal, params, query }) => tasks.listRuns(principal, params.task_id, query), {
      auth: 'member',
      params: TaskIdParams,
      query: ListRunsQuery,
      response: { 200: t.Array(Run) },
      detail: { tags, summary: "List a task's runs, newest first" },
    })
}
