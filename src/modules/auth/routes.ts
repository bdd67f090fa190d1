// /api/auth: sign-in, the caller's identity, password change, personal API tokens (docs/api.md "Sign-in, tokens and roles").
import { Elysia, t } from 'elysia'
import type { authGuard } from '../../platform/auth/guard.ts'
import { requestContext } from '../../platform/http/request-context.ts'
import {
  AccessToken,
  ApiToken,
  ChangePasswordBody,
  ChangePasswordResponse,
  CreateApiTokenBody,
  CreatedApiToken,
  LoginBody,
  Me,
  RevokedApiTokens,
} from './schema.ts'
import type { AuthService } from './service.ts'

export function authRoutes(guard: ReturnType<typeof authGuard>, auth: AuthService) {
  const tags = ['auth']
  return (
    new Elysia({ name: 'auth-routes' })
      .use(guard)
      .post('/api/auth/login', ({ body, request }) => auth.login(body.email, body.password, requestContext(request)?.clientAddress ?? 'unknown'), {
        body: LoginBody,
        response: { 200: AccessToken },
        detail: {
          tags,
          summary: 'Sign in with e-mail and password',
          security: [],
          responses: { 401: { description: 'Invalid credentials' }, 429: { description: 'Too many failed sign-ins; Retry-After says when to try again' } },
        },
      })
      // Answered as a ready Response: Elysia would otherwise check it against the response schema on every call
      // (~1.7 µs on the hottest authenticated route); the schema still documents it.
      .get('/api/auth/me', ({ principal }) => Response.json({ id: principal.userId, email: principal.email, name: principal.name, role: principal.role }), {
        auth: 'member',
        response: { 200: Me },
        detail: { tags, summary: 'The authenticated caller' },
      })
      .post(
        '/api/auth/password',
        async ({ body, principal }) => ({ message: 'Password changed', ...(await auth.changePassword(principal, body.current_password, body.new_password)) }),
        {
          auth: 'member',
          body: ChangePasswordBody,
          response: { 200: ChangePasswordResponse },
          detail: {
            tags,
            summary: 'Change your own password',
            description: 'Revokes every access token of the account and returns a new one.',
            responses: { 400: { description: 'The current password is incorrect, or the account has none' } },
          },
        },
      )
      .post(
        '/api/auth/tokens',
        async ({ body, principal, set }) => {
          set.status = 201
          return auth.createApiToken(principal, body.name)
        },
        { auth: 'member', body: CreateApiTokenBody, response: { 201: CreatedApiToken }, detail: { tags, summary: 'Create a personal API token (shown once)' } },
      )
      .get('/api/auth/tokens', ({ principal }) => auth.listApiTokens(principal), {
        auth: 'member',
        response: { 200: t.Array(ApiToken) },
        detail: { tags, summary: 'List your API tokens (no secrets)' },
      })
      .delete('/api/auth/tokens', ({ principal }) => auth.revokeAllApiTokens(principal.userId, principal.userId), {
        auth: { role: 'member', whenLicenseLapsed: 'allowed' },
        response: { 200: RevokedApiTokens },
        detail: { tags, summary: 'Revoke all your API tokens at once' },
      })
      .get('/api/users/:id/tokens', ({ params }) => auth.listApiTokensOf(params.id), {
        auth: 'admin',
        params: t.Object({ id: t.String() }),
        response: { 200: t.Array(ApiToken) },
        detail: { tags, summary: "List a user's API tokens (admins; no secrets)", responses: { 404: { description: 'User not found' } } },
      })
      .delete('/api/users/:id/tokens', ({ params, principal }) => auth.revokeAllApiTokens(params.id, principal.userId), {
        auth: { role: 'admin', whenLicenseLapsed: 'allowed' },
        params: t.Object({ id: t.String() }),
        response: { 200: RevokedApiTokens },
        detail: { tags, summary: "Revoke all of a user's API tokens at once (admins)", responses: { 404: { description: 'User not found' } } },
      })
      .delete('/api/auth/tokens/:id', ({ params, principal }) => auth.revokeApiToken(principal, params.id), {
        auth: { role: 'member', whenLicenseLapsed: 'allowed' },
        params: t.Object({ id: t.String() }),
        response: { 200: ApiToken },
        detail: { tags, summary: 'Revoke an API token at once' },
      })
  )
}
