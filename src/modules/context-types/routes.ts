// /api/context-type: the tenant's context types (spec "Context type list", docs/api.md "Context types").
import { Elysia, t } from 'elysia'
import type { AuthGuard } from '../../platform/auth/guard.ts'
import { ContextType, ContextTypeBody, ContextTypeIdParams } from './schema.ts'
import type { ContextTypesService } from './service.ts'

export function contextTypesRoutes(guard: AuthGuard, contextTypes: ContextTypesService) {
  const tags = ['context types']
  return new Elysia({ name: 'context-types-routes' })
    .use(guard)
    .get('/api/context-type', () => contextTypes.list(), {
      auth: 'member',
      response: { 200: t.Array(ContextType) },
      detail: { tags, summary: 'List the context types of the tenant (by name)' },
    })
    .post(
      '/api/context-type',
      async ({ principal, body, set }) => {
        set.status = 201
        return contextTypes.create(principal, body)
      },
      {
        auth: 'member',
        body: ContextTypeBody,
        response: { 201: ContextType },
        detail: {
          tags,
          summary: 'Create a context type (name unique in the tenant, else 409)',
          responses: { 409: { description: 'A context type of that name exists' } },
        },
      },
    )
    .get('/api/context-type/:id', ({ params }) => contextTypes.get(params.id), {
      auth: 'member',
      params: ContextTypeIdParams,
      response: { 200: ContextType },
      detail: { tags, summary: 'Get a context type' },
    })
    .put('/api/context-type/:id', ({ principal, params, body }) => contextTypes.replace(principal, params.id, body), {
      auth: 'member',
      params: ContextTypeIdParams,
      body: ContextTypeBody,
      response: { 200: ContextType },
      detail: {
        tags,
        summary: 'Replace a context type (its creator or an admin)',
        description: 'Omitted texts become empty.',
        responses: { 403: { description: 'Neither its creator nor an admin' }, 409: { description: 'A context type of that name exists' } },
      },
    })
    .delete(
      '/api/context-type/:id',
      async ({ principal, params, set }) => {
        await contextTypes.delete(principal, params.id)
        set.status = 204
      },
      {
        auth: 'member',
        params: ContextTypeIdParams,
        response: { 204: t.Void({ description: 'Deleted; no body' }) },
        detail: { tags, summary: 'Delete a context type (its creator or an admin)', responses: { 403: { description: 'Neither its creator nor an admin' } } },
      },
    )
}
