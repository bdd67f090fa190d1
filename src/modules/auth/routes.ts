// /api/auth: sign-in, console sessions (refresh, sign-out), the caller's identity, password change, personal API tokens
// (docs/api.md "Sign-in, tokens and roles").
import { Elysia, t } from 'elysia'
import type { authGuard } from '../../platform/auth/guard.ts'
import { HttpError } from '../../platform/http/http-error.ts'
import { requestContext } from '../../platform/http/request-context.ts'
import { fromConsolePage, servedOverHttps } from './console-origin.ts'
import { clearRefreshCookie, DEVICE_COOKIE, deviceCookie, readCookie, REFRESH_COOKIE, refreshCookie } from './cookies.ts'
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
import { type AuthService, type SignedIn, type SignInContext, TOO_MANY_ATTEMPTS, WRONG_CURRENT_PASSWORD } from './service.ts'

/** The path of a request, to tell `/api/auth/tokens/` (an empty token id) from `/api/auth/tokens`. */
const pathOf = (request: Request) => new URL(request.url).pathname

/**
 * Elysia serves `/x/` as `/x`. Where `/x/{id}` takes the same method as the bulk route `/x`, an empty id must not
 * widen the action to everything: the bulk route refuses the trailing slash (404, like any unknown id).
 */
function exactPath({ request }: { request: Request }) {
  if (pathOf(request).endsWith('/')) throw new HttpError(404, 'Not Found')
}

export function authRoutes(guard: ReturnType<typeof authGuard>, auth: AuthService, publicUrl: string | null) {
  const tags = ['auth']
  const cookieHeader = (request: Request) => request.headers.get('cookie')
  const signInContext = (request: Request): SignInContext => ({
    address: requestContext(request)?.clientAddress ?? 'unknown',
    deviceCookie: readCookie(cookieHeader(request), DEVICE_COOKIE),
    console: fromConsolePage(request, publicUrl),
  })
  /** The answer as JSON (never cached: it holds a token), with the console's cookies when a session was started. */
  const answer = (body: unknown, request: Request, signedIn?: Pick<SignedIn, 'refreshToken' | 'deviceCookie'>) => {
    const response = Response.json(body, { headers: { 'cache-control': 'no-store' } })
    const secure = servedOverHttps(request, publicUrl)
    if (signedIn?.refreshToken) response.headers.append('set-cookie', refreshCookie(signedIn.refreshToken, secure))
    if (signedIn?.deviceCookie) response.headers.append('set-cookie', deviceCookie(signedIn.deviceCookie, secure))
    return response
  }
  return (
    new Elysia({ name: 'auth-routes' })
      .use(guard)
      .post(
        '/api/auth/login',
        async ({ body, request }) => {
          const signedIn = await auth.login(body.email, body.password, signInContext(request))
          return answer(signedIn.token, request, signedIn)
        },
        {
          body: LoginBody,
          response: { 200: AccessToken },
          detail: {
            tags,
            summary: 'Sign in with e-mail and password',
            description:
              "From the console (a request whose Origin is this instance) the answer also sets the console session's refresh cookie (`agentbox_refresh`: HttpOnly, SameSite=Strict, Path=/api/auth, Secure on https) and the device cookie (`agentbox_device`), and the access token belongs to that session.",
            security: [],
            responses: { 401: { description: 'Invalid credentials' }, 429: { description: `${TOO_MANY_ATTEMPTS}; Retry-After says when to try again` } },
          },
        },
      )
      .post(
        '/api/auth/refresh',
        async ({ request }) => {
          if (!fromConsolePage(request, publicUrl))
            throw new HttpError(403, 'Only the console can refresh its session: the request must come from its page (Origin)')
          const token = readCookie(cookieHeader(request), REFRESH_COOKIE)
          const refreshed = await auth.refresh(token)
          if (!refreshed) {
            const clear: Record<string, string> = token ? { 'set-cookie': clearRefreshCookie(servedOverHttps(request, publicUrl)) } : {}
            throw new HttpError(401, 'Not authenticated', { 'www-authenticate': 'Bearer', 'cache-control': 'no-store', ...clear })
          }
          return answer(refreshed.token, request, { refreshToken: refreshed.refreshToken, deviceCookie: null })
        },
        {
          response: { 200: AccessToken },
          detail: {
            tags,
            summary: "A new access token for the console session in the refresh cookie (the console's tabs)",
            description:
              "Reads the `agentbox_refresh` cookie that sign-in set and rotates it (a new Set-Cookie; the replaced one is still accepted for 30 seconds, then presenting it ends the session). The access token expires with the session, 12 hours after sign-in. Only from the console's own page: the `Origin` header must name this instance.",
            security: [],
            responses: {
              401: { description: 'No cookie, or its session ended (signed out, expired, password changed, user deactivated)' },
              403: { description: 'The request does not come from the console (Origin missing or another site)' },
            },
          },
        },
      )
      .post(
        '/api/auth/logout',
        async ({ request }) => {
          await auth.logout(readCookie(cookieHeader(request), REFRESH_COOKIE), request.headers.get('authorization'))
          return new Response(null, {
            status: 204,
            headers: { 'set-cookie': clearRefreshCookie(servedOverHttps(request, publicUrl)), 'cache-control': 'no-store' },
          })
        },
        {
          response: { 204: t.Undefined({ description: 'Signed out (also when there was nothing to end)' }) },
          detail: {
            tags,
            summary: 'Sign out of the console: end the session of the refresh cookie (and of the bearer access token)',
            description:
              "Ends the console session named by the `agentbox_refresh` cookie and the one the `Authorization` access token belongs to: every tab's access token of that session stops working at once. Clears the cookie. Personal API tokens are not affected.",
            security: [],
          },
        },
      )
      // Answered as a ready Response: Elysia would otherwise check it against the response schema on every call
      // (~1.7 µs on the hottest authenticated route); the schema still documents it.
      .get('/api/auth/me', ({ principal }) => Response.json({ id: principal.userId, email: principal.email, name: principal.name, role: principal.role }), {
        auth: 'member',
        response: { 200: Me },
        detail: { tags, summary: 'The authenticated caller' },
      })
      .post(
        '/api/auth/password',
        async ({ body, principal, request }) => {
          const from = { ...signInContext(request), refreshToken: readCookie(cookieHeader(request), REFRESH_COOKIE) }
          const changed = await auth.changePassword(principal, body.current_password, body.new_password, from)
          return answer({ message: 'Password changed', ...changed.token }, request, changed)
        },
        {
          auth: 'member',
          body: ChangePasswordBody,
          response: { 200: ChangePasswordResponse },
          detail: {
            tags,
            summary: 'Change your own password',
            description:
              'Ends every access token and console session of the account and returns a new access token (from the console, in a new session with a new refresh cookie). Personal API tokens and connected OAuth clients stay. A wrong current password counts as a failed sign-in.',
            responses: {
              400: { description: 'The account has no password (the organisation token)' },
              403: { description: WRONG_CURRENT_PASSWORD },
              429: { description: `${TOO_MANY_ATTEMPTS} (sign-ins and password checks count together); Retry-After says when` },
            },
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
        beforeHandle: exactPath,
        response: { 200: RevokedApiTokens },
        detail: {
          tags,
          summary: 'Revoke all your API tokens at once',
          description: 'Exactly this path: `DELETE /api/auth/tokens/` (an empty token id) is 404, never this.',
        },
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
