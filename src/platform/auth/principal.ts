// Who is calling: the identity every guarded route receives, whatever kind of bearer token proved it.
import type { UserKind, UserRole } from '../db/schema.ts'

export interface Principal {
  readonly userId: string
  readonly email: string
  readonly name: string
  /** As last committed when the request was authenticated (src/modules/auth/authenticator.ts): a role change applies at once. */
  readonly role: UserRole
  readonly kind: UserKind
  /**
   * How the caller proved it: an access token from login, the org token, a personal API token, an OAuth token this
   * instance issued (MCP endpoints only), or a GPT app's key (its /api/gpt_public routes only: the GPT acts as the
   * organisation's account).
   */
  readonly via: 'access_token' | 'org_token' | 'pat' | 'oauth' | 'gpt_key'
  /** The API token's id when `via` is `org_token` or `pat`; the OAuth grant's id when `oauth`; the GPT's id when `gpt_key`. */
  readonly tokenId: string | null
}

/**
 * Resolves an Authorization header to a principal, or throws (or rejects with) the 401 HttpError. Synchronous when the
 * database's read connection is (SQLite), a promise when it is not (PostgreSQL). `arrivedAt`: when the request arrived
 * (performance.now(), its RequestContext's startedAt), so that what other instances committed before then is what
 * counts, and a read of their changes already made for this request serves (omitted: before the call).
 */
export type Authenticate = (authorization: string | null, arrivedAt?: number) => Principal | Promise<Principal>
