// Tables of migration 0023_mcp_servers (issue 30): external MCP servers, each user's connection to them, and the OAuth
// authorizations waiting for their callback. Tokens, client secrets and PKCE verifiers are never here: they are sealed
// secrets of the vault's `mcp_server_token` namespace (subject = the server's id).

export type McpServerAuth = 'none' | 'bearer' | 'oauth'
/** `admin`: a client id an admin registered with the authorization server; `registered`: ours, by dynamic registration. */
export type McpServerClientSource = 'admin' | 'registered'

export interface McpServersTable {
  id: string
  /** Agent-name rules (lowercase kebab-case, ≤ 64); the prefix of its tools' names (`<name>__<tool>`). */
  name: string
  url: string
  auth: McpServerAuth
  /** OAuth servers: the client id Agentbox uses at the authorization server, once known. */
  oauth_client_id: string | null
  oauth_client_source: McpServerClientSource | null
  /** A registered client: the issuer it was registered with, and the redirect URI it registered (a new one re-registers). */
  oauth_client_issuer: string | null
  oauth_client_redirect_uri: string | null
  /** Moves when the URL or the kind of auth changes: what cached tool lists are keyed by. */
  revision: number
  created_by: string
  created_at: string
  updated_at: string
}

export type McpServerConnectionKind = 'bearer' | 'oauth'

/** One user's connection to one server: its token is in the vault; this row says when, and why it stopped working. */
export interface McpServerConnectionsTable {
  server_id: string
  user_id: string
  kind: McpServerConnectionKind
  /** Set on every (re)connection: what cached tool lists are keyed by, so a second instance sees a new token at once. */
  connected_at: string
  /** Why the connection no longer works (its refresh was refused, the server refused the token), else null. */
  problem: string | null
  problem_at: string | null
  /** OAuth: where the refresh token is revoked when the user disconnects (RFC 7009), if the server has such an endpoint. */
  revocation_endpoint: string | null
}

/** An OAuth authorization sent to the browser, waiting for the callback: at most 10 minutes, used once. */
export interface McpServerAuthorizationsTable {
  /** SHA-256 of the `state` parameter: the state itself travels only through the browser. */
  state_hash: string
  server_id: string
  user_id: string
  /** SHA-256 of the cookie that ties the authorization to the browser that asked for it. */
  browser_hash: string
  redirect_uri: string
  /** The RFC 8707 resource indicator sent with the authorization and the token requests. */
  resource: string | null
  scope: string | null
  authorization_server: string
  /** The authorization server's metadata (RFC 8414) as discovered, JSON. */
  metadata: string
  client_id: string
  created_at: string
  expires_at: string
}

export interface McpServersTables {
  mcp_servers: McpServersTable
  mcp_server_connections: McpServerConnectionsTable
  mcp_server_authorizations: McpServerAuthorizationsTable
}
