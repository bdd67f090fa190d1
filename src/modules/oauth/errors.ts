// The OAuth failures: what the authorization server's endpoints answer (RFC 6749 §5.2 `{error, error_description}`)
// and why an access token is refused at an MCP endpoint.
import { HttpError } from '../../platform/http/http-error.ts'

/** RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707 §2 and RFC 7009 §2.2.1 error codes. */
export type OauthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable'

/** A refusal by the token, registration or revocation endpoint; the routes answer it as `{error, error_description}`. */
export class OauthError extends Error {
  constructor(
    readonly error: OauthErrorCode,
    readonly description: string,
    /** 400 unless the RFC says otherwise (401 invalid_client, 503 temporarily_unavailable, 429 too many registrations). */
    readonly status = 400,
    /** Extra response headers (Retry-After on a 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description)
    this.name = 'OauthError'
  }

  toJSON(): { error: OauthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description }
  }
}

/**
 * An access token refused at an MCP endpoint: unknown, expired, revoked, issued for another resource, or its user is
 * gone. An HttpError 401 (not a DomainError) because its only caller is the MCP transport's authentication, which
 * answers it with a `WWW-Authenticate: Bearer resource_metadata=…, error="invalid_token"` challenge worded from
 * `description` (RFC 6750 §3.1).
 */
export class OauthTokenError extends HttpError {
  readonly error = 'invalid_token'
  constructor(readonly description: string) {
    super(401, description, { 'www-authenticate': `Bearer error="invalid_token", error_description="${description}"` })
    this.name = 'OauthTokenError'
  }
}
