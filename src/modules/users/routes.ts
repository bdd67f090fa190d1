// /api/users: admin-only user management (docs/api.md "Sign-in, tokens and roles").
import { Elysia, t } from 'elysia'
import type { authGuard } from '../../platform/auth/guard.ts'
import { CreateUserBody, UpdateUserBody, User, UserIdParams } from './schema.ts'
import type { UsersService } from './service.ts'

export function usersRoutes(guard: ReturnType<typeof authGuard>, users: UsersService) {
  const tags = ['users']
  return new Elysia({ name: 'users-routes' })
    .use(guard)
    .post(
      '/api/users',
      async ({ body, set, principal }) => {
        set.status = 201
        return users.create(body, principal.userId)
      },
      {
        auth: 'admin',
        body: CreateUserBody,
        response: { 201: User },
        detail: {
          tags,
          summary: 'Create a user (takes a seat)',
          responses: { 402: { description: 'The licence has expired, or every seat is taken' }, 409: { description: 'A user with that e-mail exists' } },
        },
      },
    )
    .get('/api/users', () => users.list(), { auth: 'admin', response: { 200: t.Array(User) }, detail: { tags, summary: 'List users' } })
    .get('/api/users/:id', ({ params }) => users.get(params.id), {
      auth: 'admin',
      params: UserIdParams,
      response: { 200: User },
      detail: { tags, summary: 'Get a user' },
    })
    .patch('/api/users/:id', ({ params, body, principal }) => users.update(params.id, body, principal.userId), {
      auth: 'admin',
      params: UserIdParams,
      body: UpdateUserBody,
      response: { 200: User },
      detail: {
        tags,
        summary: 'Change name, role, password or active',
        responses: {
          402: { description: 'The licence has expired, or reactivating needs a seat and every seat is taken' },
          409: { description: 'The change would leave no active admin' },
        },
      },
    })
    .delete('/api/users/:id', ({ params, principal }) => users.deactivate(params.id, principal.userId), {
      // Taking access away must work even when the licence has lapsed.
      auth: { role: 'admin', whenLicenseLapsed: 'allowed' },
      params: UserIdParams,
      response: { 200: User },
      detail: {
        tags,
        summary: 'Deactivate a user (data stays, tokens stop working)',
        responses: { 409: { description: 'The user is the last active admin' } },
      },
    })
}
