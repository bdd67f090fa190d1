// /api/threads (docs/api.md "Threads"): the conversations of task runs and chat.
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { ListThreadsQuery, Thread, ThreadIdParams, ThreadSummary } from './schema.ts'
import type { ThreadsService } from './service.ts'

export function threadsRoutes(guard: AuthGuard, threads: ThreadsService) {
  const tags = ['threads']
  return new Elysia({ name: 'threads-routes' })
    .use(guard)
    .get('/api/threads', ({ principal, query }) => threads.list(principal, query), {
      auth: 'member',
      query: ListThreadsQuery,
      response: { 200: t.Array(ThreadSummary) },
      detail: { tags, summary: 'List my threads, newest activity first' },
    })
    .get('/api/threads/:id', ({ principal, params }) => threads.get(principal, params.id), {
      auth: 'member',
      params: ThreadIdParams,
      response: { 200: Thread },
      detail: { tags, summary: 'A thread and its messages (its owner; admins may read any)' },
    })
    .delete(
      '/api/threads/:id',
      async ({ principal, params, set }) => {
        await threads.delete(principal, params.id)
        set.status = 204
      },
      {
        auth: 'member',
        params: ThreadIdParams,
        response: { 204: t.Void({ description: 'Deleted with its messages; no body' }) },
        detail: { tags, summary: 'Delete one of my threads' },
      },
    )
}
