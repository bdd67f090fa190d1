// Tables of migration 0015 owned by the secrets subsystem (platform/secrets): every sealed secret of the instance.

/**
 * One sealed secret. The namespace says whose kind of secret it is (`app_credential`, `git_repository_token`,
 * `mcp_server_token`…); subject, owner and name say which one. The value's associated data binds all four, so a
 * value copied onto another row never opens.
 */
export interface SealedSecretsTable {
  namespace: string
  /** What it belongs to: an application id, a repository id, an MCP server id. */
  subject: string
  /** A user id, or `org` for the organisation's. */
  owner: string
  /** Which of the subject's secrets (an application's security scheme); '' when the subject has one. */
  name: string
  /** The sealed JSON of the credential (platform/secrets/credential.ts); `v1:<key id>:<nonce>:<ciphertext>`. */
  sealed: string
  updated_at: string
  /** The user whose request stored it (a refresh keeps the user who connected). */
  updated_by: string
}

export interface SecretsTables {
  sealed_secrets: SealedSecretsTable
}
