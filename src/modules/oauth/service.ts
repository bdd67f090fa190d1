// The OAuth 2.1 authorization server for this instance's MCP endpoints (docs/api.md "OAuth for MCP clients"): one
// service over the clients, the front channel (authorize + consent), the token endpoint and the grants.
import type { Kysely } from 'kysely'
import type { Principal } from '../../platform/auth/principal.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Database } from '../../platform/db/schema.ts'
import type { OutboundClient } from '../../platform/outbound/outbound-client.ts'
import { Authorization, type AuthorizationRequestView, type AuthorizeOutcome, type AuthorizeParams } from './authorization.ts'
import { OauthClients, type RegisteredClient } from './clients.ts'
import { type GrantRecord, Grants } from './grants.ts'
import { oauthParams, TokenEndpoint, type TokenResponse } from './token-endpoint.ts'

export class OauthService {
  readonly #clients: OauthClients
  readonly #authorization: Authorization
  readonly #tokens: TokenEndpoint
  readonly #grants: Grants

  constructor(db: Kysely<Database>, clock: Clock, outbound: OutboundClient) {
    this.#clients = new OauthClients(db, clock, outbound)
    this.#authorization = new Authorization(db, clock, this.#clients)
    this.#tokens = new TokenEndpoint(db, clock, this.#clients)
    this.#grants = new Grants(db, clock)
  }

  /**
   * RFC 7591 dynamic registration from `clientAddress`; throws OauthError invalid_redirect_uri / invalid_client_metadata /
   * temporarily_unavailable (429 too many from this address, 503 at the cap).
   */
  register(body: Record<string, unknown>, clientAddress: string): Promise<RegisteredClient> {
    return this.#clients.register(body, clientAddress)
  }

  /** `origin` is the issuer: the origin the request came to (the instance has no configured public URL). */
  authorize(params: AuthorizeParams, origin: string): Promise<AuthorizeOutcome> {
    return this.#authorization.authorize(params, origin)
  }

  authorizationRequest(principal: Principal, id: string): Promise<AuthorizationRequestView> {
    return this.#authorization.view(principal, id)
  }

  decideAuthorizationRequest(principal: Principal, id: string, approve: boolean): Promise<{ redirect_to: string }> {
    return this.#authorization.decide(principal, id, approve)
  }

  /** The token endpoint over form or JSON parameters; throws OauthError. */
  token(body: unknown, origin: string): Promise<TokenResponse> {
    return this.#tokens.token(oauthParams(body), origin)
  }

  /** RFC 7009; throws OauthError only for a request without a token. */
  revokeToken(body: unknown): Promise<void> {
    return this.#tokens.revoke(oauthParams(body))
  }

  listGrants(principal: Principal): Promise<GrantRecord[]> {
    return this.#grants.list(principal)
  }

  revokeGrant(principal: Principal, grantId: string): Promise<void> {
    return this.#grants.revoke(principal, grantId)
  }

  /**
   * Principal for an OAuth access token this instance issued for `resource` (the exact MCP URL, origin+path, no
   * query). Throws OauthTokenError (with .description) when the token is unknown, expired, revoked, or issued for
   * another resource, or its user is deactivated.
   */
  verifyAccessToken(token: string, resource: string): Promise<Principal> {
    return this.#grants.verifyAccessToken(token, resource)
  }

  /** Housekeeping: expired tokens, old requests and grants, and registrations never used within an hour. */
  async prune(): Promise<void> {
    await this.#grants.prune()
    await this.#clients.prune()
  }
}
