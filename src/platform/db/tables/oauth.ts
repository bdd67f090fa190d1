// Tables of migration 0009_oauth: the OAuth 2.1 authorization server for the instance's own MCP endpoints (issue 17):
// clients, pending authorization requests (with their one-time codes), grants and their tokens. Codes and tokens are
// stored only as SHA-256 hashes.

/** `registered` through POST /oauth/register (RFC 7591); `metadata_document`: a client ID metadata document URL, cached. */
export type OauthClientKind = 'registered' | 'metadata_document'

export interface OauthClientsTable {
  /** `abx_client_…` for a registered client; the document's https URL for a metadata-document client. */
  client_id: string
  kind: OauthClientKind
  client_name: string | null
  client_uri: string | null
  logo_uri: string | null
  /** JSON array of the exact redirect URIs the client may use. */
  redirect_uris: string
  /** JSON array: `authorization_code`, `refresh_token`. */
  grant_types: string
  created_at: string
  /** A metadata document's last successful read; it is read again once this is older than the cache time. */
  fetched_at: string | null
  /**
   * (0012) The address a registration came from (an IPv6 address's /64), for the per-address limit; null for metadata
   * documents and once the registration is over an hour old.
   */
  registered_from: string | null
}

/** One GET /oauth/authorize that passed its checks, waiting for the signed-in user's decision; then its one-time code. */
export interface OauthRequestsTable {
  /** Random and unguessable: it travels in the consent page's URL. */
  id: string
  client_id: string
  redirect_uri: string
  /** PKCE S256 challenge (RFC 7636). */
  code_challenge: string
  state: string | null
  scope: string
  /** The exact MCP URL the tokens will be bound to (RFC 8707). */
  resource: string
  created_at: string
  expires_at: string
  decided_at: string | null
  /** 1 approved, 0 denied, null undecided. */
  approved: number | null
  /** Who decided. */
  user_id: string | null
  code_hash: string | null
  code_expires_at: string | null
  /** Set when the code is exchanged; a second exchange revokes the grant it produced (RFC 6749 §4.1.2). */
  code_used_at: string | null
  grant_id: string | null
}

/** A user's consent for one client at one MCP URL: what the connected-clients page lists and revokes. */
export interface OauthGrantsTable {
  id: string
  user_id: string
  client_id: string
  resource: string
  scope: string
  created_at: string
  /** Touched at most once a minute by access-token checks. */
  last_used_at: string | null
  /** When the newest refresh token expires: the grant is dead after it. */
  expires_at: string
  revoked_at: string | null
}

export type OauthTokenKind = 'access' | 'refresh'

export interface OauthTokensTable {
  /** SHA-256 hex of the token; the token itself is never stored. */
  token_hash: string
  grant_id: string
  kind: OauthTokenKind
  created_at: string
  expires_at: string
  /** A refresh token already exchanged: presenting it again revokes the grant (rotation with reuse detection). */
  used_at: string | null
}

export interface OauthTables {
  oauth_clients: OauthClientsTable
  oauth_requests: OauthRequestsTable
  oauth_grants: OauthGrantsTable
  oauth_tokens: OauthTokensTable
}
