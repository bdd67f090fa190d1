// The `auth` route option: authenticates before the body is read, enforces the role and the licence's write block.
import { Elysia } from 'elysia'
import { BEFORE_BODY_KEY, type BeforeBodyCheck } from '../http/before-body.ts'
import { HttpError } from '../http/http-error.ts'
import { requestContext } from '../http/request-context.ts'
import { forbidden } from '../errors.ts'
import type { Authenticate, Principal } from './principal.ts'

export type Role = 'member' | 'admin'

export interface AuthRequirement {
  readonly role: Role
  /**
   * Allowed even after the licence's grace period ended. For reads sent as POST and for actions that
   * only take access away (revoking a token, deactivating a user) or restore it (applying a licence).
   */
  readonly whenLicenseLapsed?: 'allowed'
  /**
   * The `WWW-Authenticate` value of this route's 401 (default `Bearer`). MCP endpoints answer
   * `Bearer resource_metadata="…"` so clients can discover how to sign in; a function sees the request (its host).
   */
  readonly challenge?: string | ((request: Request) => string)
}

export interface GuardOptions {
  readonly authenticate: Authenticate
  /** True once the licence is past expiry plus grace: mutations answer 402 (docs/api.md "First run and licences"). */
  readonly licenseLapsed: () => boolean
  /** True when `authenticate` never returns a promise (SQLite's read connection answers synchronously). */
  readonly synchronous: boolean
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/**
 * The principal each request was admitted as, from the guard's `transform` to its `resolve`. Kept beside the context,
 * not on it: Elysia reads each hook's source to decide what to prepare per request, and a hook that hands its whole
 * context to a function makes every route parse cookies, the query and copy the headers (~3 % of an execute call).
 */
const admitted = new WeakMap<Request, Principal>()

export const LICENSE_EXPIRED = 'License expired'

/** Where a guarded route's requirement is left in its `detail`, for the OpenAPI document's 402 and 403 responses. */
export const AUTH_REQUIREMENT_KEY = 'x-agentbox-auth'

/**
 * Use as `{ auth: 'member' }`, `{ auth: 'admin' }` or `{ auth: { role, whenLicenseLapsed } }`.
 * A request with a body is admitted by the body parser before it reads a byte (the route's BEFORE_BODY_KEY check): an
 * anonymous caller gets 401 without the server reading or parsing up to 7 MiB of JSON or 32 MiB of upload, and a member
 * 403 on an admin route. `transform` (which Elysia runs after the parser and before schema validation) admits the
 * requests the parser did not see (GET, HEAD) and finds the others already admitted: one lookup a request either way.
 */
export function authGuard({ authenticate, licenseLapsed, synchronous }: GuardOptions) {
  return new Elysia({ name: 'auth-guard' }).macro({
    auth: (requirement: Role | AuthRequirement) => {
      const { role, whenLicenseLapsed, challenge } = typeof requirement === 'string' ? { role: requirement } : requirement
      const principalOf = (request: Request) =>
        challenge === undefined
          ? authenticate(request.headers.get('authorization'), requestContext(request)?.startedAt)
          : authenticateWith(authenticate, request, challenge)
      const admit = (request: Request, principal: Principal) => {
        if (role === 'admin' && principal.role !== 'admin') throw forbidden()
        if (whenLicenseLapsed !== 'allowed' && MUTATING.has(request.method) && licenseLapsed()) {
          throw new HttpError(402, LICENSE_EXPIRED)
        }
        admitted.set(request, principal)
      }
      const beforeBody: BeforeBodyCheck = synchronous
        ? (request) => admit(request, principalOf(request) as Principal)
        : async (request) => admit(request, await principalOf(request))
      return {
        detail: { security: [{ bearer: [] }], [AUTH_REQUIREMENT_KEY]: { role, whenLicenseLapsed }, [BEFORE_BODY_KEY]: beforeBody },
        // Elysia awaits a transform only if it is an async function (it reads the source), so the guard has two: on
        // SQLite authentication is synchronous, and no promise (nor an extra turn) is added to every request.
        transform: synchronous
          ? ({ request }: { request: Request }) => {
              if (!admitted.has(request)) admit(request, principalOf(request) as Principal)
            }
          : async ({ request }: { request: Request }) => {
              if (!admitted.has(request)) admit(request, await principalOf(request))
            },
        resolve({ request }: { request: Request }) {
          return { principal: admitted.get(request) as Principal }
        },
      }
    },
  })
}

/** Authenticates, answering a 401 with the route's own challenge instead of the default `Bearer`. */
function authenticateWith(authenticate: Authenticate, request: Request, challenge: string | ((request: Request) => string)): Principal | Promise<Principal> {
  const withChallenge = (error: unknown): never => {
    if (!(error instanceof HttpError) || error.status !== 401) throw error
    const value = typeof challenge === 'string' ? challenge : challenge(request)
    throw new HttpError(401, error.detail, { ...error.headers, 'www-authenticate': value })
  }
  try {
    const principal = authenticate(request.headers.get('authorization'), requestContext(request)?.startedAt)
    return principal instanceof Promise ? principal.catch(withChallenge) : principal
  } catch (error) {
    return withChallenge(error)
  }
}

export type AuthGuard = ReturnType<typeof authGuard>
