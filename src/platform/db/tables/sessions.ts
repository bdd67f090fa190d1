// Tables of migration 0012_sessions_and_registrations (the sessions half): the console's sign-in sessions, shared by
// every tab of a browser through an HttpOnly refresh cookie. Refresh tokens are stored only as SHA-256 hashes.

export interface AuthSessionsTable {
  id: string
  user_id: string
  /** SHA-256 hex of the current refresh token. */
  token_hash: string
  /** The refresh token this one replaced: accepted for a few seconds (tabs racing), a replay after that ends the session. */
  previous_token_hash: string | null
  rotated_at: string | null
  /** The user's session_version at sign-in: a password change, reset or deactivation bumps it and ends the session. */
  session_version: number
  created_at: string
  /** Fixed at sign-in (the access token's lifetime); refreshing never extends it. */
  expires_at: string
  /** Sign-out, a password change, or a replayed refresh token. */
  revoked_at: string | null
}

export interface SessionsTables {
  auth_sessions: AuthSessionsTable
}
